"""A report's part of the POC's feedback into the facts: each candidate's test bed and the
capabilities its POC verified or contradicted, as plain JSON values in a fixed order."""

from __future__ import annotations

from ..testbeds import Bed as RuleBed
from ..testbeds import bed_mismatch
from ..verification import poc_verification


def _bed(bed) -> dict | None:
    if bed is None:
        return None
    return {
        "product_version": bed.product_version,
        "components": bed.components,
        "accelerator": bed.accelerator,
        "accelerator_count": bed.accelerator_count,
        "nodes": bed.nodes,
        "tested_from": bed.tested_from.isoformat() if bed.tested_from else None,
        "tested_to": bed.tested_to.isoformat() if bed.tested_to else None,
        "notes": bed.notes,
    }


def verification_snapshot(evaluation, card) -> dict:
    """Test beds, whether they differ, and the POC's findings per candidate, from the report's
    scorecard (read with every score: the report's POC sections are blind-gated where they are
    requested)."""
    verification = poc_verification(evaluation, None, card=card)
    rows = [(cf.candidate, cf.bed) for cf in verification.candidates]
    mismatch = bed_mismatch(
        [RuleBed(c.name, b.accelerator, b.accelerator_count, b.nodes) for c, b in rows if b]
    )
    return {
        "test_beds": [{"candidate": c.name, "bed": _bed(b)} for c, b in rows],
        "beds_differ": {
            "accelerators": bool(mismatch.accelerators),
            "scale": bool(mismatch.scale),
        },
        "any": verification.any,
        "findings": [
            {
                "candidate": cf.candidate.name,
                "version": cf.version,
                "capabilities": [
                    {
                        "capability": f.capability.name,
                        "status": f.finding.status,
                        "catalog_level": f.claim.level if f.claim else "unknown",
                        "cases": [case.text("title") for case in f.cases],
                    }
                    for f in cf.findings
                ],
            }
            for cf in verification.candidates
        ],
    }
