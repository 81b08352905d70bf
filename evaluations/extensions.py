"""The public extension point of evaluations: how a higher app (poc, responsibility, reports,
signoff, portable) adds to what evaluations does without evaluations importing or naming it.

Each app registers one `Contribution` from its AppConfig.ready(): its tabs, the facts it shows
under each candidate on the shortlist, the parties who-questions may name, the checks the
decided gate runs and where a gate item of the app's is put right, the links and panels it adds
to evaluations' pages (and the home page), the action it offers on an unverified capability, its
risk reminders together with the lookups they read (so a list of evaluations still costs a fixed
number of queries), the history rows that belong to an evaluation's timeline, the parts of the
report it builds, the sheets it adds to the evaluation's workbook and what it does when an
evaluation's status changes. evaluations contributes its own built-in reminders the same way.
Seeding stays with common.seeding, below every app.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Tab:
    """A tab an app adds to an evaluation's tab bar (shown before the Decision tab, in the order
    the apps are installed)."""

    key: str
    label: str  # a lazy translation
    url_name: str  # takes the evaluation's pk as `pk`


@dataclass(frozen=True)
class PageLink:
    """A link (a button) an app adds to one of evaluations' pages."""

    place: str  # PLACES
    label: str  # a lazy translation
    url_name: str  # takes the evaluation's pk as `pk` where the place has an evaluation
    perm: str  # the permission the viewer needs (checked on the evaluation where there is one)
    testid: str = ""
    download: bool = False


# Where links go: the overview's actions, the evaluation list's actions, the administrators'
# catalog review page.
PLACES = ("overview", "evaluation_list", "catalog_review")


@dataclass(frozen=True)
class Panel:
    """A block an app adds to a page: its template, included with the page's context and what
    `context(user, evaluation)` adds to it (a dict; the evaluation is None on the home page)."""

    place: str  # PANEL_PLACES
    template: str
    context: Callable | None = None


# Where panels go: the home page (above the viewer's evaluations), the Decision tab (under its
# lead paragraph).
PANEL_PLACES = ("home", "decision")


@dataclass(frozen=True)
class Lookups:
    """What an app's reminders read, loaded with the evaluation (evaluations.selectors): small,
    bounded rows only (a handful per evaluation or candidate); what grows with an evaluation's
    size (POC scores, matrix cells) is read as aggregates through EvaluationData.facts."""

    evaluation_prefetches: tuple = ()
    candidate_prefetches: tuple = ()
    # One-to-one rows read with their owner in the same query (cheaper than a prefetch each).
    evaluation_selects: tuple = ()
    candidate_selects: tuple = ()


@dataclass(frozen=True)
class HistorySource:
    """An app's history rows that belong to an evaluation's timeline (the History tab, the API
    and the report): `rows(evaluation)` gives its history queryset, `describe(record)` names a
    record, `related` is what to select with it."""

    kind: str
    rows: Callable
    describe: Callable
    related: tuple[str, ...] = ()


@dataclass(frozen=True)
class ReportPart:
    """A part of a report's snapshot that the app owning its data builds (reports.snapshot puts
    the parts together, adds the summary and seals them).

    `build(context)` returns the part as plain JSON values (str, int, float, bool, None, lists
    and dicts, every list in a fixed order; common.report_values spells the values), in the
    report's language, at a fixed number of queries. The context reports.snapshot passes gives:

    - `evaluation`: a fresh instance of the evaluation (give this one to selectors);
      `data`: its evaluations.selectors.EvaluationData (prefetched: read, do not filter);
      `members`: its memberships with their users, oldest first; `owner`: the owner's user;
    - `language`, `generated_at` (ISO), `report_day` (the day catalog claims age against);
    - values several parts read, each computed once on first use: `parties` (the parties a
      who-question or a matrix names), `matrices` (responsibility's matrices), `results` (the
      POC results with the owner's view: every submitted score), `decided_despite` (why the
      evaluation was marked decided with open POC cells, None without a decision or reason);
    - `shared(key, compute)`: a value of the app's own that several of its parts (or the
      summary) read, computed once by `compute()` and kept under `key` for the report.

    A part reads other data only through the context, never another part's result, so the order
    the parts are built in does not matter.
    """

    # The snapshot key it fills ("questions", "matrices", "signoff", ...); a dotted key fills a
    # key inside a part several apps fill ("appendix.conflicts": "conflicts" in "appendix").
    key: str
    build: Callable  # (the build context reports.snapshot passes, with `.evaluation`) → JSON
    sealed: bool = True  # False: printed with the report but outside its seal (the sign-off)
    # History kinds of this app left out of the sealed history (they come after the seal).
    unsealed_history: tuple[str, ...] = ()


