"""Prometheus metrics for operators: who may read /metrics, what a scrape collects, and the depth
of the Celery queue. Request and query metrics come from django-prometheus (its middleware and
database backends, config/settings/base.py); each app adds the metrics of its own data with
`APP_METRICS.register(collector)` in its AppConfig.ready()."""

from __future__ import annotations

import ipaddress
import logging
import math
import os
from functools import lru_cache

from django.conf import settings
from django.utils.crypto import constant_time_compare
from prometheus_client import REGISTRY, CollectorRegistry, multiprocess
from prometheus_client.core import GaugeMetricFamily

log = logging.getLogger(__name__)

# Collectors that read shared state (the database, the broker) when scraped, so every web
# process reports the same values whichever one Prometheus reaches.
APP_METRICS = CollectorRegistry()


def bearer_token(request) -> str:
    return request.headers.get("Authorization", "").removeprefix("Bearer ").strip()


@lru_cache(maxsize=8)
def allowed_networks(entries: tuple[str, ...]) -> tuple:
    """METRICS_ALLOWED_IPS (checked when the settings load) as networks."""
    return tuple(ipaddress.ip_network(e, strict=False) for e in entries)


def client_allowed(remote_addr: str) -> bool:
    try:
        address = ipaddress.ip_address(remote_addr)
    except ValueError:
        return False
    # A dual-stack listener reports an IPv4 client as ::ffff:a.b.c.d.
    mapped = getattr(address, "ipv4_mapped", None)
    networks = allowed_networks(tuple(settings.METRICS_ALLOWED_IPS))
    return any(address in net or (mapped is not None and mapped in net) for net in networks)


def may_read_metrics(request) -> bool:
    """A caller presenting METRICS_TOKEN, or calling from METRICS_ALLOWED_IPS (REMOTE_ADDR only:
    a forwarded-for header is whatever the caller wrote)."""
    token, given = settings.METRICS_TOKEN, bearer_token(request)
    if token and given and constant_time_compare(given, token):
        return True
    return client_allowed(request.META.get("REMOTE_ADDR", ""))


def scrape_registry() -> CollectorRegistry:
    """What one scrape reports: django-prometheus's metrics of this process (or, in
    prometheus_client's multiprocess mode, of every process sharing PROMETHEUS_MULTIPROC_DIR)
    and the apps' metrics read from shared state."""
    registry = CollectorRegistry()
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        multiprocess.MultiProcessCollector(registry)
    else:
        registry.register(REGISTRY)
    registry.register(APP_METRICS)
    return registry


def queue_length(broker_url: str, transport_options: dict, queue: str) -> float:
    """Messages waiting in `queue`, counted by kombu's transport (Redis: the lengths of the
    queue's lists, priorities included; filesystem: its message files). NaN when the broker
    cannot be read: a scrape never fails for it."""
    from kombu import Connection

    # One attempt (no reconnect loop): a scrape is answered within its timeout either way.
    options = {**transport_options, "max_retries": 0}
    try:
        with Connection(broker_url, transport_options=options, connect_timeout=3) as connection:
            return float(connection.default_channel.queue_declare(queue=queue).message_count)
    except Exception:  # broker down, folder missing, ...: report unknown, not an error
        log.warning("Could not read the length of queue %s.", queue, exc_info=True)
        return math.nan


class CeleryQueueCollector:
    """The number of tasks waiting in the Celery queue: a worker that is down or too slow
    shows as a queue that grows."""

    def collect(self):
        if settings.CELERY_TASK_ALWAYS_EAGER:
            return  # tasks run inside the requesting process: there is no queue
        from celery import current_app

        queue = current_app.conf.task_default_queue
        family = GaugeMetricFamily(
            "shortlist_celery_queue_length",
            "Tasks waiting in the Celery queue (NaN: the broker could not be read).",
            labels=["queue"],
        )
        length = queue_length(
            str(settings.CELERY_BROKER_URL), dict(settings.CELERY_BROKER_TRANSPORT_OPTIONS), queue
        )
        family.add_metric([queue], length)
        yield family
