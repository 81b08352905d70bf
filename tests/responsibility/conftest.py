"""Fixtures the responsibility tests share."""

import pytest

from tests.factories import add_candidates


@pytest.fixture
def slurm(evaluation, owner):
    (candidate,) = add_candidates(evaluation, owner, "slurm")
    return candidate


@pytest.fixture
def runai(evaluation, owner):
    (candidate,) = add_candidates(evaluation, owner, "runai")
    return candidate
