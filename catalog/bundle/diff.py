"""What a bundle would change, row by row."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from .common import KINDS, STATUSES
from .export import catalog_data
from .normalise import normalise
from .read import Bundle


@dataclass
class FieldChange:
    field: str
    old: Any
    new: Any


@dataclass
class RowDiff:
    kind: str
    key: str
    status: str  # one of STATUSES
    changes: list[FieldChange] = field(default_factory=list)
    old: dict | None = None  # this installation's values (None when new)
    new: dict | None = None  # the bundle's values (None when kept)

    def change(self, name: str) -> FieldChange | None:
        return next((c for c in self.changes if c.field == name), None)


@dataclass
class Diff:
    """What applying a bundle would do, row by row (KINDS × STATUSES), and `state`: a digest
    of this installation's catalog when the diff was made, so an apply can refuse when the
    catalog changed since its preview."""

    rows: dict[str, list[RowDiff]]
    state: str

    def counts(self) -> dict[str, dict[str, int]]:
        out = {kind: dict.fromkeys(STATUSES, 0) for kind in KINDS}
        for kind, rows in self.rows.items():
            for row in rows:
                out[kind][row.status] += 1
        return out

    def of(self, kind: str, status: str) -> list[RowDiff]:
        return [r for r in self.rows[kind] if r.status == status]

    @property
    def changes_anything(self) -> bool:
        return any(r.status in ("new", "changed") for rows in self.rows.values() for r in rows)


def _state(rows: dict) -> str:
    text = json.dumps(rows, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def current_rows() -> dict[str, dict[str, dict]]:
    """This installation's rows, normalised as a bundle's are (what the loader would refuse
    in a bundle, an admin may have saved here: it is compared, not refused)."""
    return normalise(catalog_data(), strict=False)


def bundle_diff(bundle: Bundle) -> Diff:
    """Compare a bundle with this installation's catalog, row by row (matched by slug or key)."""
    ours = current_rows()
    out: dict[str, list[RowDiff]] = {}
    for kind in KINDS:
        theirs, here = bundle.rows[kind], ours[kind]
        rows = []
        for key, new in theirs.items():
            old = here.get(key)
            if old is None:
                rows.append(RowDiff(kind, key, "new", new=new))
                continue
            changes = [FieldChange(f, old.get(f), v) for f, v in new.items() if old.get(f) != v]
            status = "changed" if changes else "unchanged"
            rows.append(RowDiff(kind, key, status, changes, old=old, new=new))
        rows += [RowDiff(kind, k, "kept", old=v) for k, v in here.items() if k not in theirs]
        out[kind] = rows
    return Diff(rows=out, state=_state(ours))
