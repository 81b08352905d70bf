"""The report-run tests' fixture: an evaluation with two answered candidates and probes in
its notes."""

import pytest

from tests.factories import add_candidates, answer_all
from tests.reports.runs.support import PROBES


@pytest.fixture
def filled(evaluation, owner):
    candidates = add_candidates(evaluation, owner, "slurm", "volcano")
    for c in candidates:
        answer_all(c, owner)
    evaluation.notes = "Notes with probes: " + " ".join(PROBES)
    evaluation.save()
    return evaluation
