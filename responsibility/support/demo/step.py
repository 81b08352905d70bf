"""The support terms' demo step, as the owner: Run:ai's terms complete, the enterprise
platform's with gaps (no P3 times, no security-patch time), so the comparison shows both a
marked best value and an empty cell."""

from __future__ import annotations

from common.demo import DemoState, exact
from evaluations.demo import demo_owner

from .. import services
from . import FILES


def load(state: DemoState) -> None:
    data, t = FILES.data, FILES.texts(state.language)
    lead = demo_owner(state)
    for key, terms in data["terms"].items():
        candidate = state.candidates.get(key)
        if candidate is None:
            continue
        for term, given in terms.items():
            amount = given.get("amount")
            services.support_term_save(
                user=lead,
                candidate=candidate,
                term=term,
                expected_version=0,
                amount=exact(amount) if amount is not None else None,
                text="" if amount is not None else t["texts"][key][term],
                source_kind=given["source_kind"],
                source=t["sources"][given["source_kind"]],
            )
