"""Evaluation API: shortlist suggestions, candidates (add, eliminate, restore) and each
candidate's answers to the five questions. Same rules as views.py."""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import generics, serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.response import Response

from catalog.models import Solution
from common.http import (
    READ_ERRORS,
    VERSIONED_WRITE_ERRORS,
    WRITE_ERRORS,
    precondition,
    precondition_errors,
    with_etag,
)

from .. import services
from ..models import (
    Candidate,
    FiveQuestion,
    QuestionAnswer,
)
from ..scoped import CandidateScopedView, EvaluationScopedView
from ..selectors import (
    active_five_questions,
    shortlist_suggest,
)
from ..types import suggestions_by_type
from . import serializers as s

# --- suggestions and candidates --------------------------------------------------------------


def _candidates_out(view, candidates):
    return view.out(s.CandidateSerializer, candidates, many=True)


class SuggestionListView(EvaluationScopedView):
    serializer_class = s.SuggestionSerializer

    @extend_schema(
        summary="Solutions the shortlist rules suggest for the context answers",
        description="Grouped by solution type, never one cross-type list: the type chosen to "
        "carry the main responsibility first; suggestions of other types are marked "
        "`outside_main_type`.",
        responses={200: s.SuggestionSerializer(many=True), **READ_ERRORS},
    )
    def get(self, request, evaluation_pk):
        evaluation = self.get_evaluation()
        groups = suggestions_by_type(shortlist_suggest(evaluation), evaluation.main_type_id)
        suggestions = [suggestion for group in groups for suggestion in group.items]
        return Response(self.out(s.SuggestionSerializer, suggestions, many=True))


class SuggestionAcceptView(EvaluationScopedView):
    serializer_class = s.AcceptSuggestionsSerializer

    @extend_schema(
        summary="Add suggested solutions as candidates (all, or the listed slugs)",
        request=s.AcceptSuggestionsSerializer,
        responses={
            200: OpenApiResponse(s.CandidateSerializer(many=True), "Nothing new to add."),
            201: OpenApiResponse(s.CandidateSerializer(many=True), "The candidates added."),
            **WRITE_ERRORS,
        },
    )
    def post(self, request, evaluation_pk):
        evaluation = self.get_evaluation()
        values = self.parse(s.AcceptSuggestionsSerializer)
        slugs = values.get("solutions")
        ids = None
        if slugs is not None:
            found = dict(Solution.objects.filter(slug__in=slugs).values_list("slug", "pk"))
            unknown = [slug for slug in slugs if slug not in found]
            if unknown:
                raise serializers.ValidationError(
                    {
                        "solutions": gettext("Unknown solution(s): %(slugs)s.")
                        % {"slugs": ", ".join(unknown)}
                    }
                )
            ids = list(dict.fromkeys(found[slug] for slug in slugs))
        added = services.candidates_accept_suggestions(
            user=request.user, evaluation=evaluation, solution_ids=ids, reason=values["reason"]
        )
        code = status.HTTP_201_CREATED if added else status.HTTP_200_OK
        return Response(_candidates_out(self, added), status=code)


def _candidate_queryset(evaluation):
    return evaluation.candidates.select_related(
        "solution__solution_type", "added_by", "eliminated_by"
    ).prefetch_related("rules", "layers__solution__solution_type")


class CandidateListView(EvaluationScopedView):
    serializer_class = s.CandidateSerializer
    pagination_class = generics.ListAPIView.pagination_class

    @extend_schema(
        summary="Candidates, shortlisted and eliminated",
        responses=s.CandidateSerializer(many=True),
    )
    def get(self, request, evaluation_pk):
        page = self.paginate_queryset(_candidate_queryset(self.get_evaluation()))
        return self.get_paginated_response(_candidates_out(self, page))

    @extend_schema(
        summary="Add a candidate by hand, with the reason",
        request=s.CandidateAddSerializer,
        responses={201: s.CandidateSerializer, **WRITE_ERRORS},
    )
    def post(self, request, evaluation_pk):
        evaluation = self.get_evaluation()
        values = self.parse(s.CandidateAddSerializer)
        solution = Solution.objects.filter(slug=values["solution"]).first()
        if solution is None:
            raise serializers.ValidationError(
                {
                    "solution": gettext("There is no solution '%(slug)s' in the catalog.")
                    % {"slug": values["solution"]}
                }
            )
        candidate = services.candidate_add(
            user=request.user, evaluation=evaluation, solution=solution, reason=values["reason"]
        )
        body = self.out(s.CandidateSerializer, candidate)
        response = Response(body, status=status.HTTP_201_CREATED, headers={"Location": body["url"]})
        return with_etag(response, candidate.version)


class CandidateView(CandidateScopedView):
    """Base for views about one candidate of the evaluation."""

    serializer_class = s.CandidateSerializer

    def current_serializer(self, candidate) -> dict:
        return self.out(s.CandidateSerializer, candidate)

    def respond(self, candidate: Candidate) -> Response:
        candidate = _candidate_queryset(self.get_evaluation()).get(pk=candidate.pk)
        return with_etag(Response(self.out(s.CandidateSerializer, candidate)), candidate.version)


