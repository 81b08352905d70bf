"""The demo exists in English and in Simplified Chinese: the same evaluation, users, scores and
decision, with everything its users typed written in the demo's language."""

import re
from io import StringIO
from string import Formatter

import pytest
from django.core.management import call_command

from common.demo import demo_texts, shape, strings
from evaluations.demo import DEMO_TITLE, DEMO_TITLES
from evaluations.demo import FILES as EVALUATION_FILES
from evaluations.demo import demo_key as key
from evaluations.models import Evaluation, QuestionAnswer, StatusChange
from poc.demo import FILES as POC_FILES
from poc.models import ConflictDeclaration, Consensus, Score, TestBed
from reports.snapshot import build_snapshot
from responsibility.demo import FILES as RESPONSIBILITY_FILES
from responsibility.models import AreaRow, Cell, CostInput

CJK = re.compile(r"[\u3400-\u9fff]")
URL = re.compile(r"https?://\S+")
# Four or more English words in a row (a product name is at most three: "NVIDIA GPU Operator").
WORD = r"[A-Za-z][A-Za-z0-9'’:._/-]*"
ENGLISH_RUN = re.compile(rf"{WORD}(?:[ ,;]+{WORD}){{3,}}")
# Western punctuation next to a Chinese character: Chinese sentences take ，。：；（）.
WESTERN_PUNCTUATION = re.compile(r"[\u3400-\u9fff][,.:;()?!]|[,:;(?!][\u3400-\u9fff]")


def english_runs(text: str) -> list[str]:
    return ENGLISH_RUN.findall(URL.sub(" ", text))


def placeholders(text: str) -> set[str]:
    return {name for _literal, name, _spec, _conv in Formatter().parse(text) if name}


def all_strings(language: str) -> list[tuple[str, str]]:
    """Every text of every app's part of the demo in `language` (the app's name first)."""
    return [
        pair for app, texts in demo_texts(language).items() for pair in strings(texts, f"/{app}")
    ]


# --- the language files -------------------------------------------------------------------


def test_the_language_files_have_the_same_keys_and_structure():
    en_files, zh_files = demo_texts("en"), demo_texts("zh-hans")
    assert set(en_files) == set(zh_files) == {"evaluations", "responsibility", "support", "poc"}
    for app, en in en_files.items():
        assert shape(en) == shape(zh_files[app]), app
    zh_strings = dict(all_strings("zh-hans"))
    for path, text in all_strings("en"):
        assert placeholders(text) == placeholders(zh_strings[path]), path
        assert bool(text) == bool(zh_strings[path]), path


def test_the_texts_cover_the_data_of_their_app():
    """Each app's texts cover the language-neutral tables in its data.yaml, no more and no
    less."""
    en = EVALUATION_FILES.texts("en")
    assert set(en["context"]) == set(EVALUATION_FILES.data["context"])
    assert DEMO_TITLE == DEMO_TITLES["en"] == en["title"]
    assert DEMO_TITLES["zh-hans"] == EVALUATION_FILES.texts("zh-hans")["title"] != DEMO_TITLE

    en, data = RESPONSIBILITY_FILES.texts("en"), RESPONSIBILITY_FILES.data
    assert {k: set(v) for k, v in en["answers"].items()} == {
        k: set(v) for k, v in data["answers"].items()
    }
    rows = {(edit["candidate"], edit["area"]) for edit in data["matrix_edits"] if "row" in edit}
    assert {(c, a) for c, notes in en["matrix_notes"].items() for a in notes} <= rows

    en, data = POC_FILES.texts("en"), POC_FILES.data
    assert {k: set(v) for k, v in en["disagreements"].items()} == {
        k: set(v) for k, v in data["disagreements"].items()
    }
    for candidate, cases in en["disagreements"].items():
        for case, words in cases.items():
            planned = data["disagreements"][candidate][case]
            assert len(words["notes"]) == len(planned["scores"]) == len(data["scorers"])
            assert (words["consensus"] is None) == (planned["consensus"] is None)
    assert set(en["test_beds"]) <= set(data["test_beds"])


def test_the_chinese_texts_are_chinese():
    for path, text in all_strings("zh-hans"):
        if not text:
            continue
        assert CJK.search(text), path
        assert english_runs(text) == [], path
        assert not WESTERN_PUNCTUATION.search(text), (path, WESTERN_PUNCTUATION.findall(text))
    for path, text in all_strings("en"):
        assert not CJK.search(text), path


