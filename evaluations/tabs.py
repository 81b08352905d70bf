"""Sections other apps add to an evaluation's tab bar (registered in their AppConfig.ready)."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Tab:
    key: str
    label: str  # a lazy translation
    url_name: str  # takes the evaluation's pk as `pk`; shown before the Decision tab


TABS: list[Tab] = []


def register_tab(tab: Tab) -> None:
    if all(t.key != tab.key for t in TABS):
        TABS.append(tab)
