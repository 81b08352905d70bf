from celery import shared_task


@shared_task(name="common.ping")
def ping(value: str = "pong") -> str:
    """A no-op round trip, used to check that a worker consumes the queue."""
    return value
