"""The widget templates common/jinja2/ replaces (select, checkbox and radio lists, with their
options written in place) give exactly the HTML of Django's own, for every shape a form here
uses: plain and grouped choices, one or several selected, disabled, with attributes."""

import pytest
from django import forms
from django.forms.renderers import Jinja2

from common.renderers import FastFormRenderer

GROUPED = [("", "—"), ("Open source", [("slurm", "Slurm"), ("volcano", "Volcano")]), ("x", "X")]


class Sample(forms.Form):
    plain = forms.ChoiceField(choices=[("a", "A & B"), ("b", "<b>")], initial="b")
    grouped = forms.ChoiceField(choices=GROUPED, required=False)
    several = forms.MultipleChoiceField(choices=[("a", "A"), ("b", "B"), ("c", "C")])
    boxes = forms.MultipleChoiceField(
        choices=[("vendor", "Vendor"), ("internal", 'Internal "ops"')],
        widget=forms.CheckboxSelectMultiple(attrs={"class": "parties"}),
    )
    grouped_boxes = forms.MultipleChoiceField(
        choices=[("G", [("1", "One"), ("2", "Two")])], widget=forms.CheckboxSelectMultiple
    )
    radio = forms.ChoiceField(choices=[("y", "Yes"), ("n", "No")], widget=forms.RadioSelect)
    off = forms.ChoiceField(choices=[("a", "A")], disabled=True)


@pytest.mark.parametrize(
    "data",
    [
        None,
        {"plain": "a", "grouped": "volcano", "several": ["a", "c"], "boxes": ["internal"]},
        {"boxes": ["vendor", "internal"], "grouped_boxes": ["2"], "radio": "n"},
    ],
)
def test_fast_widgets_write_what_django_writes(data):
    fast, stock = Sample(data, renderer=FastFormRenderer()), Sample(data, renderer=Jinja2())
    for name in Sample.base_fields:
        assert str(fast[name]) == str(stock[name]), name
    assert "<optgroup" in str(fast["grouped"])


@pytest.mark.parametrize("name", ["select.html", "multiple_input.html"])
def test_the_fast_templates_are_the_ones_used(name):
    template = FastFormRenderer().get_template(f"django/forms/widgets/{name}")
    assert "/common/jinja2/" in template.template.filename
