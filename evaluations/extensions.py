"""The public extension point of evaluations: how a higher app (poc, responsibility, reports,
portable) adds to what evaluations does without evaluations importing or naming it.

Each app registers one `Contribution` from its AppConfig.ready(). Today a contribution carries
the checks the decided gate runs and the test of a report complete enough to sign; the older
hand-made registries (tabs, candidate facts, reminders, history sources, seeding) are to move
here one by one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Contribution:
    app: str
    # (user, evaluation, reason, missing) → None: runs when an evaluation is marked decided,
    # after evaluations' own checks found `missing` (a list of items); raises
    # evaluations.services.GateRefused with `missing` and its own open items, or returns.
    decided_gate: Callable | None = None
    # (report run) → bool: whether the run prints the whole report, so that an approval can
    # sign it (evaluations/approvals.py).
    report_complete: Callable | None = None


CONTRIBUTIONS: dict[str, Contribution] = {}


def contribute(contribution: Contribution) -> None:
    """Register an app's contribution (once per app; registering again replaces it)."""
    CONTRIBUTIONS[contribution.app] = contribution


def decided_gate_checks() -> list[Callable]:
    return [c.decided_gate for c in CONTRIBUTIONS.values() if c.decided_gate]


def report_complete(run) -> bool:
    """Every contributed test passes (none contributed: nothing more to ask)."""
    return all(c.report_complete(run) for c in CONTRIBUTIONS.values() if c.report_complete)
