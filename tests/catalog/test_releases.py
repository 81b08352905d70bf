"""Each entry's latest known release (version, day, source): seeded, shown, feeding the claims'
staleness, carried by the catalog bundle, and refused when written wrong."""

import datetime

import pytest
import yaml
from django.core.exceptions import ValidationError
from django.urls import reverse

from catalog.bundle.apply import bundle_apply
from catalog.bundle.common import BundleRefused
from catalog.bundle.diff import bundle_diff
from catalog.bundle.export import bundle_export
from catalog.bundle.read import bundle_read
from catalog.freshness import release_outdated
from catalog.models import CapabilityClaim, Solution, Source
from catalog.selectors import claim_freshness, releases_to_review
from tests.catalog.test_bundle import edited

pytestmark = pytest.mark.django_db

DAY = datetime.date(2026, 12, 1)


def volcano() -> Solution:
    return Solution.objects.select_related("release_source").get(slug="volcano")


def multi_tenancy() -> CapabilityClaim:
    return CapabilityClaim.objects.select_related("solution").get(
        solution__slug="volcano", capability__slug="multi-tenancy"
    )


def test_the_seed_records_the_releases_read_from_the_projects_tags():
    recorded = dict(
        Solution.objects.exclude(release_version="").values_list("slug", "release_version")
    )
    assert recorded == {
        "slurm": "26.05.3",
        "volcano": "v1.15.1",
        "kuberay": "v1.7.0",
        "kueue": "v0.19.2",
        "hami": "v2.10.0",
        "kai-scheduler": "v0.17.0",
        "koordinator": "v1.8.0",
    }
    for entry in Solution.objects.exclude(release_version="").select_related("release_source"):
        assert entry.release_date and entry.release_source.checked_on, entry.slug
        # the release is the version the entry's claims were read against: none is stale by it
        assert entry.release_version == entry.latest_version, entry.slug


def test_the_seed_records_volcanos_latest_release_with_its_source():
    entry = volcano()
    assert entry.release_version == "v1.15.1"
    assert entry.release_date == datetime.date(2026, 7, 30)
    assert entry.release_source.key == "VC-rel" and entry.release_source.checked_on
    assert entry.known_version() == "v1.15.1"


def test_a_claim_about_an_older_minor_release_is_stale_once_a_newer_release_is_recorded():
    assert claim_freshness(multi_tenancy(), on=DAY).staleness is None
    Solution.objects.filter(slug="volcano").update(
        release_version="v1.16.0", release_date=datetime.date(2026, 11, 20)
    )
    staleness = claim_freshness(multi_tenancy(), on=DAY).staleness
    assert staleness is not None and staleness.reason == "stale"
    assert staleness.behind == "v1.16.0"


def test_the_release_outlives_the_free_text_version_for_staleness():
    Solution.objects.filter(slug="volcano").update(latest_version="see the website")
    entry = volcano()
    assert entry.known_version() == "v1.15.1"
    entry.release_version = ""
    entry.release_date = None
    assert entry.known_version() == "see the website"


def test_a_release_needs_a_plain_version_and_its_day():
    entry = volcano()
    entry.release_version = "Volcano 1.16"
    with pytest.raises(ValidationError) as refused:
        entry.full_clean()
    assert "release_version" in refused.value.message_dict
    entry.release_version = "v1.16.0"
    entry.release_date = None
    with pytest.raises(ValidationError) as refused:
        entry.full_clean()
    assert "release_date" in refused.value.message_dict


def test_the_detail_page_shows_the_release_with_its_day_and_source(client, tech_lead):
    client.force_login(tech_lead)
    body = client.get(reverse("catalog:solution_detail", args=["volcano"])).content.decode()
    shown = body.split('data-testid="release"')[1].split("</dd>")[0]
    assert "v1.15.1" in shown and "2026-07-30" in shown
    assert "https://github.com/volcano-sh/volcano/releases" in shown
    other = client.get(reverse("catalog:solution_detail", args=["runai"])).content.decode()
    assert "not recorded" in other.split('data-testid="release"')[1].split("</dd>")[0]


def new_release(parsed) -> None:
    entry = next(s for s in parsed["solutions"] if s["slug"] == "volcano")
    entry["release"] = {"version": "v1.16.0", "date": "2026-11-20", "source": "VC-rel"}
    slurm = next(s for s in parsed["solutions"] if s["slug"] == "slurm")
    slurm["release"] = {"version": "26.05.3", "date": "2026-08-20", "source": "SL-repo"}


def test_the_bundle_carries_releases_so_a_closed_network_is_updated_by_importing_one(
    admin_user,
):
    exported = yaml.safe_load(bundle_read(bundle_export()).yaml_bytes)
    entry = next(s for s in exported["solutions"] if s["slug"] == "volcano")
    assert entry["release"] == {"version": "v1.15.1", "date": "2026-07-30", "source": "VC-rel"}

    data = edited(bundle_export(), new_release)
    changed = {r.key: r for r in bundle_diff(bundle_read(data)).rows["solutions"]}
    assert changed["volcano"].status == "changed" and changed["volcano"].change("release")
    bundle_apply(bundle_read(data), user=admin_user)
    entry = volcano()
    assert (entry.release_version, entry.release_date) == ("v1.16.0", datetime.date(2026, 11, 20))
    slurm = Solution.objects.get(slug="slurm")
    assert slurm.release_version == "26.05.3" and slurm.release_source.key == "SL-repo"
    # Imported, the release makes the v1.15.1 claim stale, as if typed in by hand.
    assert claim_freshness(multi_tenancy(), on=DAY).staleness.behind == "v1.16.0"
    # And exported again, the bundle holds what was imported: the round trip is stable.
    again = bundle_diff(bundle_read(bundle_export()))
    assert all(r.status in ("unchanged", "kept") for r in again.rows["solutions"])


@pytest.mark.parametrize(
    "release, where",
    [
        ({"version": "1.16 final", "date": "2026-11-20"}, "release.version"),
        ({"version": "v1.16.0"}, "release.date"),
        ({"version": "v1.16.0", "date": "2026-11-20", "source": "NOPE"}, "release.source"),
    ],
)
def test_a_bundle_with_a_release_written_wrong_is_refused_with_where(release, where):
    def change(parsed):
        entry = next(s for s in parsed["solutions"] if s["slug"] == "volcano")
        entry["release"] = release

    with pytest.raises(BundleRefused) as refused:
        bundle_diff(bundle_read(edited(bundle_export(), change)))
    assert where in " ".join(str(m) for m in refused.value.messages)


def test_entries_with_an_old_release_are_listed_for_review():
    assert not release_outdated(datetime.date(2026, 7, 30), on=DAY, months=6)
    assert release_outdated(datetime.date(2026, 5, 31), on=DAY, months=6)
    # Koordinator's v1.8.0 (tagged 2026-04-16) is over six months old on the suite's day.
    assert [s.slug for s in releases_to_review(DAY).outdated] == ["koordinator"]
    Solution.objects.filter(slug="volcano").update(release_date=datetime.date(2026, 3, 1))
    review = releases_to_review(DAY)
    assert [s.slug for s in review.outdated] == ["volcano", "koordinator"]  # oldest first
    assert "volcano" not in {s.slug for s in review.unrecorded}
    assert "runai" in {s.slug for s in review.unrecorded}
    assert releases_to_review(DAY, months=12).outdated == []
    Source.objects.filter(key="VC-rel").delete()  # the release stays, without its source
    assert volcano().release_source is None
