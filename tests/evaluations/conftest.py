import pytest

from common import roles
from evaluations.models import MemberRole
from tests.conftest import make_user
from tests.factories import add_member, make_evaluation

MEMBER_ROLES = [MemberRole.OWNER, MemberRole.EDITOR, MemberRole.REVIEWER, MemberRole.VIEWER]


@pytest.fixture
def owner(db):
    return make_user(roles.TECH_LEAD, username="owner")


@pytest.fixture
def evaluation(owner):
    return make_evaluation(owner)


@pytest.fixture
def people(evaluation, owner):
    """One user per evaluation role, plus a signed-in outsider (a tech lead, not a member)."""
    users = {MemberRole.OWNER: owner}
    for role, global_role in [
        (MemberRole.EDITOR, roles.TECH_LEAD),
        (MemberRole.REVIEWER, roles.REVIEWER),
        (MemberRole.VIEWER, roles.PROCUREMENT),
    ]:
        user = make_user(global_role, username=f"{role}-user")
        add_member(evaluation, user, role)
        users[role] = user
    users["outsider"] = make_user(roles.TECH_LEAD, username="outsider")
    return users
