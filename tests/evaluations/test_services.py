"""Evaluation rules: shortlist suggestions, the decided gate, sealing, members, concurrency."""

import datetime

import pytest
from django.core.exceptions import ValidationError

from catalog.models import ShortlistRule, Solution
from common.exceptions import Conflict, Forbidden, StaleEdit
from evaluations import services
from evaluations.models import (
    CandidateStatus,
    ContextQuestion,
    FiveQuestion,
    MemberRole,
    Status,
    StatusChange,
)
from evaluations.selectors import shortlist_suggest
from tests.factories import add_candidates, answer_all, follow_method, make_evaluation

pytestmark = pytest.mark.django_db


def answer_context(evaluation, user, **answers):
    for key, value in answers.items():
        services.context_answer_save(
            user=user,
            evaluation=evaluation,
            question=ContextQuestion.objects.get(key=key),
            value=value,
            expected_version=None,
        )


def test_each_seeded_rule_fires_for_its_answers_and_not_otherwise(evaluation, owner):
    rules = list(ShortlistRule.objects.prefetch_related("solutions"))
    assert len(rules) >= 7
    keys = list(ContextQuestion.objects.values_list("key", flat=True))
    for rule in rules:
        # All its facts yes, everything else no: its solutions are suggested with this rule.
        answer_context(evaluation, owner, **{k: ("yes" if k in rule.facts else "no") for k in keys})
        suggestions = {s.solution.slug: s for s in shortlist_suggest(evaluation)}
        # A rule that picks by detail suggests, without a detail, its entries without aliases.
        expected = [s for s in rule.solutions.all() if not (rule.by_detail and s.aliases)]
        assert expected, rule.key
        for solution in expected:
            assert rule in suggestions[solution.slug].rules, (rule.key, solution.slug)
        # One fact missing: this rule does not fire.
        answer_context(evaluation, owner, **{rule.facts[0]: "unknown"})
        fired = {r.key for s in shortlist_suggest(evaluation) for r in s.rules}
        assert rule.key not in fired


def test_accepting_suggestions_records_the_rules(evaluation, owner):
    answer_context(evaluation, owner, hpc_batch_queues="yes", ray_workloads="yes")
    added = services.candidates_accept_suggestions(user=owner, evaluation=evaluation)
    assert {c.solution.slug for c in added} == {"slurm", "kuberay"}
    slurm = next(c for c in added if c.solution.slug == "slurm")
    assert [r.key for r in slurm.rules.all()] == ["hpc-team-batch-queues"]
    # Accepting again adds nothing twice.
    assert services.candidates_accept_suggestions(user=owner, evaluation=evaluation) == []
    with pytest.raises(ValidationError):
        services.candidates_accept_suggestions(
            user=owner, evaluation=evaluation, solution_ids=[Solution.objects.get(slug="runai").pk]
        )


def test_manual_add_needs_a_reason_and_no_duplicates(evaluation, owner):
    volcano = Solution.objects.get(slug="volcano")
    with pytest.raises(ValidationError, match="Say why"):
        services.candidate_add(user=owner, evaluation=evaluation, solution=volcano, reason=" ")
    services.candidate_add(user=owner, evaluation=evaluation, solution=volcano, reason="Batch")
    with pytest.raises(ValidationError, match="already a candidate"):
        services.candidate_add(user=owner, evaluation=evaluation, solution=volcano, reason="Again")
    assert evaluation.candidates.count() == 1


def test_elimination_needs_a_reason_and_keeps_the_candidate(evaluation, owner):
    (slurm,) = add_candidates(evaluation, owner, "slurm")
    with pytest.raises(ValidationError):
        services.candidate_eliminate(user=owner, candidate=slurm, reason="", expected_version=1)
    slurm = services.candidate_eliminate(
        user=owner, candidate=slurm, reason="No HPC team", expected_version=1
    )
    assert slurm.status == CandidateStatus.ELIMINATED and slurm.elimination_reason == "No HPC team"
    assert evaluation.candidates.count() == 1
    restored = services.candidate_restore(user=owner, candidate=slurm, expected_version=2)
    assert restored.status == CandidateStatus.SHORTLISTED


def to_poc(evaluation, owner):
    return services.evaluation_transition(user=owner, evaluation=evaluation, to_status="poc")


def complete_decision(evaluation, owner, candidates):
    return services.decision_save(
        user=owner,
        evaluation=evaluation,
        chosen=candidates[:1],
        rationale="Fits the training scenario with the team we have.",
        decided_on=datetime.date(2026, 11, 30),
        decided_by="Architecture board",
        expected_version=None,
    )


