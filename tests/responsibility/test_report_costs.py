"""The cost section of a report: a candidate without cost inputs is missing, never 0.00."""

import pytest

from reports.render import report_html
from reports.snapshot import build_snapshot, snapshot_sha256
from responsibility import services
from tests.factories import add_candidates

pytestmark = pytest.mark.django_db

GENERATED = "2027-03-01T09:00:00+08:00"


def costs_section(snapshot, language):
    html = report_html(snapshot, snapshot_sha256(snapshot), language, for_pdf=False)
    return html.split('<section id="costs"', 1)[1].split("</section>", 1)[0]


@pytest.mark.parametrize(
    "language,note",
    [
        ("en", "Not in the chart, because their cost inputs are missing: Volcano."),
        ("zh-hans", "以下候选方案尚未填写成本数据，因此未画入图表：Volcano。"),
    ],
)
def test_report_leaves_a_candidate_without_inputs_out_and_says_so(
    evaluation, owner, language, note
):
    slurm, _volcano = add_candidates(evaluation, owner, "slurm", "volcano")
    services.cost_input_save(user=owner, candidate=slurm, expected_version=0, one_off=1000)
    snap = build_snapshot(evaluation, language=language, generated_at=GENERATED)
    costs = snap["costs"]
    assert costs["entered"] is True
    assert [c["slug"] for c in costs["candidates"]] == ["slurm"]  # no 0.00 row for Volcano
    assert costs["missing"] == ["Volcano"]
    svg = costs["chart_svg"]
    assert svg.count("<polyline") == 1 and f">{note}</text>" in svg
    section = costs_section(snap, language)
    assert note in section
    # Volcano's only row in the totals says its inputs are missing; no figures anywhere
    volcano_rows = [r for r in section.split("<tr>") if "Volcano" in r.replace(note, "")]
    assert len(volcano_rows) == 1 and "0.00" not in volcano_rows[0]
    assert ("missing cost inputs" if language == "en" else "尚未填写成本数据") in volcano_rows[0]


def test_report_without_any_cost_inputs_says_none_were_entered(evaluation, owner):
    add_candidates(evaluation, owner, "slurm")
    # Settings alone are not costs: the candidate would otherwise print as 0.00.
    services.cost_settings_save(user=owner, evaluation=evaluation, expected_version=0, years=4)
    snap = build_snapshot(evaluation, language="en", generated_at=GENERATED)
    assert snap["costs"]["entered"] is False and snap["costs"]["missing"] == ["Slurm"]
    section = costs_section(snap, "en")
    assert "No costs entered yet." in section and "0.00" not in section


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_money_is_grouped_by_thousands_in_both_languages(evaluation, owner, language):
    (slurm,) = add_candidates(evaluation, owner, "slurm")
    services.cost_input_save(user=owner, candidate=slurm, expected_version=0, one_off=15447500)
    section = costs_section(
        build_snapshot(evaluation, language=language, generated_at=GENERATED), language
    )
    assert "15,447,500.00" in section and "15447500.00" not in section
