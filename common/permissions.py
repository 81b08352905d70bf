from rest_framework import permissions

from .roles import is_admin


class AdminWriteSignedInRead(permissions.BasePermission):
    """Any signed-in user reads; only the admin role writes."""

    def has_permission(self, request, view):
        if not (request.user and request.user.is_authenticated):
            return False
        if request.method in permissions.SAFE_METHODS:
            return True
        return is_admin(request.user)
