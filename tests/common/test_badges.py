"""The level and finding badges pages show dozens of times (common/templatetags/badges.py,
poc/templatetags/poc_extras.py): what they say, in both languages, and that what users typed
(claim notes, case titles) is escaped."""

from types import SimpleNamespace

from django.template import Context, Template
from django.utils import translation

from catalog.models import CapabilityClaim, SupportLevel


def render(source: str, **context) -> str:
    return Template(source).render(Context(context))


def test_a_claim_shows_its_level_version_and_note_escaped():
    claim = CapabilityClaim(
        level=SupportLevel.PARTIAL, as_of_version="v1.2", note='<b>"half"</b>', verified_in_poc=True
    )
    html = render("{% load badges %}{% level_badge claim %}", claim=claim)
    assert 'class="lvl lvl-partial"' in html and 'data-level="partial"' in html
    assert "◐" in html and "Partial" in html and 'title="Verified in a POC">✔' in html
    assert "v1.2 — &lt;b&gt;&quot;half&quot;&lt;/b&gt;" in html and "<b>" not in html


def test_no_claim_is_unknown_in_the_reader_s_language():
    with translation.override("zh-hans"):
        html = render("{% load badges %}{% level_badge None %}")
    assert 'data-level="unknown"' in html and "未知" in html and "?" in html


def test_a_finding_names_its_cases_escaped():
    case = SimpleNamespace(shown_title="<i>Gang</i> & more")
    finding = SimpleNamespace(
        verified=False, finding=SimpleNamespace(status="contradicted"), cases=[case, case]
    )
    html = render("{% load poc_extras %}{% verification_badge f %}", f=finding)
    assert 'class="verdict verdict-violates" data-finding="contradicted"' in html
    assert 'title="&lt;i&gt;Gang&lt;/i&gt; &amp; more; &lt;i&gt;Gang' in html
    assert "contradicted by the POC" in html


def test_a_count_of_problems_is_an_alarm_only_when_there_is_one():
    """ "0 conflicts" is good news: it is not drawn in the alarm's red (matrix and scorecard)."""
    template = Template(
        '{% load badges %}<span class="chk {{ n|alarm:"conflict" }}">{{ n }} conflicts</span>'
    )
    assert 'class="chk chk-none">0' in template.render(Context({"n": 0}))
    assert 'class="chk chk-conflict">2' in template.render(Context({"n": 2}))
