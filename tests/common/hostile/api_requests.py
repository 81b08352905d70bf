"""Building an API write's valid body, sending each hostile value in it, and judging the answer."""

from __future__ import annotations

from tests.common.hostile.api_ops import (
    ApiOp,
    api_kind,
    api_verdict,
    json_body,
)
from tests.common.hostile.corpus import CORPUS, RAW
from tests.common.hostile.judging import Tally, describe_response, in_savepoint, judge, upload
from tests.common.hostile.world import World
from tests.sampling import one_of_each


def default_value(name: str, prop: dict, fresh: str):
    """A valid-looking value for a property the GET did not give."""
    if "enum" in prop:
        return next(v for v in prop["enum"] if v not in ("", None))
    kind, fmt = prop.get("type"), prop.get("format")
    if kind == "array":
        return []
    if kind == "boolean":
        return False
    if kind == "integer":
        return prop.get("minimum", 1)
    if kind == "object":
        return {}
    if fmt == "decimal":
        return "1"
    if fmt == "date":
        return "2027-01-15"
    if fmt == "uri":
        return "https://example.test/hostile"
    if name in ("slug", "key"):
        return fresh
    return f"Hostile corpus {name}"


def base_body(api, world: World, op: ApiOp) -> tuple[dict, dict]:
    """A valid body (the resource's current values where a GET has them, then the schema's
    defaults, then World.overrides) and the If-Match-free version it edits."""
    body = {}
    if op.method in ("put", "patch") or "version" in op.properties:
        # The resource's GET, or its parent's (a cell's row, an eliminate's candidate).
        path, got = op.path, api.get(op.path)
        while got.status_code != 200 and path.rstrip("/").count("/") > 2:
            path = path.rstrip("/").rsplit("/", 1)[0] + "/"
            got = api.get(path)
        if got.status_code == 200 and got.get("Content-Type", "").startswith("application/json"):
            current = got.json()
            if isinstance(current.get("answer"), dict):  # an answer wrapped with its question
                current = {**current["answer"], **current}
            body = {k: current[k] for k in op.properties if k in current}
            if "version" in op.properties and got.get("ETag"):
                body["version"] = int(got["ETag"].strip('"'))
    if op.method == "post" and op.as_admin:
        template_item = api.get(op.path)
        rows = template_item.json() if template_item.status_code == 200 else []
        rows = rows.get("results", rows) if isinstance(rows, dict) else rows
        if rows:
            body = {k: rows[0][k] for k in op.properties if k in rows[0]}
    for name in ("slug", "key"):
        if op.method == "post" and name in op.properties:
            body[name] = "hostile-corpus"
    for name in op.required:
        if name not in body and name in op.properties:
            body[name] = default_value(name, op.properties[name], "hostile-corpus")
    body.update(world.overrides(op))
    files = {}
    for name, prop in op.properties.items():
        if prop.get("format") == "binary" or (op.multipart and prop.get("format") == "uri"):
            body.pop(name, None)
            files[name] = "run.txt"
    body = {k: v for k, v in body.items() if v is not None or op.properties[k].get("nullable")}
    return body, files


def api_request(api, op: ApiOp, body: dict, files: dict, content: bytes | None = None):
    if op.multipart:
        data = {k: v for k, v in body.items()}
        data.update({k: upload(name, content) for k, name in files.items()})
        return getattr(api, op.method)(op.path, data, format="multipart")
    return getattr(api, op.method)(op.path, json_body(body), content_type="application/json")


def corpus_for(op: ApiOp, name: str, prop: dict):
    """(value sent, Value, field kind) for one property: an array's items get the scalar values
    one at a time; the array itself gets the structures and null."""
    kind = api_kind(name, prop)
    if op.multipart and prop.get("format") in ("binary", "uri"):
        kind = "file"
    sendable = []
    for value in CORPUS:
        if kind == "file":
            if isinstance(value.api, str) and not value.api.startswith(RAW):
                sendable.append((value.api, value, kind))
            continue
        if kind == "list" and value.kind not in ("structure", "null"):
            sendable.append(([value.api], value, api_kind("", prop.get("items", {}))))
            continue
        if op.multipart and not isinstance(value.api, str):
            continue
        sendable.append((value.api, value, kind))
    return one_of_each(sendable, kind=lambda sent: sent[1].kind, key=f"{op.label} {name}")


def run_api_op(client_for, world: World, op: ApiOp, tally: Tally, fingerprint, before):
    api = client_for(op)
    body, files = base_body(api, world, op)
    name, content = world.upload_for(op.template) or ("run.txt", None)
    files = {k: name for k in files}

    def refused(response):
        return api_verdict(response, "")[0] != "accepted"

    base, _changed = in_savepoint(
        lambda: api_request(api, op, body, files, content), fingerprint, before, refused
    )
    if isinstance(base, Exception) or base.status_code >= 300:
        tally.fail(op.label, "the valid body is refused", body, describe_response(base))
        return
    tally.targets += 1
    for name, prop in op.properties.items():
        if name not in op.fuzzed:
            continue
        tally.fields += 1
        for sent, value, kind in corpus_for(op, name, prop):
            if kind == "file":
                this_files = {**files, name: sent}
                this_body = body
            else:
                this_files, this_body = files, {**body, name: sent}

            response, changed = in_savepoint(
                lambda b=this_body, f=this_files: api_request(api, op, b, f, content),
                fingerprint,
                before,
                refused,
            )
            tally.requests += 1
            tally.sent.add(value.label)
            nullable = bool(prop.get("nullable"))
            judge(
                tally, op.label, name, kind, value, response, changed,
                page=False, nullable=nullable,
            )  # fmt: skip
