"""The accelerator table's rules: no holes, and no contradiction with the entries' claims.

* every active entry has a row for every accelerator family; an "unknown" row says what was
  read (its sources and note) and when (its checked-on day);
* an entry whose localised-accelerators claim is "none" has no domestic family supported;
* an entry whose heterogeneous-accelerators claim is "none" supports at most one family;
* a family that a supporting accelerator claim names (by name or alias, in a sentence that
  does not negate or restrict: no "not", "no", "only", "without") has a row that is neither
  unknown nor none.

`table_problems` lists what breaks a rule, in English, for the suite and administrators.
"""

from __future__ import annotations

import re

from .choices import SupportLevel
from .models import AcceleratorFamily, AcceleratorSupport, CapabilityClaim, Solution

ACCELERATOR_CLAIMS = ("heterogeneous-accelerators", "localised-accelerators")
SUPPORTED = {SupportLevel.NATIVE, SupportLevel.ADDON, SupportLevel.PARTIAL}
NEGATION = re.compile(r"\b(not|no|only|without|none)\b|n't", re.IGNORECASE)
SENTENCE = re.compile(r"(?<=[.;:!?])\s+")


def named_supported(text: str, families) -> set[int]:
    """Families named in `text` in a sentence that does not negate or restrict."""
    found = set()
    for sentence in SENTENCE.split(text or ""):
        if NEGATION.search(sentence):
            continue
        found |= {f.pk for f in families if f.named_in(sentence)}
    return found


def table_problems() -> list[str]:
    families = list(AcceleratorFamily.objects.all())
    rows: dict[tuple[int, int], AcceleratorSupport] = {
        (r.solution_id, r.family_id): r
        for r in AcceleratorSupport.objects.prefetch_related("sources")
    }
    claims: dict[int, dict[str, CapabilityClaim]] = {}
    for claim in CapabilityClaim.objects.filter(
        capability__slug__in=ACCELERATOR_CLAIMS
    ).select_related("capability"):
        claims.setdefault(claim.solution_id, {})[claim.capability.slug] = claim
    problems = []
    for solution in Solution.objects.filter(is_active=True):
        mine = {f.pk: rows.get((solution.pk, f.pk)) for f in families}
        for family in families:
            row = mine[family.pk]
            where = f"{solution.slug}/{family.slug}"
            if row is None:
                problems.append(f"{where}: no row")
            elif row.level == SupportLevel.UNKNOWN and not (
                row.note_en and row.note_zh_hans and row.checked_on and row.sources.all()
            ):
                problems.append(f"{where}: unknown without what was read and when")
        supported = {pk for pk, r in mine.items() if r and r.level in SUPPORTED}
        own = claims.get(solution.pk, {})
        local = own.get("localised-accelerators")
        if local and local.level == SupportLevel.NONE:
            for family in families:
                if family.is_domestic and family.pk in supported:
                    problems.append(
                        f"{solution.slug}/{family.slug}: supported, but the "
                        "localised-accelerators claim says none"
                    )
        hetero = own.get("heterogeneous-accelerators")
        if hetero and hetero.level == SupportLevel.NONE and len(supported) > 1:
            problems.append(
                f"{solution.slug}: several families supported, but the "
                "heterogeneous-accelerators claim says none"
            )
        for claim in own.values():
            if claim.level not in SUPPORTED | {SupportLevel.NATIVE}:
                continue
            for pk in named_supported(claim.note_en or "", families):
                if pk not in supported:
                    family = next(f for f in families if f.pk == pk)
                    problems.append(
                        f"{solution.slug}/{family.slug}: the {claim.capability.slug} claim "
                        "names it, but its row is not supported"
                    )
    return problems
