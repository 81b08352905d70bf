"""Who may do what in a POC. Builds on the evaluation roles (evaluations/rules.py)."""

import rules

from common.roles import is_admin
from evaluations.models import MemberRole
from evaluations.rules import is_editor, is_member, is_open, is_owner, member_role


@rules.predicate
def can_score(user, evaluation) -> bool:
    """Reviewers score; so may editors and owners (SPEC: reviewers, or editors)."""
    return member_role(user, evaluation) in (
        MemberRole.OWNER,
        MemberRole.EDITOR,
        MemberRole.REVIEWER,
    )


@rules.predicate
def sees_all_scores(user, evaluation) -> bool:
    """The owner (who arbitrates) and viewers (who never score) see every submitted score at
    once; reviewers and editors see others' scores for a cell only after submitting their own."""
    return member_role(user, evaluation) in (MemberRole.OWNER, MemberRole.VIEWER)


rules.add_perm("poc.change_plan", is_editor & is_open)
rules.add_perm("poc.score", can_score & is_open)
rules.add_perm("poc.record_consensus", is_owner & is_open)
# Declared conflicts of interest (poc/conflicts/): whoever scores declares; the owner decides.
rules.add_perm("poc.declare_conflict", can_score & is_open)
rules.add_perm("poc.decide_conflict", is_owner & is_open)
# Test beds declared equivalent (poc/testbeds/comparable.py): the owner only, with a reason.
rules.add_perm("poc.declare_bed_equivalence", is_owner & is_open)
# Once the evaluation is sealed (decided or archived) nobody can score any more, so blindness
# has nothing left to protect: every member sees every score, and the final report opens to all.
rules.add_perm("poc.see_all_scores", sees_all_scores | (is_member & ~is_open))
rules.add_perm("poc.see_all_declarations", sees_all_scores | (is_member & ~is_open))

for model in ("testgroup", "testcase", "scenarioprofile", "profileweight"):
    rules.add_perm(f"poc.view_{model}", rules.is_authenticated)
    for action in ("add", "change", "delete"):
        rules.add_perm(f"poc.{action}_{model}", is_admin)
rules.add_perm("poc", rules.is_authenticated)
# The list of POC verifications and contradictions across evaluations, to review catalog claims.
rules.add_perm("poc.review_verifications", is_admin)
