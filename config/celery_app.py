import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

app = Celery("shortlist")
# Every CELERY_* setting in Django settings configures Celery (broker, eager mode, ...).
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
