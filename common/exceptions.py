"""Domain errors raised by services; the API exception handler and views map them to responses."""

from django.core.exceptions import ValidationError  # noqa: F401  (re-exported for services)


class DomainError(Exception):
    """A request that is well-formed but not allowed in the current state."""

    status_code = 409

    def __init__(self, message: str, *, field: str | None = None, current=None):
        super().__init__(message)
        self.message = message
        self.field = field
        self.current = current


class Conflict(DomainError):
    """The action contradicts the current state (invalid transition, sealed evaluation, ...)."""


class StaleEdit(Conflict):
    """Somebody saved this object since the editor loaded it; `current` is the saved version."""


class PreconditionFailed(StaleEdit):
    """A stale edit detected through If-Match (HTTP 412)."""

    status_code = 412


class Forbidden(DomainError):
    status_code = 403
