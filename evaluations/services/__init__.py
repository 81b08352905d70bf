"""Writes to evaluations. Forms and the API call these; permission, sealing, validation and
concurrency rules live here once. Every function is atomic: it saves all or nothing.

One module per part of an evaluation: checks.py (what every write checks first), evaluation.py
(its fields and context answers), members.py, candidates.py (the shortlist and stacks),
answers.py (the five questions), decision.py (the decision record, the decided gate, constraint
waivers), acknowledgements.py (the owner's acknowledgements of open high reminders) and
status.py (the status workflow); seed.py loads the question libraries. Call them
from here: `from evaluations import services; services.candidate_add(...)`.
"""

from .acknowledgements import reminder_acknowledge, reminder_acknowledgement_withdraw
from .answers import answer_save
from .candidates import (
    STACK_MIN_LAYERS,
    candidate_add,
    candidate_compose_stack,
    candidate_eliminate,
    candidate_restore,
    candidates_accept_suggestions,
)
from .checks import clean_text, evaluation_require_editable, require_permission
from .decision import (
    GATE_GROUPS,
    GateItem,
    constraint_waive,
    constraint_waiver_withdraw,
    decided_gate_missing,
    decision_save,
)
from .evaluation import (
    EVALUATION_FIELDS,
    context_answer_save,
    evaluation_create,
    evaluation_type_decide,
    evaluation_update,
)
from .members import member_add, member_change_role, member_remove
from .status import GateRefused, decided_gate_preview, evaluation_transition

__all__ = [
    "EVALUATION_FIELDS",
    "GATE_GROUPS",
    "STACK_MIN_LAYERS",
    "GateItem",
    "GateRefused",
    "answer_save",
    "candidate_add",
    "candidate_compose_stack",
    "candidate_eliminate",
    "candidate_restore",
    "candidates_accept_suggestions",
    "clean_text",
    "constraint_waive",
    "constraint_waiver_withdraw",
    "context_answer_save",
    "decided_gate_missing",
    "decided_gate_preview",
    "decision_save",
    "evaluation_create",
    "evaluation_require_editable",
    "evaluation_transition",
    "evaluation_type_decide",
    "evaluation_update",
    "member_add",
    "member_change_role",
    "member_remove",
    "reminder_acknowledge",
    "reminder_acknowledgement_withdraw",
    "require_permission",
]
