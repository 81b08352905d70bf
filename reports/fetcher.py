"""WeasyPrint's URL fetcher: the app's own bundled static files and data: URLs, nothing else.

No http(s), no file://, no redirects: a report is built from stored data and the app's own
CSS, so any other URL in it is a bug or an attack, and fetching it is refused (and recorded,
so tests can prove that nothing went out).
"""

from __future__ import annotations

import mimetypes
from pathlib import Path

from django.conf import settings
from django.contrib.staticfiles import finders
from weasyprint.urls import URLFetcher, URLFetcherResponse

STATIC_PREFIX = "/" + settings.STATIC_URL.lstrip("/")
# The base URL given to WeasyPrint: relative URLs resolve against it and stay "ours".
BASE_URL = "shortlist-static://app" + STATIC_PREFIX


class FetchRefused(ValueError):
    pass


def static_path(url: str) -> Path | None:
    """The file behind one of our static URLs, or None when the URL is not ours."""
    if not url.startswith(BASE_URL):
        return None
    relative = url[len(BASE_URL) :].split("?", 1)[0].split("#", 1)[0]
    if not relative or ".." in relative.split("/"):
        return None
    found = finders.find(relative)
    return Path(found) if found else None


class SafeURLFetcher(URLFetcher):
    def __init__(self):
        # Only data: is handed to urllib (no network, no files); no redirects at all.
        super().__init__(allowed_protocols={"data"}, allow_redirects=False)
        self.fetched: list[str] = []
        self.refused: list[str] = []

    def fetch(self, url, headers=None):
        if url.startswith("data:"):
            self.fetched.append(url[:40])
            return super().fetch(url, headers)
        path = static_path(url)
        if path is None:
            self.refused.append(url)
            raise FetchRefused(f"Refused {url[:200]!r}: reports load only bundled assets.")
        self.fetched.append(url)
        mime = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        return URLFetcherResponse(url, path.read_bytes(), {"Content-Type": mime})
