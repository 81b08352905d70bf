"""Saving with the history record attributed to the acting user."""


def save_as(obj, user) -> None:
    """Save `obj`; django-simple-history records `user` as the author, also outside a request."""
    obj._history_user = user
    obj.save()
