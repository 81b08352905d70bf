"""The form renderer: Django's widget templates through Jinja2, the same HTML as Django's template
engine, and Django's engine for widget templates that exist only there (the admin's)."""

import re

from django import forms
from django.contrib.admin.widgets import RelatedFieldWidgetWrapper
from django.forms.renderers import DjangoTemplates
from jinja2 import Template

from common.renderers import FastFormRenderer


class Sample(forms.Form):
    name = forms.CharField(max_length=20, initial="O'Brien & co")
    notes = forms.CharField(widget=forms.Textarea, required=False)
    kind = forms.ChoiceField(choices=[("a", "A <first>"), ("b", "B")], initial="b")
    parties = forms.MultipleChoiceField(
        choices=[("internal", "Internal"), ("vendor", "Vendor")],
        widget=forms.CheckboxSelectMultiple,
        initial=["vendor"],
    )


def normalised(html: str) -> str:
    """Whitespace between tags and the two spellings of an escaped quote are the same HTML."""
    html = html.replace("&#x27;", "&#39;")
    return re.sub(r">\s+<", "><", re.sub(r"\s+", " ", html)).strip()


def test_widgets_render_the_same_html_as_the_template_engine():
    fast, slow = FastFormRenderer(), DjangoTemplates()
    form = Sample()
    for field in form:
        widget, name, value = field.field.widget, field.html_name, field.value()
        html = widget.render(name, value, renderer=fast)
        assert html and normalised(html) == normalised(widget.render(name, value, renderer=slow))
    assert "O&#39;Brien &amp; co" in str(form["name"])  # the project's renderer, escaped
    template = fast.get_template("django/forms/widgets/input.html")
    assert isinstance(template.template, Template)  # Jinja2, not Django's engine


def test_a_widget_template_only_django_has_renders_through_django():
    template = FastFormRenderer().get_template("admin/widgets/related_widget_wrapper.html")
    assert not isinstance(getattr(template, "template", None), Template)
    assert RelatedFieldWidgetWrapper.template_name == "admin/widgets/related_widget_wrapper.html"
