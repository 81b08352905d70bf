"""Risk reminders and the change history."""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers


class LinkSerializer(serializers.Serializer):
    url = serializers.CharField()
    label = serializers.CharField()


class ReminderSerializer(serializers.Serializer):
    key = serializers.CharField()
    severity = serializers.ChoiceField(choices=[("high", "high"), ("medium", "medium")])
    title = serializers.CharField()
    why = serializers.CharField()
    fix_url = serializers.CharField()
    fix_label = serializers.CharField()
    links = serializers.SerializerMethodField(
        help_text="More places the reminder points to (e.g. both sides of a disagreement)."
    )

    @extend_schema_field(LinkSerializer(many=True))
    def get_links(self, reminder) -> list[dict]:
        return [{"url": url, "label": label} for url, label in reminder.links]


class FieldChangeSerializer(serializers.Serializer):
    field = serializers.CharField()
    label = serializers.CharField()
    old = serializers.JSONField(allow_null=True)
    new = serializers.JSONField(allow_null=True)
    old_display = serializers.CharField(help_text="The old value in words (request language).")
    new_display = serializers.CharField(help_text="The new value in words (request language).")


class HistoryEntrySerializer(serializers.Serializer):
    when = serializers.DateTimeField()
    who = serializers.CharField(allow_null=True)
    action = serializers.ChoiceField(
        choices=[("created", "created"), ("changed", "changed"), ("deleted", "deleted")]
    )
    model = serializers.CharField(help_text="evaluation, contextanswer, candidate, ...")
    model_label = serializers.CharField()
    object_id = serializers.IntegerField()
    object = serializers.CharField(help_text="What was changed, in words.")
    changes = FieldChangeSerializer(many=True)
    reason = serializers.CharField(help_text="Why, where one was required (e.g. reopening).")
