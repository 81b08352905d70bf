from django.urls import path

from . import acknowledgements, candidates, constraints, stacks, types, views

app_name = "evaluations-api"

EVALUATION = "evaluations/<int:evaluation_pk>/"
CANDIDATE = EVALUATION + "candidates/<int:candidate_pk>/"

urlpatterns = [
    path("evaluations/", views.EvaluationListView.as_view(), name="evaluation_list"),
    path("evaluations/<int:pk>/", views.EvaluationDetailView.as_view(), name="evaluation_detail"),
    path(
        "evaluations/<int:pk>/transition/",
        views.EvaluationTransitionView.as_view(),
        name="evaluation_transition",
    ),
    path(EVALUATION + "members/", views.MemberListView.as_view(), name="member_list"),
    path(EVALUATION + "members/<int:pk>/", views.MemberDetailView.as_view(), name="member_detail"),
    path(EVALUATION + "context/", views.ContextListView.as_view(), name="context_list"),
    path(
        EVALUATION + "context/<str:question_key>/",
        views.ContextAnswerView.as_view(),
        name="context_answer",
    ),
    path(
        EVALUATION + "suggestions/", candidates.SuggestionListView.as_view(), name="suggestion_list"
    ),
    path(
        EVALUATION + "suggestions/accept/",
        candidates.SuggestionAcceptView.as_view(),
        name="suggestion_accept",
    ),
    path(EVALUATION + "candidates/", candidates.CandidateListView.as_view(), name="candidate_list"),
    path(
        EVALUATION + "candidates/<int:pk>/",
        candidates.CandidateDetailView.as_view(),
        name="candidate_detail",
    ),
    path(
        EVALUATION + "candidates/<int:pk>/eliminate/",
        candidates.CandidateEliminateView.as_view(),
        name="candidate_eliminate",
    ),
    path(
        EVALUATION + "candidates/<int:pk>/restore/",
        candidates.CandidateRestoreView.as_view(),
        name="candidate_restore",
    ),
    path(CANDIDATE + "answers/", candidates.AnswerListView.as_view(), name="answer_list"),
    path(
        CANDIDATE + "answers/<str:question_key>/",
        candidates.AnswerView.as_view(),
        name="answer_detail",
    ),
    path(EVALUATION + "type/", types.TypeStepView.as_view(), name="type_step"),
    path(EVALUATION + "candidates/stacks/", stacks.StackCreateView.as_view(), name="stack_create"),
    path(CANDIDATE + "profile/", stacks.CandidateProfileView.as_view(), name="candidate_profile"),
    path(
        EVALUATION + "constraints/",
        constraints.ConstraintCheckListView.as_view(),
        name="constraint_checks",
    ),
    path(CANDIDATE + "waivers/", constraints.WaiverListView.as_view(), name="waiver_list"),
    path(
        CANDIDATE + "waivers/<str:constraint_key>/",
        constraints.WaiverDetailView.as_view(),
        name="waiver_detail",
    ),
    path(EVALUATION + "decision/", views.DecisionView.as_view(), name="decision"),
    path(
        EVALUATION + "acknowledgements/",
        acknowledgements.AcknowledgementListView.as_view(),
        name="acknowledgement_list",
    ),
    path(
        EVALUATION + "acknowledgements/<str:key>/",
        acknowledgements.AcknowledgementDetailView.as_view(),
        name="acknowledgement_detail",
    ),
    path(EVALUATION + "reminders/", views.ReminderListView.as_view(), name="reminder_list"),
    path(EVALUATION + "history/", views.HistoryListView.as_view(), name="history_list"),
]
