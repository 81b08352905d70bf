"""Time the catalog comparison page for 2..8 solutions against a floor measured in the same run.

The floor is /healthz (one SELECT 1): what any request through the full middleware stack costs
here. Figures are medians of repeated in-process requests; compare ratios, not absolutes.

    .venv/bin/python bench/catalog_compare.py [--repeat 30]

Without DATABASE_URL it uses a throwaway SQLite file; set DATABASE_URL to measure PostgreSQL
(it adds a "bench-user" and loads the seed there).
"""

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
if "DATABASE_URL" not in os.environ:
    # A throwaway database, so a run never touches the local one.
    os.environ["DATABASE_URL"] = f"sqlite:///{tempfile.mkdtemp()}/bench.sqlite3"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()

    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext, setup_test_environment

    from catalog.models import Solution
    from catalog.services import catalog_load_seed

    settings.ALLOWED_HOSTS = ["testserver"]
    setup_test_environment()
    call_command("migrate", verbosity=0)
    catalog_load_seed()
    user, _ = get_user_model().objects.get_or_create(username="bench-user")
    client = Client()
    client.force_login(user)

    def measure(url: str) -> tuple[float, int]:
        client.get(url)  # warm caches and templates
        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            response = client.get(url)
            times.append(time.perf_counter() - start)
            assert response.status_code == 200, (url, response.status_code)
        with CaptureQueriesContext(connection) as ctx:
            client.get(url)
        return statistics.median(times) * 1000, len(ctx.captured_queries)

    floor_ms, floor_q = measure("/healthz")
    print(f"database: {connection.vendor}; repeat={args.repeat}")
    print(f"{'page':<34}{'median ms':>10}{'x floor':>9}{'queries':>9}")
    print(f"{'floor: /healthz':<34}{floor_ms:>10.2f}{1:>9.1f}{floor_q:>9}")
    slugs = list(Solution.objects.values_list("slug", flat=True)[:8])
    for n in (2, 4, len(slugs)):
        url = "/catalog/compare/?" + "&".join(f"s={s}" for s in slugs[:n])
        ms, q = measure(url)
        print(f"{f'compare {n} solutions':<34}{ms:>10.2f}{ms / floor_ms:>9.1f}{q:>9}")
    ms, q = measure("/catalog/")
    print(f"{'catalog list':<34}{ms:>10.2f}{ms / floor_ms:>9.1f}{q:>9}")


if __name__ == "__main__":
    main()
