from django.contrib.admin.apps import AdminConfig


class ShortlistAdminConfig(AdminConfig):
    default_site = "common.admin_site.ShortlistAdminSite"
