"""Evidence files behind my scores: what is accepted (size, type, content matching the type,
names without paths or hidden characters), and attaching a file to my own score."""

from __future__ import annotations

import hashlib
import mimetypes
import unicodedata
import uuid

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.db import transaction
from django.utils.translation import gettext as _

from common.exceptions import Forbidden
from common.parsing import InputRefused, json_loads
from evaluations.locking import evaluation_lock_for

from ..conflicts import require_clear
from ..models import Evidence, Score

EVIDENCE_TYPES = {
    "application/pdf": ".pdf",
    "image/png": ".png",
    "image/jpeg": ".jpg",
    "text/plain": ".txt",
    "text/csv": ".csv",
    "application/json": ".json",
    "application/zip": ".zip",
}


def clean_file_name(name: str) -> str:
    """The name of an uploaded file as it may be kept (as data, never as a path): refused with
    a path or control or direction characters in it, cut to 200 characters."""
    if not name or "/" in name or "\\" in name or name.startswith(".") or ".." in name:
        raise ValidationError(
            {"file": _("The file name may not contain a path; rename it and upload again.")}
        )
    # Control and format characters (bidi overrides such as U+202E turn "gpj.exe" into
    # "exe.jpg" on screen, zero-width ones hide text) have no place in a file name.
    if any(unicodedata.category(ch) in ("Cc", "Cf") for ch in name):
        raise ValidationError(
            {"file": _("The file name contains control or direction characters; rename it.")}
        )
    return name[:200]


# What each accepted type's content starts with. Text types must be UTF-8 text and not markup
# a browser would render (HTML, SVG, XML), whatever the name says.
MAGIC = {
    "application/pdf": (b"%PDF-",),
    "image/png": (b"\x89PNG\r\n\x1a\n",),
    "image/jpeg": (b"\xff\xd8\xff",),
    "application/zip": (b"PK\x03\x04", b"PK\x05\x06"),
}
MARKUP = (b"<!doctype", b"<html", b"<svg", b"<?xml", b"<script", b"<body", b"<head", b"<iframe")


def content_matches(content_type: str, content: bytes) -> bool:
    """Whether the bytes are what `content_type` (guessed from the name) says they are. JSON
    too deep or too large to parse in bounded memory raises InputRefused (common.parsing)."""
    if content_type in MAGIC:
        return content.startswith(MAGIC[content_type])
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError:
        return False
    if text.lstrip()[:64].lower().encode().startswith(MARKUP):
        return False
    if content_type == "application/json":
        try:
            json_loads(text)
        except InputRefused:
            raise
        except ValueError:
            return False
    return True


def too_large_message(size: int) -> str:
    return _("The file is %(size)s bytes; the limit is %(max)s.") % {
        "size": size,
        "max": settings.EVIDENCE_MAX_BYTES,
    }


def upload_refusal(request) -> str | None:
    """Why the request's file is missing, when the upload was stopped at the size limit
    (common.uploads.SizeLimitUploadHandler); None otherwise."""
    size = getattr(request, "upload_too_large", None)
    return too_large_message(size) + " " + _("Only the first part was read.") if size else None


@transaction.atomic
def evidence_add(*, user, score: Score, upload) -> Evidence:
    """Attach a file to my own score. Size and type are limited; the SHA-256 is recorded."""
    evaluation_lock_for(user, score.case.evaluation, "poc.score")
    if score.reviewer_id != user.pk:
        raise Forbidden(_("You can attach evidence to your own scores only."))
    require_clear(user, score.candidate)
    name = clean_file_name(upload.name)
    if upload.size > settings.EVIDENCE_MAX_BYTES:
        raise ValidationError({"file": too_large_message(upload.size)})
    guessed = mimetypes.guess_type(name)[0] or ""
    if guessed not in EVIDENCE_TYPES:
        raise ValidationError(
            {
                "file": _("Files of this type are not accepted. Use: %(types)s.")
                % {"types": ", ".join(sorted(set(EVIDENCE_TYPES.values())))}
            }
        )
    digest = hashlib.sha256()
    chunks = []
    for chunk in upload.chunks():
        digest.update(chunk)
        chunks.append(chunk)
    try:
        matches = content_matches(guessed, b"".join(chunks))
    except InputRefused as exc:
        raise ValidationError({"file": str(exc)}) from None
    if not matches:
        raise ValidationError(
            {
                "file": _(
                    "The content of this file is not a %(type)s file, whatever its name says; "
                    "upload the real file."
                )
                % {"type": EVIDENCE_TYPES[guessed]}
            }
        )
    # A random stored name: the original is kept only as data, never as a path.
    stored = f"{uuid.uuid4().hex}{EVIDENCE_TYPES[guessed]}"
    evidence = Evidence(
        score=score,
        original_name=name,
        content_type=guessed,
        size=upload.size,
        sha256=digest.hexdigest(),
        uploaded_by=user,
    )
    evidence.file.save(stored, ContentFile(b"".join(chunks)), save=False)
    evidence.save()
    return evidence
