"""Each part of a report's snapshot is contributed by the app owning its data
(evaluations.extensions.ReportPart); reports.snapshot puts them together and seals them."""

from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured

from evaluations import extensions
from evaluations.extensions import Contribution, ReportPart
from reports.snapshot import place, snapshot_sha256


def test_each_app_contributes_the_parts_of_its_data():
    owners = {
        part.key: app
        for app, contribution in extensions.CONTRIBUTIONS.items()
        for part in contribution.report_parts
    }
    # The sign-off is the approvals' (wherever they live); every other part is its data's app's.
    assert owners.pop("signoff")
    assert owners == {
        "meta": "evaluations",
        "types": "evaluations",
        "candidates": "evaluations",
        "capabilities": "evaluations",
        "questions": "evaluations",
        "reminders": "evaluations",
        "acknowledged": "evaluations",
        "appendix.sources": "evaluations",
        "appendix.history": "evaluations",
        "matrices": "responsibility",
        "costs": "responsibility",
        "poc": "poc",
        "appendix.test_cases": "poc",
        "appendix.evidence": "poc",
        "appendix.conflicts": "poc",
    }
    keys = [part.key for part in extensions.report_parts()]
    assert len(keys) == len(set(keys))
    # The sign-off follows the seal, and so do the approvals' history records.
    assert extensions.unsealed_report_keys() == ("signoff",)
    assert extensions.unsealed_history() == ("approval",)


def test_a_dotted_key_goes_inside_its_outer_part_and_no_key_is_filled_twice():
    snapshot = {"summary": {}}
    place(snapshot, "appendix.sources", [1])
    place(snapshot, "appendix.history", {"total": 0})
    place(snapshot, "costs", {})
    assert snapshot == {
        "summary": {},
        "appendix": {"sources": [1], "history": {"total": 0}},
        "costs": {},
    }
    with pytest.raises(ImproperlyConfigured, match="appendix.sources"):
        place(snapshot, "appendix.sources", [])


def test_a_part_contributed_unsealed_is_printed_but_not_sealed(monkeypatch):
    snapshot = {"meta": {"title": "T", "generated_at": "then"}, "appendix": {"notes": ["a"]}}
    before = snapshot_sha256(snapshot)
    changed = {**snapshot, "appendix": {"notes": ["b"]}}
    assert snapshot_sha256(changed) != before
    probe = ReportPart("appendix.notes", lambda context: [], sealed=False)
    monkeypatch.setitem(
        extensions.CONTRIBUTIONS, "probe", Contribution("probe", report_parts=(probe,))
    )
    assert snapshot_sha256(changed) == snapshot_sha256(snapshot)
    assert changed["appendix"] == {"notes": ["b"]}  # the snapshot itself is left whole
    later = {**snapshot, "meta": {"title": "T", "generated_at": "now"}}
    assert snapshot_sha256(later) == snapshot_sha256(snapshot)
