"""Probes for readiness (/readyz, /healthz): each returns {"ok": bool, "detail": str} and
never raises."""

import os
import weakref
from pathlib import Path

from django.conf import settings


def database_status(connection) -> dict:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
        return {"ok": True, "detail": connection.vendor}
    except Exception as exc:  # any driver error means the database is not usable
        return {"ok": False, "detail": f"{type(exc).__name__}: {exc}".strip()[:300]}


def broker_status(url: str | None = None) -> dict:
    url = settings.REDIS_URL if url is None else url
    if url:
        return redis_status(url)
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return {"ok": True, "detail": "in-process tasks (no REDIS_URL)"}
    if str(settings.CELERY_BROKER_URL).startswith("filesystem:"):
        return filesystem_status(settings.CELERY_BROKER_TRANSPORT_OPTIONS)
    return {"ok": True, "detail": str(settings.CELERY_BROKER_URL).partition(":")[0]}


def redis_status(url: str) -> dict:
    import redis

    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=2, socket_timeout=2)
        client.ping()
        return {"ok": True, "detail": "redis"}
    except Exception as exc:  # connection refused, timeout, auth error ...
        return {"ok": False, "detail": f"{type(exc).__name__}: {exc}".strip()[:300]}


def filesystem_status(options: dict) -> dict:
    """The embedded broker answers when its message folder can be written."""
    folder = Path(options.get("data_folder_out", "data_out"))
    if folder.is_dir() and os.access(folder, os.W_OK | os.X_OK):
        return {"ok": True, "detail": "filesystem"}
    return {"ok": False, "detail": f"filesystem: {folder} is not a writable folder"[:300]}


def storage_status(storage=None) -> dict:
    """Where evidence and report PDFs are kept can take files. Local disk: the folder (or, before
    the first file, the nearest existing parent Django would create it in) is writable. S3: the
    bucket answers a HEAD within a few seconds (a missing bucket or refused credentials say so).
    Any other backend answers a lookup through Django's storage API."""
    from django.core.files.storage import FileSystemStorage, default_storage

    storage = default_storage if storage is None else storage
    try:
        if isinstance(storage, FileSystemStorage):
            folder = Path(storage.location)
            nearest = next(p for p in (folder, *folder.parents) if p.exists())
            if nearest.is_dir() and os.access(nearest, os.W_OK | os.X_OK):
                return {"ok": True, "detail": "filesystem"}
            return {"ok": False, "detail": f"filesystem: {folder} is not writable"[:300]}
        if hasattr(storage, "bucket_name"):
            return s3_status(storage)
        storage.exists("readiness-probe")
        return {"ok": True, "detail": type(storage).__name__}
    except Exception as exc:  # unreachable store, refused credentials ...
        return {"ok": False, "detail": f"{type(exc).__name__}: {exc}".strip()[:300]}


# The storage's own client waits a minute and retries (right for a 20 MiB upload); a probe must
# answer within its caller's timeout, so it asks through a client of its own with short limits.
PROBE_CONFIG = {"connect_timeout": 2, "read_timeout": 3, "retries": {"total_max_attempts": 1}}


_probe_clients: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def s3_status(storage) -> dict:
    """django-storages' S3 backend: HEAD the bucket with the storage's credentials and endpoint
    (the probe's client is made once per storage: building one costs about 0.1 s)."""
    from botocore.config import Config

    client = _probe_clients.get(storage)
    if client is None:
        client = _probe_clients[storage] = storage._create_session().client(
            "s3",
            region_name=storage.region_name,
            use_ssl=storage.use_ssl,
            endpoint_url=storage.endpoint_url,
            verify=storage.verify,
            config=storage.client_config.merge(Config(**PROBE_CONFIG)),
        )
    bucket = storage.bucket_name
    try:
        client.head_bucket(Bucket=bucket)
    except Exception as exc:  # no such bucket, access denied, endpoint unreachable ...
        return {"ok": False, "detail": f"s3 bucket {bucket}: {type(exc).__name__}: {exc}"[:300]}
    return {"ok": True, "detail": f"s3 bucket {bucket}"}
