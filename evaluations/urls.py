from django.urls import path

from . import catalog_review, members, shortlist, views

app_name = "evaluations"

urlpatterns = [
    path("", views.EvaluationListView.as_view(), name="evaluation_list"),
    path("new/", views.EvaluationCreateView.as_view(), name="evaluation_create"),
    path("catalog-review/", catalog_review.CatalogReviewView.as_view(), name="catalog_review"),
    path("<int:pk>/", views.EvaluationDetailView.as_view(), name="evaluation_detail"),
    path("<int:pk>/edit/", views.EvaluationEditView.as_view(), name="evaluation_edit"),
    path("<int:pk>/context/", views.ContextView.as_view(), name="evaluation_context"),
    path(
        "<int:pk>/context/<slug:key>/",
        views.ContextAnswerView.as_view(),
        name="context_answer_save",
    ),
    path("<int:pk>/shortlist/", shortlist.ShortlistView.as_view(), name="evaluation_shortlist"),
    path("<int:pk>/questions/", views.QuestionsView.as_view(), name="evaluation_questions"),
    path(
        "<int:pk>/candidates/<int:cid>/answers/<slug:key>/",
        views.AnswerView.as_view(),
        name="answer_save",
    ),
    path("<int:pk>/decision/", views.DecisionView.as_view(), name="evaluation_decision"),
    path(
        "<int:pk>/acknowledgements/",
        views.ReminderAcknowledgeView.as_view(),
        name="reminder_acknowledge",
    ),
    path(
        "<int:pk>/acknowledgements/withdraw/",
        views.ReminderWithdrawView.as_view(),
        name="reminder_withdraw",
    ),
    path("<int:pk>/members/", members.MembersView.as_view(), name="evaluation_members"),
    path("<int:pk>/members/people/", members.MemberSearchView.as_view(), name="member_search"),
    path("<int:pk>/history/", views.HistoryView.as_view(), name="evaluation_history"),
]
