"""Evaluation API. Views parse input, look rows up through the membership-scoped selectors
(non-members get 404) and call the same services the pages use; the services enforce
permissions, sealing, validation and optimistic concurrency.

Concurrency over HTTP (If-Match / version, ETag, 409/412/428) is described in common/http.py.
Candidates and their five-question answers are in candidates.py.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import generics, serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.response import Response

from common.drf import EvaluationPagination
from common.http import (
    READ_ERRORS,
    VERSIONED_WRITE_ERRORS,
    WRITE_ERRORS,
    error_responses,
    precondition,
    precondition_errors,
    with_etag,
)

from .. import services
from ..filters import EvaluationFilterSet
from ..history import history_entries, history_timeline
from ..models import (
    ContextAnswer,
    ContextQuestion,
    Decision,
    Membership,
)
from ..rows import evaluation_list_queryset, evaluation_rows, listed_reminders
from ..scoped import EvaluationScopedView
from ..selectors import active_context_questions, evaluation_data
from . import serializers as s

# --- evaluations -----------------------------------------------------------------------------


def _write_fields(data: dict) -> dict:
    return {k: v for k, v in data.items() if k not in ("version", "scenarios")}


@extend_schema_view(
    get=extend_schema(summary="Your evaluations", responses=s.EvaluationListSerializer(many=True)),
    post=extend_schema(
        summary="Create an evaluation (tech leads and admins); you become its owner",
        request=s.EvaluationWriteSerializer,
        responses={201: s.EvaluationSerializer, **error_responses(400, 403)},
    ),
)
class EvaluationListView(generics.ListCreateAPIView):
    serializer_class = s.EvaluationListSerializer
    pagination_class = EvaluationPagination  # each row computes its reminders: smaller pages
    filterset_class = EvaluationFilterSet

    def get_queryset(self):
        return evaluation_list_queryset(self.request.user, names=False)

    def list(self, request, *args, **kwargs):
        page = self.paginate_queryset(self.filter_queryset(self.get_queryset()))
        rows = evaluation_rows(request.user, page)
        return self.get_paginated_response(self.get_serializer(rows, many=True).data)

    def create(self, request, *args, **kwargs):
        data = s.EvaluationWriteSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        evaluation = services.evaluation_create(
            user=request.user, scenarios=values.get("scenarios", []), **_write_fields(values)
        )
        body = s.EvaluationSerializer(evaluation, context=self.get_serializer_context()).data
        response = Response(body, status=status.HTTP_201_CREATED, headers={"Location": body["url"]})
        return with_etag(response, evaluation.version)


class EvaluationDetailView(EvaluationScopedView):
    serializer_class = s.EvaluationSerializer
    evaluation_url_kwarg = "pk"

    def current_serializer(self, evaluation) -> dict:
        return self.out(s.EvaluationSerializer, evaluation)

    @extend_schema(summary="One evaluation", responses={200: s.EvaluationSerializer, **READ_ERRORS})
    def get(self, request, pk):
        evaluation = self.get_evaluation()
        return with_etag(Response(self.out(s.EvaluationSerializer, evaluation)), evaluation.version)

    @extend_schema(
        summary="Change an evaluation's fields",
        request=s.EvaluationWriteSerializer,
        responses={200: s.EvaluationSerializer, **VERSIONED_WRITE_ERRORS},
    )
    def patch(self, request, pk):
        evaluation = self.get_evaluation()
        values = self.parse(s.EvaluationWriteSerializer, partial=True)
        pre = precondition(request, values.get("version"), exists=True)
        with precondition_errors(pre):
            evaluation = services.evaluation_update(
                user=request.user,
                evaluation=evaluation,
                expected_version=pre.version,
                scenarios=values.get("scenarios"),
                **_write_fields(values),
            )
        return with_etag(Response(self.out(s.EvaluationSerializer, evaluation)), evaluation.version)


class EvaluationTransitionView(EvaluationScopedView):
    serializer_class = s.TransitionSerializer
    evaluation_url_kwarg = "pk"

    @extend_schema(
        summary="Move the status (draft, poc, decided, archived); reopening needs a reason",
        description="Marking decided is refused with 409 and a `missing` list until the type "
        "carrying the main responsibility is decided with a reason, every shortlisted candidate "
        "has complete answers, the decision record is complete and every open high reminder is "
        "acknowledged by the owner with a reason (`acknowledgements/`). The "
        "list also names the chosen candidates' POC cells nobody scored and those where the "
        "reviewers disagree without a consensus: with only those left, the owner may mark it "
        "decided anyway by sending the `reason`, which is kept in the history and the report.",
        request=s.TransitionSerializer,
        responses={200: s.EvaluationSerializer, **WRITE_ERRORS},
    )
    def post(self, request, pk):
        evaluation = self.get_evaluation()
        values = self.parse(s.TransitionSerializer)
        evaluation = services.evaluation_transition(
            user=request.user,
            evaluation=evaluation,
            to_status=values["status"],
            reason=values["reason"],
        )
        return with_etag(Response(self.out(s.EvaluationSerializer, evaluation)), evaluation.version)


# --- members ---------------------------------------------------------------------------------


class MemberListView(EvaluationScopedView):
    serializer_class = s.MembershipSerializer
    pagination_class = generics.ListAPIView.pagination_class

    @extend_schema(summary="Members and their roles", responses=s.MembershipSerializer(many=True))
    def get(self, request, evaluation_pk):
        qs = self.get_evaluation().memberships.select_related("user")
        page = self.paginate_queryset(qs)
        return self.get_paginated_response(self.out(s.MembershipSerializer, page, many=True))

    @extend_schema(
        summary="Add a member (owners only)",
        request=s.MemberAddSerializer,
        responses={201: s.MembershipSerializer, **WRITE_ERRORS},
    )
    def post(self, request, evaluation_pk):
        evaluation = self.get_evaluation()
        values = self.parse(s.MemberAddSerializer)
        membership = services.member_add(
            user=request.user, evaluation=evaluation, member=values["username"], role=values["role"]
        )
        return Response(self.out(s.MembershipSerializer, membership), status=201)


class MemberDetailView(EvaluationScopedView):
    serializer_class = s.MembershipSerializer

    def get_membership(self) -> Membership:
        evaluation = self.get_evaluation()
        membership = evaluation.memberships.select_related("user").filter(pk=self.kwargs["pk"])
        found = membership.first()
        if found is None:
            raise NotFound(
                gettext("This evaluation has no membership %(id)s.") % {"id": self.kwargs["pk"]}
            )
        found.evaluation = evaluation
        return found

    @extend_schema(summary="One member", responses={200: s.MembershipSerializer, **READ_ERRORS})
    def get(self, request, evaluation_pk, pk):
        return Response(self.out(s.MembershipSerializer, self.get_membership()))

    @extend_schema(
        summary="Change a member's role (owners only)",
        request=s.MemberRoleSerializer,
        responses={200: s.MembershipSerializer, **WRITE_ERRORS},
    )
    def patch(self, request, evaluation_pk, pk):
        membership = self.get_membership()
        values = self.parse(s.MemberRoleSerializer)
        membership = services.member_change_role(
            user=request.user, membership=membership, role=values["role"]
        )
        return Response(self.out(s.MembershipSerializer, membership))

    @extend_schema(
        summary="Remove a member (owners only; one owner must remain)",
        responses={204: None, **error_responses(403, 404, 409)},
    )
    def delete(self, request, evaluation_pk, pk):
        services.member_remove(user=request.user, membership=self.get_membership())
        return Response(status=status.HTTP_204_NO_CONTENT)


# --- context ---------------------------------------------------------------------------------


@dataclass
class ContextItem:
    question: ContextQuestion
    answer: ContextAnswer | None


def _context_question(key: str) -> ContextQuestion:
    question = ContextQuestion.objects.filter(key=key, is_active=True).first()
    if question is None:
        raise NotFound(gettext("There is no context question '%(key)s'.") % {"key": key})
    return question


class ContextListView(EvaluationScopedView):
    serializer_class = s.ContextItemSerializer

    @extend_schema(
        summary="Every active context question with this evaluation's answer (or null)",
        responses={200: s.ContextItemSerializer(many=True), **READ_ERRORS},
    )
    def get(self, request, evaluation_pk):
        evaluation = self.get_evaluation()
        answers = {
            a.question_id: a for a in evaluation.context_answers.select_related("updated_by")
        }
        items = [ContextItem(q, answers.get(q.pk)) for q in active_context_questions()]
        return Response(self.out(s.ContextItemSerializer, items, many=True))


class ContextAnswerView(EvaluationScopedView):
    serializer_class = s.ContextItemSerializer

    def current_serializer(self, answer) -> dict:
        return self.out(s.ContextAnswerSerializer, answer)

    def _answer(self, evaluation, question) -> ContextAnswer | None:
        return evaluation.context_answers.filter(question=question).first()

    @extend_schema(
        summary="One context question with the answer (ETag 0 while unanswered)",
        responses={200: s.ContextItemSerializer, **READ_ERRORS},
    )
    def get(self, request, evaluation_pk, question_key):
        evaluation = self.get_evaluation()
        question = _context_question(question_key)
        answer = self._answer(evaluation, question)
        body = self.out(s.ContextItemSerializer, ContextItem(question, answer))
        return with_etag(Response(body), answer.version if answer else 0)

    @extend_schema(
        summary="Answer a context question (create or update)",
        request=s.ContextAnswerWriteSerializer,
        responses={200: s.ContextItemSerializer, 201: s.ContextItemSerializer}
        | VERSIONED_WRITE_ERRORS,
    )
    def put(self, request, evaluation_pk, question_key):
        evaluation = self.get_evaluation()
        question = _context_question(question_key)
        values = self.parse(s.ContextAnswerWriteSerializer)
        existing = self._answer(evaluation, question)
        pre = precondition(request, values.get("version"), exists=existing is not None)
        with precondition_errors(pre):
            answer = services.context_answer_save(
                user=request.user,
                evaluation=evaluation,
                question=question,
                value=values["value"],
                detail=values["detail"],
                expected_version=pre.version,
            )
        body = self.out(s.ContextItemSerializer, ContextItem(question, answer))
        code = status.HTTP_200_OK if existing else status.HTTP_201_CREATED
        return with_etag(Response(body, status=code), answer.version)


# --- decision --------------------------------------------------------------------------------


class DecisionView(EvaluationScopedView):
    serializer_class = s.DecisionSerializer

    def current_serializer(self, decision) -> dict:
        return self.out(s.DecisionSerializer, decision)

    def _decision(self, evaluation) -> Decision | None:
        return Decision.objects.filter(evaluation=evaluation).select_related("recorded_by").first()

    @extend_schema(
        summary="The decision record (version 0 and empty values before it is first saved)",
        responses={200: s.DecisionSerializer, **READ_ERRORS},
    )
    def get(self, request, evaluation_pk):
        evaluation = self.get_evaluation()
        decision = self._decision(evaluation) or Decision(evaluation=evaluation, version=0)
        return with_etag(Response(self.out(s.DecisionSerializer, decision)), decision.version)

    @extend_schema(
        summary="Record the decision (create or update)",
        request=s.DecisionWriteSerializer,
        responses={200: s.DecisionSerializer, 201: s.DecisionSerializer} | VERSIONED_WRITE_ERRORS,
    )
    def put(self, request, evaluation_pk):
        evaluation = self.get_evaluation()
        values = self.parse(s.DecisionWriteSerializer)
        wanted = list(dict.fromkeys(values["chosen"]))
        chosen = list(evaluation.candidates.select_related("solution").filter(pk__in=wanted))
        unknown = sorted(set(wanted) - {c.pk for c in chosen})
        if unknown:
            raise serializers.ValidationError(
                {
                    "chosen": gettext("Not a candidate of this evaluation: %(ids)s.")
                    % {"ids": ", ".join(map(str, unknown))}
                }
            )
        existing = self._decision(evaluation)
        pre = precondition(request, values.get("version"), exists=existing is not None)
        with precondition_errors(pre):
            decision = services.decision_save(
                user=request.user,
                evaluation=evaluation,
                chosen=chosen,
                rationale=values["rationale"],
                decided_on=values["decided_on"],
                decided_by=values["decided_by"],
                expected_version=pre.version,
            )
        code = status.HTTP_200_OK if existing else status.HTTP_201_CREATED
        body = self.out(s.DecisionSerializer, decision)
        return with_etag(Response(body, status=code), decision.version)


# --- reminders -------------------------------------------------------------------------------


class ReminderListView(EvaluationScopedView):
    serializer_class = s.ReminderSerializer

    @extend_schema(
        summary="Risk reminders computed from the evaluation's data",
        responses={200: s.ReminderSerializer(many=True), **READ_ERRORS},
    )
    def get(self, request, evaluation_pk):
        evaluation = self.get_evaluation()
        _status, found = listed_reminders(
            evaluation, request.user, lambda: evaluation_data(evaluation, viewer=request.user)
        )
        return Response(self.out(s.ReminderSerializer, found, many=True))


# --- history ---------------------------------------------------------------------------------


class HistoryListView(EvaluationScopedView):
    serializer_class = s.HistoryEntrySerializer
    pagination_class = generics.ListAPIView.pagination_class

    @extend_schema(
        summary="Every recorded change to the evaluation and its rows, newest first",
        responses=s.HistoryEntrySerializer(many=True),
    )
    def get(self, request, evaluation_pk):
        evaluation = self.get_evaluation()
        page = self.paginate_queryset(history_timeline(evaluation))
        entries = history_entries(evaluation, page)
        return self.get_paginated_response(self.out(s.HistoryEntrySerializer, entries, many=True))
