"""POC API: the results (overall scores, scenario fit by solution type, robustness and
agreement) and the scorecard as an .xlsx workbook."""

from __future__ import annotations

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.response import Response

from common.http import READ_ERRORS

from .. import scoring
from ..export import scorecard_workbook
from ..selectors import results
from ..thin import bootstrap_note, named_leaders, thin_note
from . import serializers as s
from .base import PocView, candidate_totals

XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


def _ids(keys) -> list[int]:
    return [int(key) for key in keys]


def _overall(candidate_pk: int, overall: scoring.Overall) -> dict:
    return {
        "candidate": candidate_pk,
        "score": overall.score,
        "percent": overall.percent,
        "completeness": overall.completeness,
    }


def _sensitivity(sens: scoring.Sensitivity | None) -> dict | None:
    if sens is None:
        return None
    return {
        "leader": _ids(sens.leader),
        "total_weight": sens.total_weight,
        "by_group": {
            group: None
            if flip is None
            else {
                "change": flip.change,
                "new_weight": flip.new_weight,
                "new_leader": _ids(flip.new_leader),
            }
            for group, flip in sens.by_group.items()
        },
        "min_change": sens.min_change,
        "group": sens.group,
        "new_leader": None if sens.new_leader is None else _ids(sens.new_leader),
    }


def _win_shares(wins) -> list[dict]:
    return [{"candidate": int(key), "share": share} for key, share in (wins or {}).items()]


def _sufficiency(res, sufficiency: scoring.Sufficiency) -> dict:
    names = {str(c.pk): c.name for c in res.card.candidates}
    group_names = {b.plan_group.group.key: b.plan_group.group.name for b in res.card.groups}
    return {
        "enough": sufficiency.enough,
        "minimum_completeness": sufficiency.minimum,
        "thin": [
            {"candidate": int(key), "completeness": share, "groups_without_score": list(groups)}
            for key, share, groups in sufficiency.thin
        ],
        "note": thin_note(sufficiency, names, group_names),
    }


def _bootstrap(res, t) -> dict | None:
    boot = t.bootstrap
    if boot is None or (t.sufficiency is not None and not t.sufficiency.enough):
        return None
    names = {str(c.pk): c.name for c in res.card.candidates}
    return {
        "leader": None if boot.leader is None else int(boot.leader),
        "share": boot.share,
        "resamples": boot.resamples,
        "seed": boot.seed,
        "names_leader": boot.names_leader,
        "note": bootstrap_note(boot, names),
    }


def _equivalence(e) -> dict:
    return {
        "id": e.pk,
        "first": e.first_id,
        "second": e.second_id,
        "first_test_bed": e.first_label,
        "second_test_bed": e.second_label,
        "reason": e.reason,
    }


def _by_type(res) -> list[dict]:
    return [
        {
            "type": t.solution_type,
            "outside_main_type": t.outside,
            "ranking": [{"candidate": c.pk, "rank": rank} for c, rank in t.ranked],
            "leaders": _ids(named_leaders(t.leaders, t.bootstrap)),
            "profiles": [
                {"key": profile.key, "leaders": _ids(leaders)}
                for profile, _fit, leaders in t.by_profile
            ],
            "sensitivity": _sensitivity(t.sensitivity),
            "win_shares": _win_shares(t.wins),
            "bootstrap": _bootstrap(res, t),
            "data_sufficiency": _sufficiency(res, t.sufficiency),
            "test_bed": {
                "label": t.bed_label,
                "recorded": bool(t.test_bed and t.test_bed.recorded),
                "equivalences": [_equivalence(e) for e in t.test_bed.equivalences]
                if t.test_bed
                else [],
            },
            "not_comparable": [
                {
                    "test_bed": o.label,
                    "candidates": [c.pk for c in o.candidates],
                    "note": o.note,
                }
                for o in t.others
            ],
        }
        for t in res.by_type
    ]


class ResultsView(PocView):
    serializer_class = s.ResultsSerializer

    @extend_schema(
        summary="Overall scores, scenario fit by solution type, robustness and agreement",
        description="From submitted scores and consensus only (missing cells are left out, "
        "not counted as zero). `by_type` has one entry per comparable group: candidates of "
        "the same solution type tested under the same (or declared equivalent) test-bed "
        "conditions. Candidates are ranked, led and tested for robustness only within their "
        "group, the type chosen to carry the main responsibility first; `not_comparable` "
        "names the same type's candidates on other test beds. The top-level `sensitivity`, "
        "`win_shares` and `profiles[].leaders` are given only when every candidate is in one "
        "comparable group (null / empty otherwise). "
        "Sensitivity: the smallest change of one group's weight that changes the leader. "
        "Win shares: how often each candidate leads under random re-weightings. Bootstrap: "
        "how often the leader stays leader over 1,000 resamples of reviewers and cells (fixed "
        "seed); below 80 % `leaders` of the type is empty. They name no "
        "leader (null / empty) below 60 % of the weighted cells scored for any candidate or "
        "when one has no score in a weighted group (`data_sufficiency`). Agreement: "
        "Krippendorff's alpha (null: not applicable).",
        responses={200: s.ResultsSerializer, **READ_ERRORS},
    )
    def get(self, request, evaluation_pk):
        res = results(self.get_evaluation(), request.user)
        body = {
            "candidates": candidate_totals(res.card, res.overall),
            "hidden_cells": res.card.hidden_cells,
            "profiles": [
                {
                    "key": profile.key,
                    "name": profile.name,
                    "leaders": _ids(leaders),
                    "fit": [_overall(pk, overall) for pk, overall in fit.items()],
                }
                for profile, fit, leaders in res.by_profile
            ],
            "by_type": _by_type(res),
            "sensitivity": _sensitivity(res.sensitivity),
            "win_shares": _win_shares(res.wins),
            "data_sufficiency": _sufficiency(res, res.sufficiency),
            "agreement": {"overall": res.agreement, "by_group": res.agreement_by_group},
        }
        return Response(self.out(s.ResultsSerializer, body))


class ScorecardExportView(PocView):
    serializer_class = None

    @extend_schema(
        summary="The scorecard as an .xlsx workbook",
        description="A Summary sheet with group weights and weighted totals as formulas, and "
        "one sheet per group with its cases and each candidate's score, and a sheet of the "
        "comparable groups (ranks and win shares within a type and test bed only). Cells "
        "hidden from you "
        "on the scorecard are empty here too.",
        responses={(200, XLSX): OpenApiResponse(OpenApiTypes.BINARY), **READ_ERRORS},
    )
    def get(self, request, evaluation_pk):
        evaluation = self.get_evaluation()
        res = results(evaluation, request.user)
        card = res.card
        for cell in card.cells():
            if cell.hidden_count:
                cell.value = None  # blind: the workbook shows no more than the scorecard
        response = HttpResponse(scorecard_workbook(card, res), content_type=XLSX)
        response["Content-Disposition"] = f'attachment; filename="scorecard-{evaluation.pk}.xlsx"'
        response["X-Content-Type-Options"] = "nosniff"
        return response
