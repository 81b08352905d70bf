"""How much of an exhaustive walk the default run takes.

The walks over values (the hostile corpus, the API fuzz) keep every route, form, operation and
field in every run. By default each field meets every *kind* of hostile value, one variant of
each kind chosen by the field's name (so different fields meet different variants and the run
as a whole still sends every one); `SHORTLIST_EXHAUSTIVE=1` sends every variant to every field
and draws more fuzz cases per operation.
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Callable, Iterable
from typing import TypeVar

EXHAUSTIVE = os.environ.get("SHORTLIST_EXHAUSTIVE", "") not in ("", "0")

T = TypeVar("T")


def one_of_each(values: Iterable[T], *, kind: Callable[[T], str], key: str) -> list[T]:
    """Every value when exhaustive; otherwise one value of each kind, which one decided by a
    stable hash of `key` (the same choice on every run and every machine), in their order."""
    values = list(values)
    if EXHAUSTIVE:
        return values
    groups: dict[str, list[T]] = {}
    for value in values:
        groups.setdefault(kind(value), []).append(value)
    spin = zlib.crc32(key.encode())
    chosen = {id(group[spin % len(group)]) for group in groups.values()}
    return [value for value in values if id(value) in chosen]