class CandidateDetailView(CandidateView):
    @extend_schema(summary="One candidate", responses={200: s.CandidateSerializer, **READ_ERRORS})
    def get(self, request, evaluation_pk, pk):
        return self.respond(self.get_candidate())


class CandidateEliminateView(CandidateView):
    serializer_class = s.EliminateSerializer

    @extend_schema(
        summary="Eliminate a candidate, with the reason (it stays on record)",
        request=s.EliminateSerializer,
        responses={200: s.CandidateSerializer, **VERSIONED_WRITE_ERRORS},
    )
    def post(self, request, evaluation_pk, pk):
        candidate = self.get_candidate()
        values = self.parse(s.EliminateSerializer)
        pre = precondition(request, values.get("version"), exists=True)
        with precondition_errors(pre):
            candidate = services.candidate_eliminate(
                user=request.user,
                candidate=candidate,
                reason=values["reason"],
                expected_version=pre.version,
            )
        return self.respond(candidate)


class CandidateRestoreView(CandidateView):
    serializer_class = s.RestoreSerializer

    @extend_schema(
        summary="Put an eliminated candidate back on the shortlist",
        request=s.RestoreSerializer,
        responses={200: s.CandidateSerializer, **VERSIONED_WRITE_ERRORS},
    )
    def post(self, request, evaluation_pk, pk):
        candidate = self.get_candidate()
        values = self.parse(s.RestoreSerializer)
        pre = precondition(request, values.get("version"), exists=True)
        with precondition_errors(pre):
            candidate = services.candidate_restore(
                user=request.user, candidate=candidate, expected_version=pre.version
            )
        return self.respond(candidate)


# --- the five questions ----------------------------------------------------------------------


@dataclass
class AnswerItem:
    question: FiveQuestion
    answer: QuestionAnswer | None

    @property
    def missing(self) -> list[str]:
        # An unanswered question lacks every part a blank answer lacks.
        return (self.answer or QuestionAnswer(question=self.question)).missing_parts()

    @property
    def is_complete(self) -> bool:
        return not self.missing


def _five_question(key: str) -> FiveQuestion:
    question = FiveQuestion.objects.filter(key=key, is_active=True).first()
    if question is None:
        raise NotFound(gettext("There is no pre-procurement question '%(key)s'.") % {"key": key})
    return question


class AnswerListView(CandidateView):
    serializer_class = s.CandidateAnswersSerializer
    candidate_url_kwarg = "candidate_pk"

    @extend_schema(
        operation_id="evaluations_candidates_answers_list",
        summary="The candidate's answers to every active pre-procurement question",
        responses={200: s.CandidateAnswersSerializer, **READ_ERRORS},
    )
    def get(self, request, evaluation_pk, candidate_pk):
        candidate = self.get_candidate()
        answers = {
            a.question_id: a for a in candidate.answers.select_related("updated_by", "question")
        }
        items = [AnswerItem(q, answers.get(q.pk)) for q in active_five_questions()]
        answered = sum(item.is_complete for item in items)
        body = {
            "candidate": candidate.pk,
            "is_complete": answered == len(items),
            "answered": answered,
            "total": len(items),
            "questions": items,
        }
        return Response(self.out(s.CandidateAnswersSerializer, body))


class AnswerView(CandidateView):
    serializer_class = s.AnswerItemSerializer
    candidate_url_kwarg = "candidate_pk"

    def current_serializer(self, answer) -> dict:
        return self.out(s.QuestionAnswerSerializer, answer)

    @extend_schema(
        summary="The candidate's answer to one question (ETag 0 while unanswered)",
        responses={200: s.AnswerItemSerializer, **READ_ERRORS},
    )
    def get(self, request, evaluation_pk, candidate_pk, question_key):
        candidate = self.get_candidate()
        question = _five_question(question_key)
        answer = candidate.answers.filter(question=question).first()
        body = self.out(s.AnswerItemSerializer, AnswerItem(question, answer))
        return with_etag(Response(body), answer.version if answer else 0)

    @extend_schema(
        summary="Answer one pre-procurement question for the candidate (create or update)",
        request=s.AnswerWriteSerializer,
        responses={200: s.AnswerItemSerializer, 201: s.AnswerItemSerializer}
        | VERSIONED_WRITE_ERRORS,
    )
    def put(self, request, evaluation_pk, candidate_pk, question_key):
        candidate = self.get_candidate()
        question = _five_question(question_key)
        values = self.parse(s.AnswerWriteSerializer)
        existing = candidate.answers.filter(question=question).first()
        pre = precondition(request, values.get("version"), exists=existing is not None)
        with precondition_errors(pre):
            answer = services.answer_save(
                user=request.user,
                candidate=candidate,
                question=question,
                parties=values["parties"],
                assessment=values["assessment"],
                budget=values["budget"],
                explanation=values["explanation"],
                evidence_url=values["evidence_url"],
                expected_version=pre.version,
            )
        body = self.out(s.AnswerItemSerializer, AnswerItem(question, answer))
        code = status.HTTP_200_OK if existing else status.HTTP_201_CREATED
        return with_etag(Response(body, status=code), answer.version)
