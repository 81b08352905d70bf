"""Reading what people upload (JSON, YAML, members of a zip) with bounds the input cannot move.

Python's json module recurses once per level of nesting, so `"[" * 200000` ends in a
RecursionError (a 500), and a few hundred kilobytes of `0,0,0,…` become hundreds of megabytes of
Python objects. Every parse of uploaded data goes through here, which refuses before parsing:

* JSON nested deeper than MAX_DEPTH levels (what Shortlist writes and reads is a few levels);
* JSON holding more than `max_values` values (strings, containers and separators, counted
  outside strings), which bounds the memory the parsed result takes;
* a zip member larger than the limit its role allows (a manifest is small), read in chunks so
  that a member is never read further than its limit.

YAML needs no scan of its own: libyaml (the parser PyYAML's wheels carry) stops at 1,000 levels
with a YAMLError, and common.seeding.load_yaml turns the pure-Python loader's RecursionError into
an InputRefused.

Refusals are `InputRefused`, a ValueError whose text says what is wrong, for the caller to put
into its own message (a 400).
"""

from __future__ import annotations

import json
import re
import zipfile

from django.template.defaultfilters import filesizeformat
from django.utils.translation import gettext as _

MAX_DEPTH = 32
MAX_VALUES = 2_000_000
CHUNK = 1024 * 1024

# A string (closed or not: an unclosed one runs to the end, so scanning stays linear), an
# opening or closing bracket, or a separator.
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{},]', re.DOTALL)


class InputRefused(ValueError):
    """Uploaded data refused before it was parsed; the text says why."""


def check_json_bounds(text: str, *, max_depth: int = MAX_DEPTH, max_values: int = MAX_VALUES):
    """Refuse JSON text nested deeper than `max_depth` or holding more than `max_values`
    values, without parsing it."""
    depth = values = 0
    for match in _TOKEN.finditer(text):
        char = text[match.start()]
        if char in "[{":
            depth += 1
            if depth > max_depth:
                raise InputRefused(
                    _(
                        "The data is nested more than %(depth)d levels deep; Shortlist never "
                        "writes or reads data that deep."
                    )
                    % {"depth": max_depth}
                )
        elif char in "]}":
            depth -= 1
            continue
        values += 1
        if values > max_values:
            raise InputRefused(
                _("The data holds more than %(count)s values, more than such a file may hold.")
                % {"count": f"{max_values:,}"}
            )


def json_loads(text: str, *, max_depth: int = MAX_DEPTH, max_values: int = MAX_VALUES, **kwargs):
    """json.loads for uploaded text, refusing (InputRefused) what check_json_bounds refuses;
    invalid JSON raises json.JSONDecodeError (a ValueError) as usual."""
    check_json_bounds(text, max_depth=max_depth, max_values=max_values)
    return json.loads(text, **kwargs)


def read_member(archive: zipfile.ZipFile, name: str, limit: int) -> bytes:
    """The bytes of one member of an uploaded zip, refused (InputRefused) as soon as it is
    found larger than `limit`: by the size its entry declares, or while reading it in chunks."""
    declared = archive.getinfo(name).file_size
    refusal = InputRefused(
        _("%(name)s is larger than %(limit)s, the most such a file may be.")
        % {"name": name, "limit": filesizeformat(limit)}
    )
    if declared > limit:
        raise refusal
    parts, size = [], 0
    with archive.open(name) as stream:
        while chunk := stream.read(min(CHUNK, limit + 1 - size)):
            size += len(chunk)
            if size > limit:
                raise refusal
            parts.append(chunk)
    return b"".join(parts)
