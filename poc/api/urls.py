from django.urls import path

from ..conflicts import api as conflicts
from ..imports import api as imports
from ..testbeds import api as testbeds
from ..verification import api as verification
from . import cells, library, plan, results

app_name = "poc-api"

POC = "evaluations/<int:evaluation_pk>/poc/"
PLAN = POC + "plan/"
CELL = POC + "cells/<int:case_pk>/<int:candidate_pk>/"
COI = POC + "conflicts/"

urlpatterns = [
    path("poc/groups/", library.GroupLibraryView.as_view(), name="group_library"),
    path("poc/cases/", library.CaseLibraryView.as_view(), name="case_library"),
    path("poc/profiles/", library.ProfileLibraryView.as_view(), name="profile_library"),
    path(PLAN, plan.PlanView.as_view(), name="plan"),
    path(PLAN + "init/", plan.PlanInitView.as_view(), name="plan_init"),
    path(PLAN + "profile/", plan.PlanProfileView.as_view(), name="plan_profile"),
    path(PLAN + "cases/", plan.PlanCaseListView.as_view(), name="plan_case_list"),
    path(PLAN + "verify/", plan.PlanVerifyView.as_view(), name="plan_verify"),
    path(PLAN + "cases/<int:case_pk>/", plan.PlanCaseDetailView.as_view(), name="plan_case"),
    path(PLAN + "groups/<str:group_key>/", plan.PlanGroupDetailView.as_view(), name="plan_group"),
    path(POC + "scorecard/", cells.ScorecardView.as_view(), name="scorecard"),
    path(POC + "scorecard.xlsx", results.ScorecardExportView.as_view(), name="scorecard_export"),
    path(POC + "submit/", cells.ScoresSubmitView.as_view(), name="scores_submit"),
    path(CELL + "score/", cells.ScoreView.as_view(), name="score"),
    path(CELL + "consensus/", cells.ConsensusView.as_view(), name="consensus"),
    path(CELL + "evidence/", cells.EvidenceUploadView.as_view(), name="evidence_upload"),
    path(
        POC + "evidence/<int:evidence_pk>/",
        cells.EvidenceDownloadView.as_view(),
        name="evidence_download",
    ),
    path(POC + "imports/", imports.ImportView.as_view(), name="imports"),
    path(COI, conflicts.DeclarationsView.as_view(), name="conflicts"),
    path(
        COI + "candidates/<int:candidate_pk>/",
        conflicts.MyDeclarationView.as_view(),
        name="conflict_mine",
    ),
    path(
        COI + "<int:declaration_pk>/",
        conflicts.DeclarationDetailView.as_view(),
        name="conflict_detail",
    ),
    path(COI + "<int:declaration_pk>/allow/", conflicts.AllowView.as_view(), name="conflict_allow"),
    path(
        COI + "<int:declaration_pk>/revoke/", conflicts.RevokeView.as_view(), name="conflict_revoke"
    ),
    path(POC + "results/", results.ResultsView.as_view(), name="results"),
    path(POC + "testbeds/", testbeds.TestBedListView.as_view(), name="test_beds"),
    path(
        POC + "testbeds/equivalences/",
        testbeds.BedEquivalenceListView.as_view(),
        name="bed_equivalences",
    ),
    path(
        POC + "testbeds/equivalences/<int:equivalence_pk>/",
        testbeds.BedEquivalenceDetailView.as_view(),
        name="bed_equivalence",
    ),
    path(
        POC + "testbeds/<int:candidate_pk>/",
        testbeds.TestBedDetailView.as_view(),
        name="test_bed",
    ),
    path(POC + "verification/", verification.VerificationView.as_view(), name="verification"),
]
