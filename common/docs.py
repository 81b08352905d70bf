"""The documentation site at /docs/: the MkDocs build that `make docs` writes to DOCS_SITE_ROOT
(var/docs-site/), served file by file from that folder and from nowhere else.

Anyone may read it, signed in or not: it holds nothing an installation keeps secret. Its answers
keep the app's Content-Security-Policy; an HTML page alone adds the SHA-256 hashes of its own
inline scripts and styles (the Material theme writes a few small ones), computed from the page
being served, so no `'unsafe-inline'` is ever needed and the app's own pages are unchanged.
"""

from __future__ import annotations

import base64
import hashlib
import re
from datetime import UTC, datetime
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.http import FileResponse, Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import condition, require_safe

INLINE_SCRIPT = re.compile(r"<script\b([^>]*)>(.*?)</script\s*>", re.IGNORECASE | re.DOTALL)
INLINE_STYLE = re.compile(r"<style\b[^>]*>(.*?)</style\s*>", re.IGNORECASE | re.DOTALL)
EXTERNAL = re.compile(r"\bsrc\s*=", re.IGNORECASE)
# A data block (the theme's configuration) is never run, so the policy need not allow it.
DATA_BLOCK = re.compile(r"""\btype\s*=\s*["']?application/(?:ld\+)?json\b""", re.IGNORECASE)


def site_root() -> Path:
    return Path(settings.DOCS_SITE_ROOT).resolve()


def is_built(root: Path) -> bool:
    return (root / "index.html").is_file()


def site_file(root: Path, relative: str) -> Path:
    """`relative` inside the built site, or 404: no `..`, no hidden names (`.x`), no absolute
    path, no backslash or empty segment, and nothing that resolves (a link included) outside
    the folder."""
    parts = relative.split("/") if relative else []
    if relative.endswith("/"):
        parts = parts[:-1]
    if "\\" in relative or "\x00" in relative:
        raise Http404
    if any(not part or part.startswith(".") for part in parts):
        raise Http404
    target = root.joinpath(*parts).resolve() if parts else root
    if target != root and root not in target.parents:
        raise Http404
    return target


def sha256_source(text: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"


def inline_hashes(html: str) -> dict[str, list[str]]:
    """The CSP additions one page needs: the hash of every inline script it runs and of every
    inline style element, nothing else."""
    scripts = {
        sha256_source(body)
        for attributes, body in INLINE_SCRIPT.findall(html)
        if not EXTERNAL.search(attributes) and not DATA_BLOCK.search(attributes)
    }
    styles = {sha256_source(body) for body in INLINE_STYLE.findall(html)}
    directives = {"script-src": sorted(scripts), "style-src": sorted(styles)}
    return {name: sources for name, sources in directives.items() if sources}


def _served_file(request, path: str = "") -> Path | None:
    """The file a request gets (None: an answer other than a file, e.g. a redirect)."""
    root = site_root()
    if not is_built(root):
        return None
    target = site_file(root, path)
    if target.is_dir():
        index = target / "index.html"
        return index if (path == "" or path.endswith("/")) and index.is_file() else None
    return target if target.is_file() and not path.endswith("/") else None


def _last_modified(request, path: str = "") -> datetime | None:
    try:
        served = _served_file(request, path)
    except Http404:
        return None
    return datetime.fromtimestamp(served.stat().st_mtime, tz=UTC) if served else None


# Files, not data: no request transaction (and no database connection) for them.
@transaction.non_atomic_requests
@require_safe
@condition(last_modified_func=_last_modified)
def docs(request, path: str = ""):
    root = site_root()
    if not is_built(root):
        return render(request, "docs_missing.html", status=503)
    target = site_file(root, path)
    if target.is_dir():
        if path and not path.endswith("/"):
            return redirect(reverse("docs", kwargs={"path": f"{path}/"}))
        if not (target / "index.html").is_file():
            raise Http404
        target = target / "index.html"
    elif path.endswith("/"):
        # /docs/<page>/: the built site links to its pages by file (it also reads from files).
        page = site_file(root, path.rstrip("/") + ".html")
        if not page.is_file():
            raise Http404
        return redirect(reverse("docs", kwargs={"path": path.rstrip("/") + ".html"}))
    elif not target.is_file():
        raise Http404
    if target.suffix == ".html":
        html = target.read_text(encoding="utf-8")
        response = HttpResponse(html, content_type="text/html; charset=utf-8")
        response._csp_update = inline_hashes(html)
    else:
        response = FileResponse(target.open("rb"))
    response["Cache-Control"] = "no-cache"
    return response
