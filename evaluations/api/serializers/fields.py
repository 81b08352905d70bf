"""Fields the evaluation API's serializers share."""

from rest_framework import serializers


def username(user) -> str | None:
    return user.username if user is not None else None


class UsernameField(serializers.CharField):
    """A user shown by username (read-only)."""

    def __init__(self, **kwargs):
        super().__init__(read_only=True, allow_null=True, **kwargs)

    def to_representation(self, value):
        return username(value)
