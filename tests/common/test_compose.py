"""docker-compose.yml cannot run here (no Docker engine), so check what each service runs."""

import shlex
from pathlib import Path

import yaml
from django.core.management import get_commands

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def app_commands(command) -> list[list[str]]:
    """Split a compose command (list or string, maybe `sh -c "a && b"`) into argv lists."""
    argv = command if isinstance(command, list) else shlex.split(command)
    if argv[:2] == ["sh", "-c"]:
        return [shlex.split(part) for part in argv[2].split("&&")]
    return [argv]


def check_argv(argv: list[str]) -> None:
    program = argv[0]
    if program == "python" and argv[1] == "manage.py":
        assert (ROOT / "manage.py").exists()
        assert argv[2] in get_commands(), f"no management command {argv[2]!r}"
    elif program == "gunicorn":
        module, _, attr = argv[1].partition(":")
        path = ROOT / (module.replace(".", "/") + ".py")
        assert path.exists(), path
        assert f"{attr} =" in path.read_text()
    elif program == "celery":
        app_module = argv[argv.index("-A") + 1]
        assert (ROOT / app_module / "celery_app.py").exists()
        assert (ROOT / app_module / "__init__.py").read_text().count("celery_app") >= 1
        assert argv[argv.index("-A") + 2] in {"worker", "beat"}
    else:
        raise AssertionError(f"unexpected program {program!r}")


def test_expected_services():
    assert {"postgres", "redis", "migrate", "web", "worker", "beat"} <= set(COMPOSE["services"])


def test_every_app_service_builds_from_the_dockerfile_and_runs_something_real():
    dockerfile = (ROOT / "Dockerfile").read_text()
    for pkg in ("libpango-1.0-0", "libpangoft2-1.0-0", "libharfbuzz-subset0", "fonts-noto-cjk"):
        assert pkg in dockerfile
    app_services = {n: s for n, s in COMPOSE["services"].items() if s.get("build")}
    assert set(app_services) == {"migrate", "web", "worker", "beat"}
    for name, service in app_services.items():
        assert service["build"] == "."
        for argv in app_commands(service["command"]):
            check_argv(argv)
        assert "DATABASE_URL" in service["environment"], name
        assert "REDIS_URL" in service["environment"], name
    cmd = next(line for line in dockerfile.splitlines() if line.startswith("CMD"))
    check_argv(yaml.safe_load(cmd.removeprefix("CMD")))


def test_migrate_job_seeds_the_catalog():
    steps = [argv[2] for argv in app_commands(COMPOSE["services"]["migrate"]["command"])]
    assert steps == ["migrate", "seed"]
