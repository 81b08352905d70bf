"""The release this process runs: what a cache of rendered pages must be keyed by, so that HTML
kept by the previous release is never served after a deploy.

Set SHORTLIST_RELEASE (a version or a commit) where the deploy knows it; otherwise it is drawn
from the code itself: a digest of the project's Python modules, templates, static files and
compiled translations, read once per process."""

from __future__ import annotations

import hashlib
import os
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
READ = ("*.py", "*.html", "*.css", "*.js", "*.mo", "*.yaml")
SKIPPED = {".venv", "node_modules", "var", "tests", "media", "test-artifacts", ".git", "site"}


def _files():
    for folder, subfolders, names in os.walk(ROOT):
        subfolders[:] = sorted(d for d in subfolders if d not in SKIPPED and not d.startswith("."))
        for name in sorted(names):
            path = Path(folder, name)
            if any(path.match(pattern) for pattern in READ):
                yield path


@cache
def release_id() -> str:
    given = os.environ.get("SHORTLIST_RELEASE", "").strip()
    if given:
        return given
    digest = hashlib.sha256()
    for path in _files():
        digest.update(str(path.relative_to(ROOT)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]