# --- the loaded demos ---------------------------------------------------------------------


def facts(evaluation: Evaluation) -> dict:
    """What the demo is, without its words: the same in every language."""
    candidates = evaluation.candidates.select_related("solution").prefetch_related(
        "layers__solution"
    )
    answers = QuestionAnswer.objects.filter(candidate__evaluation=evaluation).select_related(
        "candidate__solution", "question"
    )
    rows = AreaRow.objects.filter(candidate__evaluation=evaluation).select_related(
        "candidate__solution", "area"
    )
    cells = Cell.objects.filter(row__candidate__evaluation=evaluation).select_related(
        "row__candidate__solution", "row__area", "party"
    )
    scores = Score.objects.filter(case__evaluation=evaluation).select_related(
        "candidate__solution", "case__source_case", "reviewer"
    )
    consensus = Consensus.objects.filter(case__evaluation=evaluation).select_related(
        "candidate__solution", "case__source_case"
    )
    declarations = ConflictDeclaration.objects.filter(evaluation=evaluation).select_related(
        "candidate__solution", "member"
    )
    beds = TestBed.objects.filter(candidate__evaluation=evaluation).select_related(
        "candidate__solution"
    )
    costs = CostInput.objects.filter(candidate__evaluation=evaluation).select_related(
        "candidate__solution"
    )
    money = [
        f.name
        for f in CostInput._meta.concrete_fields
        if f.get_internal_type()
        in (
            "DecimalField",
            "PositiveIntegerField",
        )
    ]
    return {
        "evaluation": (
            evaluation.status,
            evaluation.private_deployment_required,
            evaluation.compliance_required,
            evaluation.localisation_required,
            sorted(evaluation.scenarios.values_list("slug", flat=True)),
        ),
        "members": sorted(
            (m.user.username, m.role) for m in evaluation.memberships.select_related("user")
        ),
        "context": sorted(evaluation.context_answers.values_list("question__key", "value")),
        "candidates": sorted(
            (key(c), c.status, c.origin, [layer.solution.slug for layer in c.stack_layers])
            for c in candidates
        ),
        "answers": sorted(
            (key(a.candidate), a.question.key, a.parties, a.assessment, a.budget, a.evidence_url)
            for a in answers
        ),
        "rows": sorted((key(r.candidate), r.area.key, r.internal_fte, bool(r.note)) for r in rows),
        "cells": sorted(
            (key(c.row.candidate), c.row.area.key, c.party.key, c.letter) for c in cells
        ),
        "costs": sorted((key(c.candidate), *(getattr(c, name) for name in money)) for c in costs),
        "scores": sorted(
            (
                key(s.candidate),
                s.case.source_case.key,
                s.reviewer.username,
                s.score,
                s.measured_value,
                s.outcome,
                bool(s.notes),
                s.submitted_at is not None,
            )
            for s in scores
        ),
        "consensus": sorted((key(c.candidate), c.case.source_case.key, c.score) for c in consensus),
        "declarations": sorted(
            (d.member.username, key(d.candidate), d.has_conflict, d.allowed) for d in declarations
        ),
        "test_beds": sorted(
            (
                key(b.candidate),
                b.accelerator_vendor,
                b.accelerator_model,
                b.accelerator_count,
                b.nodes,
                b.tested_from,
                b.tested_to,
            )
            for b in beds
        ),
        "decision": sorted(key(c) for c in evaluation.decision.chosen.all()),
    }


@pytest.mark.django_db
def test_both_languages_load_the_same_demo_once():
    out = StringIO()
    call_command("demo", stdout=out)

    en = Evaluation.objects.get(title=DEMO_TITLES["en"])
    zh = Evaluation.objects.get(title=DEMO_TITLES["zh-hans"])
    assert en.pk < zh.pk  # English first
    assert en.organisation == EVALUATION_FILES.texts("en")["organisation"]
    assert zh.organisation == EVALUATION_FILES.texts("zh-hans")["organisation"]
    assert en.created_by == zh.created_by
    assert out.getvalue().count("Created demo users") == 1  # the users are made once
    # Same users, candidates, answers, matrices, costs, seeded scores, consensus, conflicts,
    # test beds and decision: only the words differ.
    en_facts, zh_facts = facts(en), facts(zh)
    assert en_facts["scores"] and en_facts["consensus"] and en_facts["test_beds"]
    for part in en_facts:
        assert en_facts[part] == zh_facts[part], part

    # Each is loaded once: a second run changes neither, and one language can be asked for.
    versions = {e.pk: e.version for e in (en, zh)}
    again = StringIO()
    call_command("demo", stdout=again)
    call_command("demo", language="zh-hans", stdout=again)
    assert again.getvalue().count("already exists") == 3
    assert Evaluation.objects.count() == 2
    assert {e.pk: e.version for e in Evaluation.objects.all()} == versions


