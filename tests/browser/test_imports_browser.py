"""A reviewer imports measured values: a file with one bad row is refused whole with its
errors shown; the good file is previewed, applied, and its values and evidence show."""

from decimal import Decimal as D

import pytest

from common import roles
from evaluations.models import MemberRole
from poc import services
from poc.models import Evidence, MeasurementImport, Score
from tests.browser.checks import page_problems
from tests.conftest import make_user
from tests.factories import add_candidates, add_member, declare_none, make_evaluation

pytestmark = pytest.mark.browser

GOOD = (
    "candidate,case,value,unit,run_id,measured_at,tool\n"
    "Slurm,preemption_latency,42.5,s,run-a,2026-11-02,bench/preempt.py\n"
    "Volcano,preemption_latency,71,s,run-a,2026-11-02,bench/preempt.py\n"
)
BAD = GOOD + "Volcano,node_failure_recovery,fast,min,run-b,2026-11-03,bench/chaos.sh\n"


@pytest.mark.parametrize("width", [1440, 390])
def test_import_refused_whole_then_previewed_and_applied(
    seeded, live_server, session, tmp_path, width
):
    owner = make_user(roles.TECH_LEAD, username="tao")
    evaluation = make_evaluation(owner)
    slurm, volcano = add_candidates(evaluation, owner, "slurm", "volcano")
    services.plan_init(user=owner, evaluation=evaluation)
    reviewer = make_user(roles.REVIEWER, username="rui")
    add_member(evaluation, reviewer, MemberRole.REVIEWER)
    declare_none(evaluation, reviewer)  # no conflict of interest with either vendor
    bad, good = tmp_path / "bad.csv", tmp_path / "measurements.csv"
    bad.write_text(BAD, encoding="utf-8")
    good.write_text(GOOD, encoding="utf-8")

    page = session(reviewer, width=width)
    page.goto(f"{live_server.url}/evaluations/{evaluation.pk}/poc/")
    page.get_by_role("link", name="Import measurements").click()
    page.get_by_label("Measurements file").set_input_files(str(bad))
    page.get_by_role("button", name="Preview").click()
    errors = page.get_by_test_id("import-errors")
    text = errors.inner_text()
    assert "nothing was imported" in text and "4" in text and "value" in text
    assert "plain number" in text
    assert page.get_by_test_id("import-apply").count() == 0
    problems = page_problems(page, f"import-refused-{width}")
    assert not Score.objects.exists()

    page.get_by_label("Measurements file").set_input_files(str(good))
    page.get_by_role("button", name="Preview").click()
    changes = page.get_by_test_id("import-changes").inner_text()
    # 42.5 s and 71 s against a 60 s threshold land on the rubric's bands: 5 and 1.
    assert "42.5" in changes and "71" in changes and "→ 5.0" in changes and "→ 1.0" in changes
    problems += page_problems(page, f"import-preview-{width}")
    assert not Score.objects.exists()  # the preview saves nothing

    page.get_by_role("button", name="Import these values as my drafts").click()
    page.wait_for_url(f"{live_server.url}/evaluations/{evaluation.pk}/poc/")
    assert "2 measured value(s) imported from measurements.csv" in page.content()
    case = evaluation.poc_cases.get(source_case__key="preemption_latency")
    cell = page.locator(f"#cell-{case.pk}-{volcano.pk}")
    assert cell.locator("input[name=measured_value]").input_value() == "71.0000"
    assert "measurements.csv" in cell.inner_text()  # the file, as evidence of the score
    problems += page_problems(page, f"import-applied-{width}")
    assert not page.console_errors, page.console_errors
    assert not problems, problems

    record = MeasurementImport.objects.get()
    assert record.row_count == 2 and record.file.read().decode() == GOOD
    assert Score.objects.get(candidate=slurm, reviewer=reviewer).measured_value == D("42.5")
    assert set(Evidence.objects.values_list("sha256", flat=True)) == {record.sha256}