def test_decided_gate_lists_exactly_what_is_missing(evaluation, owner):
    slurm, volcano = add_candidates(evaluation, owner, "slurm", "volcano")
    answer_all(slurm, owner)
    to_poc(evaluation, owner)
    with pytest.raises(services.GateRefused) as refused:
        services.evaluation_transition(user=owner, evaluation=evaluation, to_status="decided")
    missing = refused.value.missing
    assert len([m for m in missing if m.startswith("Volcano")]) == FiveQuestion.objects.count()
    assert not [m for m in missing if m.startswith("Slurm")]
    assert "There is no decision record." in missing
    assert any(m.startswith("No type has been decided") for m in missing)
    answer_all(volcano, owner)
    complete_decision(evaluation, owner, [slurm])
    follow_method(evaluation, owner, chosen=[slurm])
    evaluation = services.evaluation_transition(
        user=owner, evaluation=evaluation, to_status="decided"
    )
    assert evaluation.status == Status.DECIDED


def test_eliminated_candidates_need_no_answers(evaluation, owner):
    slurm, volcano = add_candidates(evaluation, owner, "slurm", "volcano")
    answer_all(slurm, owner)
    services.candidate_eliminate(
        user=owner, candidate=volcano, reason="Too new", expected_version=1
    )
    complete_decision(evaluation, owner, [slurm])
    follow_method(evaluation, owner, chosen=[slurm])
    assert services.decided_gate_missing(evaluation) == []


def test_unknown_assessment_does_not_count_as_answered(evaluation, owner):
    (slurm,) = add_candidates(evaluation, owner, "slurm")
    answer_all(slurm, owner, assessment="unknown")
    missing = services.decided_gate_missing(evaluation)
    assert any("missing assessment" in m for m in missing)


def test_decided_is_sealed_until_the_owner_reopens_with_a_reason(evaluation, owner, people):
    (slurm,) = add_candidates(evaluation, owner, "slurm")
    answer_all(slurm, owner)
    complete_decision(evaluation, owner, [slurm])
    to_poc(evaluation, owner)
    follow_method(evaluation, owner, chosen=[slurm])
    evaluation = services.evaluation_transition(
        user=owner, evaluation=evaluation, to_status="decided"
    )
    with pytest.raises(Conflict, match="sealed"):
        services.evaluation_update(
            user=owner, evaluation=evaluation, expected_version=evaluation.version, title="x"
        )
    with pytest.raises(Conflict, match="sealed"):
        answer_all(slurm, owner, assessment="no")
    editor = people[MemberRole.EDITOR]
    with pytest.raises(Forbidden):
        services.evaluation_transition(
            user=editor, evaluation=evaluation, to_status="poc", reason="Editor wants to"
        )
    with pytest.raises(ValidationError, match="reason"):
        services.evaluation_transition(user=owner, evaluation=evaluation, to_status="poc")
    evaluation = services.evaluation_transition(
        user=owner, evaluation=evaluation, to_status="poc", reason="Vendor changed its price"
    )
    assert evaluation.status == Status.POC
    change = StatusChange.objects.filter(evaluation=evaluation).first()
    assert change.reason == "Vendor changed its price" and change.changed_by == owner


def test_invalid_transition_names_the_allowed_ones(evaluation, owner):
    with pytest.raises(Conflict, match="Allowed next"):
        services.evaluation_transition(user=owner, evaluation=evaluation, to_status="archived")
    with pytest.raises(ValidationError):
        services.evaluation_transition(user=owner, evaluation=evaluation, to_status="done")


def test_members_only_owner_manages_and_one_owner_remains(evaluation, owner, people):
    editor = people[MemberRole.EDITOR]
    with pytest.raises(Forbidden):
        services.member_add(
            user=editor, evaluation=evaluation, member=people["outsider"], role="viewer"
        )
    services.member_add(user=owner, evaluation=evaluation, member=people["outsider"], role="viewer")
    with pytest.raises(ValidationError, match="already a member"):
        services.member_add(
            user=owner, evaluation=evaluation, member=people["outsider"], role="viewer"
        )
    own = evaluation.memberships.get(user=owner)
    with pytest.raises(Conflict, match="at least one owner"):
        services.member_remove(user=owner, membership=own)
    with pytest.raises(Conflict, match="at least one owner"):
        services.member_change_role(user=owner, membership=own, role="editor")


def test_a_stale_answer_save_is_refused_and_nothing_is_overwritten(evaluation, owner, people):
    (slurm,) = add_candidates(evaluation, owner, "slurm")
    question = FiveQuestion.objects.get(key="long_term_team")
    first = services.answer_save(
        user=owner,
        candidate=slurm,
        question=question,
        parties=["internal"],
        explanation="Platform team of four",
        expected_version=0,
    )
    editor = people[MemberRole.EDITOR]
    # Both loaded version 1; the editor saves first.
    services.answer_save(
        user=editor,
        candidate=slurm,
        question=question,
        parties=["vendor"],
        explanation="Vendor helps",
        expected_version=first.version,
    )
    with pytest.raises(StaleEdit) as stale:
        services.answer_save(
            user=owner,
            candidate=slurm,
            question=question,
            parties=["internal"],
            explanation="Owner's late edit",
            expected_version=first.version,
        )
    assert stale.value.current.explanation == "Vendor helps"
    # Two people creating the first answer at once: the second is refused as well.
    other = FiveQuestion.objects.get(key="incident_triage")
    services.answer_save(
        user=owner,
        candidate=slurm,
        question=other,
        parties=["internal"],
        explanation="On-call",
        expected_version=0,
    )
    with pytest.raises(StaleEdit):
        services.answer_save(
            user=editor,
            candidate=slurm,
            question=other,
            parties=["vendor"],
            explanation="Vendor",
            expected_version=0,
        )


