"""The database and data of bench/poc_session.py: a throwaway SQLite file (the embedded default,
with the options config/settings/base.py gives it) or PostgreSQL (DATABASE_URL, or a database of
its own created and dropped here), migrated and seeded, the large evaluation of
bench/report_data.py, a writer who may save scores and answers there, and signed-in sessions."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

POSTGRES_SERVER = "postgres://postgres@127.0.0.1:5432"
POSTGRES_NAME = "shortlist_session_bench"
WRITER = "bench-writer"
# The members readers sign in as, in turn: the owner, the three reviewers and the viewer of
# each shape's evaluation (bench/report_data.py's, or bench/scale_large.py's).
MEMBERS = {
    "report": ("bench-owner", "bench-r1", "bench-r2", "bench-r3", "bench-viewer"),
    "scale": tuple(
        ["scale-owner"] + [f"scale-reviewer-{n:02d}" for n in (1, 2, 3)] + ["scale-viewer"]
    ),
}
WRITER_CELLS = 8  # cells of one test group the writer saves in turn
WRITER_ANSWERS = 8  # five-question answers the writer saves in turn


# --- the database ----------------------------------------------------------------------------


def choose_database(database: str, tmp: Path) -> str | None:
    """Point DATABASE_URL at the database to measure, before Django is set up. Returns the
    name of a PostgreSQL database created here (to drop afterwards), or None."""
    if database == "sqlite":
        os.environ["DATABASE_URL"] = f"sqlite:///{tmp / 'session.sqlite3'}"
        return None
    given = os.environ.get("DATABASE_URL", "")
    if given.startswith(("postgres://", "postgresql://")):
        return None
    recreate_postgres(POSTGRES_NAME)
    os.environ["DATABASE_URL"] = f"{POSTGRES_SERVER}/{POSTGRES_NAME}"
    return POSTGRES_NAME


def recreate_postgres(name: str, *, drop_only: bool = False) -> None:
    import psycopg
    from psycopg import sql

    with psycopg.connect(f"{POSTGRES_SERVER}/postgres", autocommit=True) as connection:
        connection.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )
        if not drop_only:
            connection.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def database_summary() -> str:
    """Which database, and for SQLite the options the embedded default runs with."""
    from django.db import connection

    if connection.vendor != "sqlite":
        version = connection.cursor().connection.info.server_version
        return (
            f"PostgreSQL {version // 10000}.{version % 10000}, {connection.settings_dict['NAME']}"
        )
    options = connection.settings_dict.get("OPTIONS", {})
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA journal_mode")
        journal = cursor.fetchone()[0]
    return (
        f"SQLite {connection.Database.sqlite_version} (the embedded default), journal {journal}, "
        f"writes begin {options.get('transaction_mode', 'DEFERRED')}, reads DEFERRED, busy timeout "
        f"{options.get('timeout', 5)} s"
    )


# --- the data --------------------------------------------------------------------------------


@dataclass
class Session:
    """What the bench's requests need: the evaluation, its tabs, the writer's targets, and
    signed-in sessions (one per reader, each reader one of the members in turn)."""

    evaluation_pk: int
    shape: dict
    readers: list[tuple[str, str]] = field(default_factory=list)  # (username, session key)
    writer_session: str = ""
    owner_session: str = ""
    group: str = ""
    cells: list[tuple[int, int]] = field(default_factory=list)
    answers: list[tuple[int, str]] = field(default_factory=list)


def build(shape: str, quick: bool, readers: int) -> Session:
    """Migrate, seed, generate the evaluation and the writer, and sign everyone in."""
    from django.core.management import call_command

    from bench.scale import session_for
    from common.seeding import seed_all

    call_command("migrate", verbosity=0)
    call_command("collectstatic", interactive=False, verbosity=0)  # production's manifest
    seed_all()
    evaluation, owner, counts = make_evaluation(shape, quick)
    writer = add_writer(evaluation, owner)
    group, cells, answers = writer_targets(evaluation)
    members = MEMBERS[shape]
    names = [members[k % len(members)] for k in range(readers)]
    return Session(
        evaluation_pk=evaluation.pk,
        shape=counts,
        readers=[(name, session_for(name)) for name in names],
        writer_session=session_for(writer.username),
        owner_session=session_for(owner.username),
        group=group,
        cells=cells,
        answers=answers,
    )


def make_evaluation(shape: str, quick: bool):
    """(evaluation, owner, counts): bench/report_data.py's evaluation ("report": every seeded
    solution and one more, 60 cases, or 12 with `quick`), or the large one of the scale bench
    ("scale": 7 solutions and a stack, 60 or 12 cases), both with 3 reviewers and a viewer."""
    if shape == "report":
        from bench.report_data import generate

        return generate(quick)
    import random

    from bench.scale_large import make_large
    from bench.scale_shapes import OWNER, LargeShape, make_users

    users = make_users()
    large = LargeShape(cases=12) if quick else LargeShape()
    evaluation, counts = make_large(users, large, random.Random(20270301))
    return evaluation, users[OWNER], counts


def add_writer(evaluation, owner):
    """A tech lead who joins as an editor: editors score (SPEC: reviewers, or editors) and,
    unlike reviewers, answer the five questions. Through the services, with a declaration of
    no relationship with every candidate's vendor, which scoring needs first."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group

    from common import roles
    from evaluations import services as ev
    from evaluations.models import CandidateStatus, MemberRole
    from poc.conflicts import declaration_save

    writer, _created = get_user_model().objects.get_or_create(
        username=WRITER, defaults={"first_name": "晓", "last_name": "周"}
    )
    writer.groups.add(Group.objects.get_or_create(name=roles.TECH_LEAD)[0])
    writer = get_user_model().objects.get(pk=writer.pk)  # no cached roles
    ev.member_add(user=owner, evaluation=evaluation, member=writer, role=MemberRole.EDITOR)
    for candidate in evaluation.candidates.filter(status=CandidateStatus.SHORTLISTED):
        declaration_save(
            user=writer, candidate=candidate, has_conflict=False, expected_version=None
        )
    return writer


