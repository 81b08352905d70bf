"""Saving with the history record attributed to the acting user."""


def save_as(obj, user) -> None:
    """Save `obj`; django-simple-history records `user` as the author, also outside a request."""
    obj._history_user = user
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
    name = (user.get_full_name() or user.get_username()) if user is not None else None
    return name, record.history_date
