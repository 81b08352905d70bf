"""Evaluation API serializers.

Input serializers only parse types and look up referenced rows; every rule (permissions, sealing,
required reasons, duplicates, versions) is enforced by `evaluations.services`. Output serializers
read the rows the selectors loaded.

By part of an evaluation: evaluation.py (the evaluation, its members and context answers),
candidates.py (suggestions, candidates, stacks), answers.py (the five questions), decision.py,
history.py (reminders and the change history); fields.py holds the fields they share.
"""

from .answers import (
    AnswerItemSerializer,
    AnswerWriteSerializer,
    CandidateAnswersSerializer,
    QuestionAnswerSerializer,
)
from .candidates import (
    CANDIDATE_STATUS_HELP,
    AcceptSuggestionsSerializer,
    CandidateAddSerializer,
    CandidateSerializer,
    EliminateSerializer,
    LayerSerializer,
    RestoreSerializer,
    RuleBriefSerializer,
    ScenarioFitSerializer,
    SlugsField,
    SolutionBriefSerializer,
    SolutionTypeBriefSerializer,
    SuggestionSerializer,
)
from .decision import DecisionSerializer, DecisionWriteSerializer
from .evaluation import (
    MY_ROLE_HELP,
    ContextAnswerSerializer,
    ContextAnswerWriteSerializer,
    ContextItemSerializer,
    EvaluationListSerializer,
    EvaluationSerializer,
    EvaluationWriteSerializer,
    MemberAddSerializer,
    MemberRoleSerializer,
    MembershipSerializer,
    TransitionSerializer,
)
from .fields import UsernameField, username
from .history import (
    FieldChangeSerializer,
    HistoryEntrySerializer,
    LinkSerializer,
    ReminderSerializer,
)

__all__ = [
    "CANDIDATE_STATUS_HELP",
    "MY_ROLE_HELP",
    "AcceptSuggestionsSerializer",
    "AnswerItemSerializer",
    "AnswerWriteSerializer",
    "CandidateAddSerializer",
    "CandidateAnswersSerializer",
    "CandidateSerializer",
    "ContextAnswerSerializer",
    "ContextAnswerWriteSerializer",
    "ContextItemSerializer",
    "DecisionSerializer",
    "DecisionWriteSerializer",
    "EliminateSerializer",
    "EvaluationListSerializer",
    "EvaluationSerializer",
    "EvaluationWriteSerializer",
    "FieldChangeSerializer",
    "HistoryEntrySerializer",
    "LayerSerializer",
    "LinkSerializer",
    "MemberAddSerializer",
    "MemberRoleSerializer",
    "MembershipSerializer",
    "QuestionAnswerSerializer",
    "ReminderSerializer",
    "RestoreSerializer",
    "RuleBriefSerializer",
    "ScenarioFitSerializer",
    "SlugsField",
    "SolutionBriefSerializer",
    "SolutionTypeBriefSerializer",
    "SuggestionSerializer",
    "TransitionSerializer",
    "UsernameField",
    "username",
]
