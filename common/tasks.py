from celery import shared_task


@shared_task(name="common.ping")
def ping(value: str = "pong") -> str:
    """A no-op round trip, used to check that a worker consumes the queue."""
    return value


@shared_task(name="common.sweep_orphan_files")
def sweep_orphan_files() -> int:
    """Hourly (Celery beat): delete stored files no row refers to, past the grace period."""
    from datetime import timedelta

    from django.conf import settings

    from .files import sweep_orphan_files as sweep

    return len(sweep(older_than=timedelta(seconds=settings.FILE_SWEEP_GRACE)))