def writer_targets(evaluation, cells: int = WRITER_CELLS, answers: int = WRITER_ANSWERS):
    """The first test group's key, its first `cells` cells (case by case, every candidate),
    and `answers` (candidate, question) pairs of the five questions."""
    from evaluations.models import CandidateStatus, FiveQuestion

    candidates = list(
        evaluation.candidates.filter(status=CandidateStatus.SHORTLISTED).order_by("pk")
    )
    cases = list(evaluation.poc_cases.select_related("group").order_by("group__order", "order"))
    group = cases[0].group
    in_group = [case for case in cases if case.group_id == group.pk]
    pairs = [(case.pk, c.pk) for case in in_group for c in candidates][:cells]
    questions = list(FiveQuestion.objects.filter(is_active=True).order_by("order", "pk"))
    keys = [(c.pk, q.key) for q in questions for c in candidates][:answers]
    return group.key, pairs, keys


def writer_versions(evaluation_pk: int) -> tuple[int, int]:
    """The sums of the versions of the writer's scores and of the evaluation's answers: each
    save moves one of them up by one, so the bench can check what was stored."""
    from django.db.models import Sum

    from evaluations.models import QuestionAnswer
    from poc.models import Score

    scores = Score.objects.filter(case__evaluation_id=evaluation_pk, reviewer__username=WRITER)
    answers = QuestionAnswer.objects.filter(candidate__evaluation_id=evaluation_pk)
    return (
        scores.aggregate(n=Sum("version"))["n"] or 0,
        answers.aggregate(n=Sum("version"))["n"] or 0,
    )


# --- the tabs --------------------------------------------------------------------------------

TAB_NAMES = {
    "evaluation_detail": "overview",
    "evaluation_context": "context",
    "evaluation_shortlist": "shortlist",
    "evaluation_questions": "questions",
    "matrices": "matrices",
    "costs": "costs",
    "scorecard": "scorecard",
    "plan": "POC plan",
    "results": "results",
    "report_list": "reports",
    "evaluation_decision": "decision",
    "evaluation_members": "members",
    "evaluation_history": "history",
}


def tabs_of(overview_html: str, scorecard_html: str) -> list[tuple[str, str]]:
    """(name, path) of every tab the evaluation's navigation links to, and of the POC's own
    plan and results pages (the POC tab's sub-navigation), as the pages link them."""
    from django.urls import resolve

    from bench.poc_session_html import nav_links, parse

    paths = nav_links(parse(overview_html), "tabs")
    paths += [
        p
        for p in nav_links(parse(scorecard_html), "subnav")
        if resolve(p).url_name in ("plan", "results")
    ]
    out = []
    for path in dict.fromkeys(paths):
        name = resolve(path.split("?")[0]).url_name
        out.append((TAB_NAMES.get(name, name), path))
    return out
