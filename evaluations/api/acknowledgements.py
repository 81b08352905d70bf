"""Evaluation API: the open high reminders the decided gate asks about, and the owner's
acknowledgements of them (evaluations.acknowledgements decides what a member is shown; the
services are the pages' own)."""

from __future__ import annotations

from django.http import Http404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response

from common.fields import text_limit
from common.http import (
    READ_ERRORS,
    VERSIONED_WRITE_ERRORS,
    Precondition,
    error_responses,
    if_match,
    precondition,
    precondition_errors,
    with_etag,
)

from .. import services
from ..acknowledgements import gate_reminders
from ..models import ReminderAcknowledgement
from ..scoped import EvaluationScopedView
from ..selectors import evaluation_data
from .serializers import UsernameField


class AcknowledgementSerializer(serializers.Serializer):
    key = serializers.CharField(help_text="The reminder's key (the rule, and its candidate).")
    title = serializers.CharField(help_text="The reminder's title when it was acknowledged.")
    reason = serializers.CharField()
    acknowledged_by = UsernameField()
    acknowledged_at = serializers.DateTimeField()
    version = serializers.IntegerField()


class OpenReminderSerializer(serializers.Serializer):
    key = serializers.CharField(source="reminder.key")
    title = serializers.CharField(source="reminder.title")
    why = serializers.CharField(source="reminder.why")
    fix_url = serializers.CharField(source="reminder.fix_url")
    acknowledgement = AcknowledgementSerializer(
        allow_null=True, help_text="Null: the decided gate refuses until it is acknowledged."
    )


class GateRemindersSerializer(serializers.Serializer):
    reminders = OpenReminderSerializer(source="shown", many=True)
    hidden = serializers.IntegerField(
        help_text="Open high reminders resting on scores hidden from you (blind scoring)."
    )
    hidden_unacknowledged = serializers.IntegerField(
        source="hidden_open", help_text="How many of those are not acknowledged."
    )


class AcknowledgeSerializer(serializers.Serializer):
    reason = serializers.CharField(
        allow_blank=True, max_length=text_limit(ReminderAcknowledgement, "reason")
    )
    version = serializers.IntegerField(
        required=False, min_value=0, help_text="The version you edited (or send If-Match)."
    )


class AcknowledgementListView(EvaluationScopedView):
    serializer_class = GateRemindersSerializer

    @extend_schema(
        summary="Open high reminders and the owner's acknowledgements of them",
        description="Marking decided is refused while an open high reminder is not acknowledged "
        "by the owner. Those resting on scores hidden from you are only counted.",
        responses={200: GateRemindersSerializer, **READ_ERRORS},
    )
    def get(self, request, evaluation_pk):
        data = evaluation_data(self.get_evaluation())
        return Response(self.out(GateRemindersSerializer, gate_reminders(data, request.user)))


class AcknowledgementDetailView(EvaluationScopedView):
    serializer_class = AcknowledgementSerializer

    def current_serializer(self, ack) -> dict:
        return self.out(AcknowledgementSerializer, ack)

    @extend_schema(
        operation_id="evaluations_acknowledgement_retrieve",
        summary="One acknowledgement of an open high reminder, its version as the ETag",
        description="404 when the reminder is not open, is not acknowledged, or rests on "
        "scores hidden from you (as in the list).",
        responses={200: AcknowledgementSerializer, **READ_ERRORS},
    )
    def get(self, request, evaluation_pk, key):
        data = evaluation_data(self.get_evaluation())
        shown = gate_reminders(data, request.user).shown
        ack = next((o.acknowledgement for o in shown if o.reminder.key == key), None)
        if ack is None:
            raise Http404
        return with_etag(Response(self.out(AcknowledgementSerializer, ack)), ack.version)

    @extend_schema(
        summary="Acknowledge an open high reminder, with a reason (owner; create or update)",
        request=AcknowledgeSerializer,
        responses={200: AcknowledgementSerializer, 201: AcknowledgementSerializer}
        | VERSIONED_WRITE_ERRORS,
    )
    def put(self, request, evaluation_pk, key):
        evaluation = self.get_evaluation()
        values = self.parse(AcknowledgeSerializer)
        exists = ReminderAcknowledgement.objects.filter(evaluation=evaluation, key=key).exists()
        pre = precondition(request, values.get("version"), exists=exists)
        with precondition_errors(pre):
            ack = services.reminder_acknowledge(
                user=request.user,
                evaluation=evaluation,
                key=key,
                reason=values["reason"],
                expected_version=pre.version,
            )
        code = status.HTTP_200_OK if exists else status.HTTP_201_CREATED
        return with_etag(
            Response(self.out(AcknowledgementSerializer, ack), status=code), ack.version
        )

    @extend_schema(
        summary="Withdraw an acknowledgement (owner; If-Match optional)",
        responses={204: None, **error_responses(400, 403, 404, 409, 412)},
    )
    def delete(self, request, evaluation_pk, key):
        evaluation = self.get_evaluation()
        version = if_match(request)
        with precondition_errors(Precondition(version, from_header=version is not None)):
            services.reminder_acknowledgement_withdraw(
                user=request.user, evaluation=evaluation, key=key, expected_version=version
            )
        return Response(status=status.HTTP_204_NO_CONTENT)
