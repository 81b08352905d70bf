import os
from pathlib import Path

from celery import Celery

# Connects the signals that carry the request id into tasks and keep Django's log format.
import common.logs  # noqa: F401

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

app = Celery("shortlist")
# Every CELERY_* setting in Django settings configures Celery (broker, eager mode, ...).
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@app.on_after_configure.connect
def make_broker_folders(sender, **kwargs):
    """The filesystem broker (the embedded default) reads and writes folders that must exist
    before the first message, in the web process and the worker alike."""
    if str(sender.conf.broker_url).startswith("filesystem:"):
        options = sender.conf.broker_transport_options or {}
        for key in ("data_folder_in", "data_folder_out", "control_folder"):
            if options.get(key):
                Path(options[key]).mkdir(parents=True, exist_ok=True)
