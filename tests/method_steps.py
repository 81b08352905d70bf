"""The steps of the method the decided gate asks for besides answers and a decision record, for
tests that need a decided evaluation (tests/factories.py's `decide` takes them)."""

from evaluations import services as ev
from evaluations.acknowledgements import gate_reminders
from evaluations.models import CandidateStatus
from evaluations.selectors import evaluation_data


def follow_method(evaluation, owner, *, chosen=()):
    """What the decided gate asks of the method besides answers and a decision record: the type
    carrying the main responsibility (the first chosen candidate's, else the first shortlisted
    one's), with its reason, and the owner's acknowledgement, with a reason, of every open high
    reminder."""
    evaluation.refresh_from_db()
    if evaluation.main_type_id is None or not evaluation.main_type_reason:
        candidates = list(chosen) or list(
            evaluation.candidates.filter(status=CandidateStatus.SHORTLISTED).order_by("pk")
        )
        if candidates:
            ev.evaluation_type_decide(
                user=owner,
                evaluation=evaluation,
                solution_type=candidates[0].solution.solution_type,
                reason="The HPC team carries the platform.",
                expected_version=None,
            )
    for reminder in gate_reminders(evaluation_data(evaluation)).unacknowledged:
        ev.reminder_acknowledge(
            user=owner,
            evaluation=evaluation,
            key=reminder.key,
            reason="Accepted by the architecture board.",
            expected_version=0,
        )
    evaluation.refresh_from_db()
