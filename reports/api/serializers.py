from django.conf import settings
from django.urls import reverse
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from ..models import ReportRun
from ..sections import ALL


class ReportRequestSerializer(serializers.Serializer):
    language = serializers.ChoiceField(choices=settings.LANGUAGES)
    sections = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        help_text="Sections to print after the cover, any of: "
        + ", ".join(ALL)
        + ". Left out: all of them.",
    )


class ReportRunSerializer(serializers.ModelSerializer):
    requested_by = serializers.CharField(source="requested_by.username")
    locked = serializers.SerializerMethodField(
        help_text="True while blind scoring keeps this report from you: it prints scores and "
        "others have scored cells you have not (submit your own scores first)."
    )
    pdf = serializers.SerializerMethodField(help_text="Download URL once done and not locked.")

    class Meta:
        model = ReportRun
        fields = [
            "id",
            "language",
            "sections",
            "status",
            "progress",
            "attempts",
            "error",
            "requested_by",
            "created_at",
            "started_at",
            "finished_at",
            "snapshot_sha256",
            "pdf_sha256",
            "pdf_size",
            "pages",
            "locked",
            "pdf",
        ]

    def get_locked(self, run) -> bool:
        return run.pk in self.context.get("locked", set())

    @extend_schema_field(serializers.URLField(allow_null=True))
    def get_pdf(self, run):
        if not run.pdf or self.get_locked(run):
            return None
        path = reverse(
            "reports-api:report_pdf",
            kwargs={"evaluation_pk": run.evaluation_id, "run_pk": run.pk},
        )
        request = self.context.get("request")
        return request.build_absolute_uri(path) if request else path


class ReportRunQueuedSerializer(ReportRunSerializer):
    queued_now = serializers.SerializerMethodField(
        help_text="False when the task queue was unreachable: the run is kept; retry it later. "
        "True when it went to the worker, or is already done (an earlier run printed the same "
        "snapshot: its PDF is reused)."
    )

    class Meta(ReportRunSerializer.Meta):
        fields = [*ReportRunSerializer.Meta.fields, "queued_now"]

    def get_queued_now(self, run) -> bool:
        return self.context["queued_now"]
