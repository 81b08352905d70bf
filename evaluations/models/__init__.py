"""Evaluation projects: context, candidates, the five questions, decision, members, history.

The models live in the modules of this package, one part of an evaluation each: library.py (the
seeded question libraries), evaluation.py (the evaluation, its status and status moves),
members.py, context.py (context answers, hard constraints), candidates.py (the shortlist, stacks),
answers.py (the five questions' answers), decision.py (the decision record, constraint waivers,
reminder acknowledgements) and digests.py (stored row status). Import them from here:
`from evaluations.models import X`.
"""

from .answers import Assessment, BudgetFocus, QuestionAnswer
from .candidates import Candidate, CandidateLayer, CandidateOrigin, CandidateStatus, LayerRole
from .context import Constraint, ConstraintFlag, ContextAnswer
from .decision import ConstraintWaiver, Decision, ReminderAcknowledgement
from .digests import StatusDigest, StatusStamp
from .evaluation import (
    FACT_FLAGS,
    SEALED,
    TRANSITIONS,
    ContextFact,
    Evaluation,
    Status,
    StatusChange,
)
from .library import AnswerScale, AnswerValue, ContextQuestion, FiveQuestion, LibraryQuestion
from .members import MemberRole, Membership

__all__ = [
    "FACT_FLAGS",
    "SEALED",
    "TRANSITIONS",
    "AnswerScale",
    "AnswerValue",
    "Assessment",
    "BudgetFocus",
    "Candidate",
    "CandidateLayer",
    "CandidateOrigin",
    "CandidateStatus",
    "Constraint",
    "ConstraintFlag",
    "ConstraintWaiver",
    "ContextAnswer",
    "ContextFact",
    "ContextQuestion",
    "Decision",
    "Evaluation",
    "FiveQuestion",
    "LayerRole",
    "LibraryQuestion",
    "MemberRole",
    "Membership",
    "QuestionAnswer",
    "ReminderAcknowledgement",
    "Status",
    "StatusChange",
    "StatusDigest",
    "StatusStamp",
]
