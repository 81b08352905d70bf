"""Rendered evaluation tabs kept while nothing they show has changed.

The heavy tabs (overview, shortlist, questions, matrices, costs, POC plan, scorecard, results,
history) are functions of
the evaluation's data, the shared reference data, the viewer and the request. The evaluation's
status stamp (evaluations.digests) moves with every change to the first two, in the writer's
transaction, so a page rendered under one stamp is still right as long as the stamp has not
moved. A view opts in with `page_cache = True`; its GET answer is then kept in the "pages" cache
under a key made of:

* the release (common.release): a deploy never serves the previous release's HTML;
* the evaluation and its stamp with the stamp's epoch, read *before* the page reads any data
  (as digests do): a render that races a writer is filed under the old stamp, which no later
  request asks for, and a database restored from a backup, which takes stamps back to numbers
  they had passed, never meets an epoch drawn since;
* the viewer, their site-wide roles (granted by an administrator), their role in this
  evaluation (read with the membership check, so a role changed by a write that moves no stamp
  still gets its own page: an owner's scorecard names reviewers a reviewer must not see), and
  their CSRF secret (the forms on the page carry a token made from it);
* the language, the time zone and today's date (freshness marks depend on it);
* the full path with its query string and the htmx headers (a fragment is not a page).

Not kept: answers other than 200 HTML, a request with messages waiting to be shown, a request
that wrote (digests.wrote_here), a viewer without a CSRF cookie. Membership is checked before
the cache is read, on every request. Writes made outside the application are caught by the
expiry (PAGE_CACHE_SECONDS, at most ROW_STATUS_MAX_AGE).
"""

from __future__ import annotations

import hashlib

from django.conf import settings
from django.contrib import messages
from django.core.cache import caches
from django.http import HttpResponse
from django.utils import timezone
from django.utils.translation import get_language

from common.release import release_id
from common.roles import user_roles

from . import digests
from .rules import member_role

CACHE = "pages"


def _key(request, evaluation, stamp: str) -> str | None:
    secret = request.META.get("CSRF_COOKIE")
    if not secret:
        return None
    user = request.user
    parts = [
        release_id(),
        str(evaluation.pk),
        stamp,
        str(user.pk),
        ",".join(user_roles(user)),  # read by the navigation anyway (context processor)
        member_role(user, evaluation) or "",  # read with the membership check (selectors)
        secret,
        get_language() or "",
        timezone.get_current_timezone_name(),
        timezone.localdate().isoformat(),
        request.get_full_path(),
        *(f"{k}={v}" for k, v in sorted(request.headers.items()) if k.lower().startswith("hx-")),
    ]
    digest = hashlib.sha256("\x1f".join(parts).encode()).hexdigest()
    return f"page:{evaluation.pk}:{digest}"


def _cacheable_request(request) -> bool:
    return (
        settings.PAGE_CACHE_SECONDS > 0
        and request.method == "GET"
        and not len(messages.get_messages(request))  # len() does not mark them as shown
    )


def serve(request, evaluation, render) -> HttpResponse:
    """The page `render()` would give, from the cache while the evaluation's stamp and the
    request's key are unchanged. `evaluation` is the one the member-only selector loaded."""
    if not _cacheable_request(request):
        return render()
    key = _key(request, evaluation, digests.page_stamp(evaluation.pk))
    if key is None:
        return render()
    cache = caches[CACHE]
    kept = cache.get(key)
    if kept is not None:
        content_type, content = kept
        response = HttpResponse(content, content_type=content_type)
        response["X-Page-Cache"] = "hit"
        return response
    response = render()
    if (
        response.status_code == 200
        and not response.streaming
        and response.get("Content-Type", "").startswith("text/html")
        and not response.cookies
        and not digests.wrote_here()
    ):
        if hasattr(response, "render") and not response.is_rendered:
            response.render()
        cache.set(key, (response["Content-Type"], response.content), settings.PAGE_CACHE_SECONDS)
    return response