def test_history_records_who_and_what(evaluation, owner):
    services.evaluation_update(
        user=owner, evaluation=evaluation, expected_version=evaluation.version, title="Renamed"
    )
    newest, older = list(evaluation.history.all())[:2]
    assert newest.history_user == owner
    delta = newest.diff_against(older)
    assert [(c.field, c.old, c.new) for c in delta.changes] == [
        ("title", "GPU platform 2027", "Renamed")
    ]


def _answer(evaluation, key):
    from evaluations.models import ContextAnswer

    return ContextAnswer.objects.filter(evaluation=evaluation, question__key=key).first()


def _question(key):
    from evaluations.models import ContextQuestion

    return ContextQuestion.objects.get(key=key)


def _fresh(evaluation):
    return type(evaluation).objects.get(pk=evaluation.pk)


@pytest.mark.parametrize(
    ("flag", "key"),
    [
        ("private_deployment_required", "private_deployment"),
        ("compliance_required", "compliance_regime"),
    ],
)
def test_a_requirement_box_and_its_context_question_are_one_fact(owner, flag, key):
    plain = make_evaluation(owner, title="No constraints")
    assert _answer(plain, key) is None and getattr(_fresh(plain), flag) is False
    # Ticked on the create form: the question is answered yes, and the flag reads it.
    ticked = make_evaluation(owner, title="Ticked", **{flag: True})
    assert _answer(ticked, key).value == "yes" and getattr(_fresh(ticked), flag) is True
    # Answered no on the context page: the box is cleared, with nothing else to save.
    services.context_answer_save(
        user=owner,
        evaluation=ticked,
        question=_question(key),
        value="no",
        expected_version=_answer(ticked, key).version,
    )
    assert getattr(_fresh(ticked), flag) is False
    # Answered yes on the context page: the box is ticked.
    services.context_answer_save(
        user=owner, evaluation=plain, question=_question(key), value="yes", expected_version=0
    )
    plain = _fresh(plain)
    assert getattr(plain, flag) is True
    # Cleared on the edit form: the yes becomes no, in the answer's history too.
    services.evaluation_update(
        user=owner, evaluation=plain, expected_version=plain.version, **{flag: False}
    )
    answer = _answer(plain, key)
    assert answer.value == "no" and answer.version == 2 and answer.updated_by == owner
    assert getattr(_fresh(plain), flag) is False
    assert [h.value for h in answer.history.all()] == ["no", "yes"]


def test_clearing_a_box_leaves_an_open_question_open(owner):
    evaluation = make_evaluation(owner)
    services.context_answer_save(
        user=owner,
        evaluation=evaluation,
        question=_question("compliance_regime"),
        value="unknown",
        expected_version=0,
    )
    services.evaluation_update(
        user=owner,
        evaluation=evaluation,
        expected_version=evaluation.version,
        compliance_required=False,
        private_deployment_required=False,
    )
    assert _answer(evaluation, "compliance_regime").value == "unknown"
    assert _answer(evaluation, "private_deployment") is None


def test_a_requirement_cannot_be_set_beside_its_answer(owner):
    evaluation = make_evaluation(owner)
    with pytest.raises(AttributeError, match="private_deployment"):
        evaluation.private_deployment_required = True
    with pytest.raises(ValidationError) as error:
        services.evaluation_update(
            user=owner,
            evaluation=evaluation,
            expected_version=evaluation.version,
            compliance_required="yes",
        )
    assert "compliance_required" in error.value.message_dict


def test_a_sealed_evaluation_keeps_its_members(owner, people):
    from tests.factories import make_everything

    sealed = make_everything(owner, people, sealed=True)
    outsider = people["outsider"]
    membership = sealed.memberships.get(user=people[MemberRole.VIEWER])
    with pytest.raises(Conflict, match="members cannot change"):
        services.member_add(user=owner, evaluation=sealed, member=outsider, role="viewer")
    with pytest.raises(Conflict):
        services.member_change_role(user=owner, membership=membership, role="editor")
    with pytest.raises(Conflict):
        services.member_remove(user=owner, membership=membership)
    assert sealed.memberships.count() == 4
