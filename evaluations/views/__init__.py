"""Evaluation pages. Views parse input and call services; every page is members-only (404).
Every write goes through common.views.PageAction, which maps the services' errors and answers
htmx the same way on every page.

home.py holds the start page and the evaluation list, evaluation.py an evaluation's own pages
(create, overview, edit, decision, history), gate.py the owner's acknowledgements of
open high reminders from the decided gate's list, answers.py the context and five-questions pages.
"""

from .answers import (
    AnswerView,
    ContextAnswerView,
    ContextView,
    InlineRowAction,
    QuestionsView,
    answer_row,
    answered_count,
    context_row,
)
from .evaluation import (
    DecisionView,
    EvaluationCreateView,
    EvaluationDetailView,
    EvaluationEditView,
    HistoryView,
    gate_groups,
)
from .gate import ReminderAcknowledgeView, ReminderWithdrawView
from .home import HOME_EVALUATIONS, LIST_PAGE_SIZE, EvaluationListView, HomeView

__all__ = [
    "HOME_EVALUATIONS",
    "LIST_PAGE_SIZE",
    "AnswerView",
    "ContextAnswerView",
    "ContextView",
    "DecisionView",
    "EvaluationCreateView",
    "EvaluationDetailView",
    "EvaluationEditView",
    "EvaluationListView",
    "HistoryView",
    "HomeView",
    "InlineRowAction",
    "QuestionsView",
    "ReminderAcknowledgeView",
    "ReminderWithdrawView",
    "answer_row",
    "answered_count",
    "context_row",
    "gate_groups",
]
