import pytest
from django.db import connections
from django.test import override_settings

from common import views

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def token(settings):
    """The checks below read the details, as a monitoring system holding the token does."""
    settings.HEALTHZ_TOKEN = "probe-token-1"
    return settings.HEALTHZ_TOKEN


@pytest.fixture
def client(client, token):
    client.defaults["HTTP_AUTHORIZATION"] = f"Bearer {token}"
    return client


def test_anyone_learns_only_healthy_or_not(settings):
    from django.test import Client

    from tests.conftest import make_user

    with override_settings(REDIS_URL="redis://127.0.0.1:1/0"):
        for headers in ({}, {"HTTP_AUTHORIZATION": "Bearer wrong"}):
            anonymous = Client().get("/healthz", **headers)
            assert anonymous.status_code == 503
            assert anonymous.json() == {"status": "unavailable"}
        signed_in = Client()
        signed_in.force_login(make_user("tech_lead"))
        assert signed_in.get("/healthz").json() == {"status": "unavailable"}
        admin = Client()
        admin.force_login(make_user("admin"))
        assert admin.get("/healthz").json()["failing"] == ["broker"]


def test_healthy(client, redis_url):
    with override_settings(REDIS_URL=redis_url):
        response = client.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["checks"]["database"]["ok"] and body["checks"]["broker"]["detail"] == "redis"


def test_without_redis_tasks_run_in_process_and_that_is_healthy(client):
    with override_settings(REDIS_URL="", CELERY_TASK_ALWAYS_EAGER=True):
        response = client.get("/healthz")
    assert response.status_code == 200
    assert "in-process" in response.json()["checks"]["broker"]["detail"]


def test_the_embedded_broker_is_healthy_while_its_folder_can_be_written(client, tmp_path):
    from common.health import broker_status

    folder = tmp_path / "queue"
    embedded = {
        "REDIS_URL": "",
        "CELERY_TASK_ALWAYS_EAGER": False,
        "CELERY_BROKER_URL": "filesystem://localhost/",
        "CELERY_BROKER_TRANSPORT_OPTIONS": {"data_folder_out": str(folder)},
    }
    with override_settings(**embedded):
        assert broker_status() == {
            "ok": False,
            "detail": f"filesystem: {folder} is not a writable folder",
        }
        assert client.get("/healthz").status_code == 503
        folder.mkdir()
        assert broker_status() == {"ok": True, "detail": "filesystem"}
        assert client.get("/healthz").status_code == 200


def test_broker_down_is_503_naming_the_broker(client):
    # Nothing listens on port 1: a real refused connection, not a mock.
    with override_settings(REDIS_URL="redis://127.0.0.1:1/0"):
        response = client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["failing"] == ["broker"]
    assert body["checks"]["database"]["ok"]


def test_database_down_is_503_naming_the_database(client, monkeypatch):
    real = connections["default"]
    broken_settings = {**real.settings_dict}
    if real.vendor == "sqlite":
        broken_settings["NAME"] = "/nonexistent-dir/db.sqlite3"
    else:
        broken_settings["PORT"] = "1"
    broken = type(real)(broken_settings, alias="broken")
    monkeypatch.setattr(views, "connection", broken)
    with override_settings(REDIS_URL=""):
        response = client.get("/healthz")
    broken.close()
    assert response.status_code == 503
    assert response.json()["failing"] == ["database"]


@pytest.mark.django_db
def test_pages_load_htmx_without_the_debug_script_that_replaces_refusals(client, settings):
    from tests.conftest import make_user

    settings.DEBUG = True
    client.force_login(make_user(None))
    page = client.get("/").content.decode()
    assert "django_htmx/htmx-2.min.js" in page
    assert "django-htmx.js" not in page  # it would swap the whole page for a 400 in DEBUG


def test_every_answer_carries_a_content_security_policy(client):
    from tests.conftest import make_user

    client.force_login(make_user("tech_lead"))
    for path in ("/", "/catalog/", "/accounts/password/", "/api/docs/", "/healthz"):
        policy = client.get(path)["Content-Security-Policy"]
        directives = dict(d.strip().split(" ", 1) for d in policy.split(";") if d.strip())
        assert directives["script-src"] == "'self'", path  # no inline script, no eval
        assert directives["frame-ancestors"] == "'none'" and directives["object-src"] == "'none'"


# --- liveness and readiness ------------------------------------------------------------------


def test_liveness_answers_while_the_dependencies_are_down(client, monkeypatch):
    """A database or broker outage makes the instance not ready, never "dead": restarting a
    healthy web process would not bring the database back."""
    real = connections["default"]
    broken = type(real)({**real.settings_dict, "PORT": "1", "NAME": "/nonexistent/db"}, "broken")
    monkeypatch.setattr(views, "connection", broken)
    with override_settings(REDIS_URL="redis://127.0.0.1:1/0"):
        assert client.get("/readyz").status_code == 503
        live = client.get("/livez")
    broken.close()
    assert live.status_code == 200 and live.json() == {"status": "ok"}


def test_readiness_checks_database_broker_and_storage(client, redis_url):
    with override_settings(REDIS_URL=redis_url):
        ready, health = client.get("/readyz"), client.get("/healthz")
    assert ready.status_code == health.status_code == 200
    checks = ready.json()["checks"]
    assert set(checks) == {"database", "broker", "storage"}
    assert checks["storage"] == {"ok": True, "detail": "filesystem"}
    assert health.json() == ready.json()  # /healthz is readiness under its older name


def test_storage_that_cannot_take_files_is_not_ready(client, settings, tmp_path):
    from django.core.files.storage import FileSystemStorage

    from common.health import storage_status

    folder = tmp_path / "media"
    assert storage_status(FileSystemStorage(location=folder / "not-yet")) == {
        "ok": True,  # Django creates the folder with the first file
        "detail": "filesystem",
    }
    occupied = tmp_path / "plain-file"  # a file where the folder should be
    occupied.write_text("x")
    refused = storage_status(FileSystemStorage(location=occupied / "evidence"))
    assert refused == {
        "ok": False,
        "detail": f"filesystem: {occupied / 'evidence'} is not writable",
    }

    settings.MEDIA_ROOT = str(occupied)  # the default storage follows MEDIA_ROOT
    with override_settings(REDIS_URL=""):
        response = client.get("/readyz")
    assert response.status_code == 503 and response.json()["failing"] == ["storage"]


def test_an_object_store_that_does_not_answer_is_not_ready():
    from django.core.files.storage import Storage

    from common.health import storage_status

    class Unreachable(Storage):
        def exists(self, name):
            raise ConnectionError("connection refused by 127.0.0.1:1")

    class Reachable(Storage):
        def exists(self, name):
            return False

    assert storage_status(Unreachable()) == {
        "ok": False,
        "detail": "ConnectionError: connection refused by 127.0.0.1:1",
    }
    assert storage_status(Reachable()) == {"ok": True, "detail": "Reachable"}


def test_probes_are_public_and_say_nothing_to_strangers(redis_url):
    from django.test import Client

    anonymous = Client()
    with override_settings(REDIS_URL=redis_url):
        for path in ("/livez", "/readyz"):
            response = anonymous.get(path)
            assert response.status_code == 200 and response.json() == {"status": "ok"}, path