def own_texts(evaluation: Evaluation) -> dict[str, str]:
    """Everything the demo users typed into the evaluation, by where it is."""
    found = {
        "title": evaluation.title,
        "organisation": evaluation.organisation,
        "notes": evaluation.notes,
        "rationale": evaluation.decision.rationale,
        "decided by": evaluation.decision.decided_by,
    }
    for answer in evaluation.context_answers.select_related("question"):
        found[f"context {answer.question.key}"] = answer.detail
    for c in evaluation.candidates.select_related("solution"):
        found[f"candidate {c.pk} reason"] = c.reason
        found[f"candidate {c.pk} elimination"] = c.elimination_reason
        found[f"candidate {c.pk} stack"] = c.stack_name
    for a in QuestionAnswer.objects.filter(candidate__evaluation=evaluation):
        found[f"answer {a.pk}"] = a.explanation
    for r in AreaRow.objects.filter(candidate__evaluation=evaluation):
        found[f"row {r.pk}"] = r.note
    for s in Score.objects.filter(case__evaluation=evaluation):
        found[f"score {s.pk}"] = s.notes
    for c in Consensus.objects.filter(case__evaluation=evaluation):
        found[f"consensus {c.pk}"] = c.reason
    for d in ConflictDeclaration.objects.filter(evaluation=evaluation):
        found[f"declaration {d.pk}"] = d.description
        found[f"allowance {d.pk}"] = d.allowance_reason
    for change in StatusChange.objects.filter(evaluation=evaluation):
        found[f"status change {change.pk}"] = change.reason
    for bed in TestBed.objects.filter(candidate__evaluation=evaluation):
        found[f"test bed {bed.pk}"] = bed.notes
    return {where: text for where, text in found.items() if text}


def snapshot_texts(value) -> list[str]:
    if isinstance(value, dict):
        return [t for item in value.values() for t in snapshot_texts(item)]
    if isinstance(value, list):
        return [t for item in value for t in snapshot_texts(item)]
    return [value] if isinstance(value, str) else []


def english_sentences() -> set[str]:
    """The English file's sentences and phrases of three words or more (placeholders and line
    breaks cut them)."""
    found = set()
    for _path, text in all_strings("en"):
        for part in re.split(r"(?<=[.;:])\s+|\{\w+\}|\n", text):
            part = part.strip(" .;:")
            if len(re.findall(r"[A-Za-z]+", part)) >= 3:
                found.add(part)
    return found


@pytest.mark.django_db
def test_the_chinese_demo_is_written_and_reported_in_chinese():
    call_command("demo", language="zh-hans", stdout=StringIO())
    [evaluation] = Evaluation.objects.all()
    assert evaluation.title == "演示：2027 年训练与推理 GPU 平台选型"

    typed = own_texts(evaluation)
    kinds = {where.split(" ")[0] for where in typed}
    assert {"notes", "context", "answer", "row", "score", "consensus", "rationale"} <= kinds
    for where, text in typed.items():
        assert CJK.search(text), (where, text)
        assert english_runs(text) == [], (where, text)
    assert "“企业级容器平台”最为合适" in evaluation.decision.rationale  # the catalog's Chinese name

    snapshot = build_snapshot(
        evaluation, language="zh-hans", generated_at="2027-03-01T09:30:00+08:00"
    )
    report = "\n".join(snapshot_texts(snapshot))
    assert EVALUATION_FILES.texts("zh-hans")["notes"] in report
    assert evaluation.decision.rationale in report
    sentences = english_sentences()
    assert len(sentences) > 100
    assert sorted(s for s in sentences if s in report) == []