@dataclass(frozen=True)
class Contribution:
    app: str
    tabs: tuple = ()  # Tab, …
    # (template, function of (evaluation, user) → {candidate pk: fact}): facts shown under each
    # candidate's name on the shortlist; the template (Jinja2, common/jinja.py) is included
    # with `fact` where there is one.
    candidate_facts: tuple = ()
    # (evaluation) → [(key, name)]: the parties a who-question of the evaluation can name.
    party_source: Callable | None = None
    # (user, evaluation, reason, missing) → None: runs when an evaluation is marked decided,
    # after evaluations' own checks found `missing` (a list of items); raises
    # evaluations.services.GateRefused with `missing` and its own open items, or returns.
    decided_gate: Callable | None = None
    # {gate item place: (evaluation, item) → URL}: where an item of the decided gate that this
    # app reported is put right.
    gate_links: dict = field(default_factory=dict)
    links: tuple = ()  # PageLink, …
    # A template (Jinja2, common/jinja.py) offering an action on a capability a candidate's
    # constraint checks left unverified, and the permission it needs (the context holds `cap`,
    # `candidate`, `evaluation`).
    capability_action: tuple[str, str] | None = None
    # Functions of EvaluationData yielding evaluations.reminders.Reminder, and what they read.
    reminders: tuple = ()
    lookups: Lookups = field(default_factory=Lookups)
    history_sources: tuple = ()  # HistorySource, …
    report_parts: tuple = ()  # ReportPart, …
    # (user, evaluation, old status, new status, reason) → None: run inside the transaction
    # that changes an evaluation's status, after the change is saved.
    status_hooks: tuple = ()
    panels: tuple = ()  # Panel, …
    # (workbook, evaluation, used sheet titles) → None: a sheet the app adds to the
    # evaluation's .xlsx workbook (common.xlsx has the helpers; titles join `used`).
    workbook_sheets: tuple = ()


CONTRIBUTIONS: dict[str, Contribution] = {}


def contribute(contribution: Contribution) -> None:
    """Register an app's contribution (once per app; registering again replaces it)."""
    CONTRIBUTIONS[contribution.app] = contribution


def decided_gate_checks() -> list[Callable]:
    return [c.decided_gate for c in CONTRIBUTIONS.values() if c.decided_gate]


def gate_link(evaluation, item) -> str | None:
    """The URL where a gate item another app reported is put right (None: not contributed)."""
    for c in CONTRIBUTIONS.values():
        if item.place in c.gate_links:
            return c.gate_links[item.place](evaluation, item)
    return None


def links_at(place: str) -> list[PageLink]:
    return [link for c in CONTRIBUTIONS.values() for link in c.links if link.place == place]


def panels_at(place: str) -> list[Panel]:
    return [panel for c in CONTRIBUTIONS.values() for panel in c.panels if panel.place == place]


def capability_action(user, evaluation) -> str | None:
    """The template of the action on an unverified capability the user may take, if any."""
    for c in CONTRIBUTIONS.values():
        if c.capability_action and user.has_perm(c.capability_action[1], evaluation):
            return c.capability_action[0]
    return None


def tabs() -> list[Tab]:
    return [tab for c in CONTRIBUTIONS.values() for tab in c.tabs]


def candidate_fact_sources() -> list[tuple]:
    return [source for c in CONTRIBUTIONS.values() for source in c.candidate_facts]


def party_source() -> Callable | None:
    return next((c.party_source for c in CONTRIBUTIONS.values() if c.party_source), None)


def reminder_functions() -> list[Callable]:
    return [fn for c in CONTRIBUTIONS.values() for fn in c.reminders]


def combined(*parts: Lookups) -> Lookups:
    """The lookups of several parts together, in order."""
    return Lookups(
        *(
            tuple(x for part in parts for x in getattr(part, name))
            for name in Lookups.__annotations__
        )
    )


def lookups() -> Lookups:
    """Every contribution's lookups together, in the order the apps are installed."""
    return combined(*(c.lookups for c in CONTRIBUTIONS.values()))


def history_sources() -> dict[str, HistorySource]:
    return {h.kind: h for c in CONTRIBUTIONS.values() for h in c.history_sources}


def report_parts() -> list[ReportPart]:
    return [part for c in CONTRIBUTIONS.values() for part in c.report_parts]


def unsealed_report_keys() -> tuple[str, ...]:
    """The keys of the parts printed with a report but left out of its seal."""
    return tuple(part.key for part in report_parts() if not part.sealed)


def unsealed_history() -> tuple[str, ...]:
    """The history kinds left out of a report's sealed history (they come after the seal)."""
    return tuple(kind for part in report_parts() for kind in part.unsealed_history)


def workbook_sheets() -> list[Callable]:
    return [sheet for c in CONTRIBUTIONS.values() for sheet in c.workbook_sheets]


def status_hooks() -> list[Callable]:
    return [hook for c in CONTRIBUTIONS.values() for hook in c.status_hooks]
