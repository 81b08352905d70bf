from .roles import ADMIN, ROLES, user_roles


def roles(request):
    """Expose the signed-in user's roles to every template (navigation, admin links)."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"user_roles": [], "user_is_admin": False}
    keys = user_roles(user)
    return {
        "user_roles": [ROLES[k] for k in keys],
        "user_is_admin": ADMIN in keys,
    }
