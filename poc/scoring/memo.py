"""Results kept by what they were computed from: the robustness runs, the sensitivity and the
agreement of a results page depend only on plain values (the plan, the cell scores, the
candidates), so the same values give the same figures. `remembered` keeps the last few results
per function under a key made of every argument's content, never of an object's identity or
of a stamp: a changed score, weight or case makes a different key, so a kept figure can never
be out of date. What is kept is read only by its callers (frozen dataclasses, numbers)."""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import fields, is_dataclass
from decimal import Decimal

KEPT = 32  # per function: a few evaluations × viewers (blind reviewers see other values)


def content_key(value) -> object:
    """A hashable key equal for equal content only: Decimals by their digits and exponent (3.0
    and 3 print differently, so they are told apart), mappings by their sorted items, sequences
    and dataclasses by their parts. Mappings of scores (thousands of cells) take the short way:
    their keys are compared as they are and their values as leaves or sequences of leaves."""
    kind = type(value)
    if kind is dict:
        items = [(k, _value(v)) for k, v in value.items()]
        try:
            return ("m", tuple(sorted(items)))
        except TypeError:  # keys of different kinds
            return ("m", tuple(sorted((content_key(k), v) for k, v in items)))
    if kind is Decimal or kind is float:
        return (kind.__name__, str(value))
    if value is None or kind in (str, int, bool):
        return value
    if isinstance(value, Mapping):
        return ("m", tuple(sorted((content_key(k), content_key(v)) for k, v in value.items())))
    if isinstance(value, (list, tuple)):
        return ("s", tuple(content_key(v) for v in value))
    if isinstance(value, (set, frozenset)):
        return ("set", tuple(sorted((content_key(v) for v in value), key=repr)))
    if is_dataclass(value):
        parts = tuple(content_key(getattr(value, f.name)) for f in fields(value))
        return (type(value).__qualname__, parts)
    raise TypeError(f"no content key for {type(value).__name__}")


def _value(value) -> object:
    """A mapping's value: a Decimal by its text, a list of Decimals by theirs, else in full."""
    kind = type(value)
    if kind is Decimal:
        return (str(value),)  # a tuple: never equal to a str value
    if value is None:
        return None
    if kind is list and all(type(v) is Decimal for v in value):
        return ("l", *map(str, value))
    return content_key(value)


def remembered(function):
    kept: OrderedDict = OrderedDict()
    lock = threading.Lock()

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        key = (content_key(args), content_key(kwargs))
        with lock:
            if key in kept:
                kept.move_to_end(key)
                return kept[key]
        result = function(*args, **kwargs)
        with lock:
            kept[key] = result
            while len(kept) > KEPT:
                kept.popitem(last=False)
        return result

    wrapper.forget = kept.clear
    return wrapper
