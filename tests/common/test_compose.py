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


def test_app_services_share_one_private_bucket_and_scale_out():
    services = COMPOSE["services"]
    bucket_job = " ".join(services["minio-bucket"]["entrypoint"])
    for name in ("migrate", "web", "worker", "beat"):
        env = services[name]["environment"]
        host = env["S3_ENDPOINT_URL"].split("://", 1)[1].split(":", 1)[0]
        assert services[host]["image"].startswith("minio/"), name
        assert f"mc mb --ignore-existing local/{env['S3_BUCKET']}" in bucket_job
        assert env["S3_ACCESS_KEY_ID"] in bucket_job and "S3_SECRET_ACCESS_KEY" in env
    assert f"mc anonymous set none local/{services['web']['environment']['S3_BUCKET']}" in (
        bucket_job
    )
    deps = services["migrate"]["depends_on"]
    assert deps["minio-bucket"]["condition"] == "service_completed_successfully"
    # `--scale web=2`: a host port range, one port per replica.
    (ports,) = services["web"]["ports"]
    first, _, last = ports.rsplit(":", 1)[0].partition("-")
    assert last and int(last) > int(first)
    assert "--scale web=2 --scale worker=2" in (ROOT / "docker-compose.yml").read_text()
