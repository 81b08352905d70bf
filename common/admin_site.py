from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from .roles import is_admin


class ShortlistAdminSite(admin.AdminSite):
    site_header = _("Shortlist administration")
    site_title = _("Shortlist admin")
    index_title = _("Catalog, libraries, users and roles")

    def has_permission(self, request):
        """Only the admin role (or superusers) may use Django admin."""
        return request.user.is_active and is_admin(request.user)
