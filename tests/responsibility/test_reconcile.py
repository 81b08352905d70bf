"""The who-answers and the responsibility matrix must agree (responsibility.reconcile)."""

from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse

from evaluations import services as evaluation_services
from evaluations.demo import DEMO_TITLE
from evaluations.models import Evaluation, FiveQuestion
from evaluations.reminders import reminders_for
from evaluations.selectors import evaluation_data
from responsibility import services
from responsibility.checks import check_area
from responsibility.models import Area, Party
from responsibility.reconcile import disagreements
from tests.factories import add_candidates


def area(key, **letters):
    return check_area(key, letters)


@pytest.mark.parametrize(
    "answered, areas, expected",
    [
        # The answer names the accountable party, or a responsible one: they agree.
        (["internal"], [area("fault", internal="A", vendor="R")], []),
        (["vendor"], [area("fault", internal="A", vendor="R")], []),
        # The answer names the vendor; the matrix keeps the work internal (the demo's Run:ai).
        (["vendor"], [area("fault", internal="A", vendor="C")], ["fault"]),
        (["vendor"], [area("fault", internal="A", business="R")], ["fault"]),
        # Several parties: one of them owning or doing the work is enough.
        (["vendor", "internal"], [area("fault", internal="A")], []),
        # Consulted or informed is not owning the work.
        (["business"], [area("fault", internal="A", business="C", vendor="I")], ["fault"]),
        # Each mapped area on its own, in order.
        (
            ["vendor"],
            [area("a", vendor="A"), area("b", internal="A"), area("c", internal="A", vendor="R")],
            ["b"],
        ),
        # Two accountable parties still name owners; the answer names one of them.
        (["cloud"], [area("fault", internal="A", cloud="A")], []),
        # Nothing to compare: nobody named, or nobody accountable or responsible yet.
        ([], [area("fault", internal="A")], []),
        (["vendor"], [area("fault")], []),
        (["vendor"], [area("fault", internal="C", business="I")], []),
        (["vendor"], [], []),
    ],
)
def test_an_answer_disagrees_where_none_of_its_parties_owns_or_does_the_work(
    answered, areas, expected
):
    assert [a.area for a in disagreements(answered, areas)] == expected


def test_the_who_questions_are_mapped_to_areas(db):
    mapping = {
        q.key: sorted(q.areas.values_list("key", flat=True))
        for q in FiveQuestion.objects.filter(scale="parties")
    }
    assert mapping == {
        "long_term_team": ["identity_compatibility", "monitoring_alerting", "upgrades_maintenance"],
        "incident_triage": ["explaining_job_failures", "fault_handling"],
        "new_hardware_validation": ["adapting_new_gpus_frameworks", "domestic_gpu_adaptation"],
    }
    assert not FiveQuestion.objects.get(key="budget_focus").areas.exists()


def keyed(evaluation):
    return {r.key: r for r in reminders_for(evaluation_data(evaluation))}


def test_the_reminder_follows_the_answer_and_the_row(db, evaluation, owner):
    (slurm,) = add_candidates(evaluation, owner, "slurm")
    services.matrix_prefill(user=owner, candidate=slurm)
    key = f"answers-disagree-with-matrix:{slurm.pk}"
    triage = FiveQuestion.objects.get(key="incident_triage")

    def answer(parties, version):
        return evaluation_services.answer_save(
            user=owner,
            candidate=slurm,
            question=triage,
            parties=parties,
            explanation="x",
            expected_version=version,
        )

    answer(["internal"], 0)
    assert key not in keyed(evaluation)  # open source: the internal team owns fault handling
    answer(["vendor"], 1)
    reminder = keyed(evaluation)[key]
    assert reminder.severity == "high"
    assert "Fault handling" in reminder.why and "Vendor" in reminder.why
    assert reminder.fix_url.endswith(f"#answer-{slurm.pk}-incident_triage")
    matrix = reverse("responsibility:matrix", kwargs={"pk": evaluation.pk, "cid": slurm.pk})
    assert (matrix + "#row-fault_handling") in [url for url, _label in reminder.links]
    # The matrix is corrected instead: the vendor does the work, and the reminder goes.
    for area_key in ("fault_handling", "explaining_job_failures"):
        services.cell_set(
            user=owner,
            candidate=slurm,
            area=Area.objects.get(key=area_key),
            party=Party.objects.get(evaluation=None, key="vendor"),
            letter="R",
            expected_version=None,
        )
    assert key not in keyed(evaluation)


def test_the_demo_runai_answer_and_matrix_disagree_and_both_are_linked(db):
    call_command("demo", language="en", stdout=StringIO())
    evaluation = Evaluation.objects.get(title=DEMO_TITLE)
    runai = evaluation.candidates.get(solution__slug="runai", stack_name="")
    reminders = keyed(evaluation)
    reminder = reminders[f"answers-disagree-with-matrix:{runai.pk}"]
    assert "Fault handling" in reminder.why
    assert "Vendor" in reminder.why and "Internal platform team" in reminder.why
    questions = reverse("evaluations:evaluation_questions", kwargs={"pk": evaluation.pk})
    assert reminder.fix_url == f"{questions}#answer-{runai.pk}-incident_triage"
    matrix = reverse("responsibility:matrix", kwargs={"pk": evaluation.pk, "cid": runai.pk})
    assert matrix + "#row-fault_handling" in [url for url, _label in reminder.links]
    # Both targets exist on their pages.
    from django.test import Client

    client = Client()
    client.force_login(evaluation.memberships.get(role="owner").user)
    assert f'id="answer-{runai.pk}-incident_triage"' in client.get(questions).content.decode()
    assert 'id="row-fault_handling"' in client.get(matrix).content.decode()
    # And the reminders section shows the matrix link next to the answer's.
    page = client.get(reverse("evaluations:evaluation_detail", kwargs={"pk": evaluation.pk}))
    assert f"{matrix}#row-fault_handling" in page.content.decode()
    # Only Run:ai disagrees in the demo.
    assert [k for k in reminders if k.startswith("answers-disagree-with-matrix:")] == [
        f"answers-disagree-with-matrix:{runai.pk}"
    ]
