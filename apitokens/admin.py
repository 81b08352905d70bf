from django.contrib import admin

from .models import ApiToken


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    """Admins see every token and revoke one by deleting it; no secret is ever shown (only its
    digest is stored) and no token is made here."""

    list_display = ("name", "user", "scope", "created", "expiry", "last_used_at")
    list_filter = ("scope",)
    search_fields = ("name", "user__username", "user__email")
    readonly_fields = ("name", "user", "scope", "created", "expiry", "last_used_at")
    fields = readonly_fields
    ordering = ("-created",)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
