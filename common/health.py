"""Probes for /healthz: each returns {"ok": bool, "detail": str} and never raises."""

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
    if not url:
        return {"ok": True, "detail": "in-process tasks (no REDIS_URL)"}
    import redis

    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=2, socket_timeout=2)
        client.ping()
        return {"ok": True, "detail": "redis"}
    except Exception as exc:  # connection refused, timeout, auth error ...
        return {"ok": False, "detail": f"{type(exc).__name__}: {exc}".strip()[:300]}
