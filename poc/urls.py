from django.urls import path

from . import views
from .conflicts import views as conflicts
from .imports import views as imports
from .testbeds import views as testbeds
from .verification import review as verification_review

app_name = "poc"

urlpatterns = [
    path(
        "poc-verifications/",
        verification_review.VerificationReviewView.as_view(),
        name="verification_review",
    ),
    path("<int:pk>/poc/", views.ScorecardView.as_view(), name="scorecard"),
    path("<int:pk>/poc/plan/", views.PlanView.as_view(), name="plan"),
    path("<int:pk>/poc/verify/", views.PlanVerifyView.as_view(), name="verify_capability"),
    path("<int:pk>/poc/import/", imports.ImportView.as_view(), name="imports"),
    path(
        "<int:pk>/poc/conflicts/",
        conflicts.ConflictsView.as_view(),
        name="conflicts",
    ),
    path("<int:pk>/poc/testbeds/", testbeds.TestBedsView.as_view(), name="testbeds"),
    path(
        "<int:pk>/poc/testbeds/equivalences/",
        testbeds.BedEquivalenceDeclareView.as_view(),
        name="bed_equivalence_declare",
    ),
    path(
        "<int:pk>/poc/testbeds/equivalences/withdraw/",
        testbeds.BedEquivalenceWithdrawView.as_view(),
        name="bed_equivalence_withdraw",
    ),
    path("<int:pk>/poc/results/", views.ResultsView.as_view(), name="results"),
    path("<int:pk>/poc/scorecard.xlsx", views.ExportView.as_view(), name="export"),
    path("<int:pk>/poc/cells/<int:case_id>/<int:cid>/", views.CellView.as_view(), name="cell"),
    path(
        "<int:pk>/poc/cells/<int:case_id>/<int:cid>/evidence/",
        views.EvidenceView.as_view(),
        name="evidence_upload",
    ),
    path(
        "<int:pk>/poc/evidence/<int:evidence_id>/",
        views.EvidenceDownloadView.as_view(),
        name="evidence_download",
    ),
]
