"""Saving with the history record attributed to the acting user."""

from .people import person_name
from .text import shorten


def save_as(obj, user) -> None:
    """Save `obj`; django-simple-history records `user` as the author, also outside a request.

    A `_change_reason` (a reason a person typed, shown on the History tab) is cut to what the
    history record's column holds (100 characters; PostgreSQL refused a longer one with a
    500); the full reason stays on the row that keeps it (a status change, a waiver)."""
    obj._history_user = user
    reason = getattr(obj, "_change_reason", None)
    history = getattr(type(obj), "history", None)
    if reason and history is not None:
        limit = history.model._meta.get_field("history_change_reason").max_length
        if limit and len(reason) > limit:
            obj._change_reason = shorten(reason, limit)
    obj.save()


def last_saved(obj) -> tuple[str, object] | tuple[None, None]:
    """Who saved `obj` last and when, from its django-simple-history records (None, None when
    it keeps none)."""
    history = getattr(obj, "history", None)
    record = (
        history.order_by("-history_date").select_related("history_user").first()
        if (history is not None)
        else None
    )
    if record is None:
        return None, None
    user = record.history_user
    name = person_name(user) if user is not None else None
    return name, record.history_date
