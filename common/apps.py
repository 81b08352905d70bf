from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


def role_groups_load_seed() -> dict[str, int]:
    """The role groups: a migration creates them, but a flushed database has none."""
    from django.contrib.auth.models import Group

    from .roles import ROLES

    for name in ROLES:
        Group.objects.get_or_create(name=name)
    return {"roles": len(ROLES)}


class CommonConfig(AppConfig):
    name = "common"
    verbose_name = _("Common")

    def ready(self):
        from . import lookups  # noqa: F401  (registers IntegerFieldIn)
        from .metrics import APP_METRICS, CeleryQueueCollector
        from .seeding import register

        register("roles", role_groups_load_seed)

        from .demo import demo_step, users

        # The demo users come first: every other demo step acts as one of them.
        demo_step(10, users.load, files=users.FILES)
        APP_METRICS.register(CeleryQueueCollector())
