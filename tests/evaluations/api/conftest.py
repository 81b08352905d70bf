"""The evaluations API tests' fixtures: an anonymous client and a shortlisted Slurm."""

import pytest

from tests.evaluations.api.support import client_for
from tests.factories import add_candidates


@pytest.fixture
def api():
    return client_for()


@pytest.fixture
def slurm(evaluation, owner):
    (candidate,) = add_candidates(evaluation, owner, "slurm")
    return candidate
