"""The test-bed form of the POC's test-bed page (one per candidate)."""

from django import forms
from django.utils.translation import gettext_lazy as _

from common.fields import text_limit
from common.forms import DateInput, IntegerField, VersionField

from .models import MAX_ACCELERATORS, MAX_NODES, BedEquivalence, TestBed


def _text(name: str, label, *, rows: int = 0, **kwargs) -> forms.CharField:
    widget = forms.Textarea(attrs={"rows": rows}) if rows else None
    return forms.CharField(
        label=label,
        required=False,
        max_length=text_limit(TestBed, name),
        widget=widget,
        **kwargs,
    )


class TestBedForm(forms.Form):
    __test__ = False  # not a pytest test class

    candidate = IntegerField(min_value=1, widget=forms.HiddenInput)
    product_version = _text("product_version", _("Product version"))
    components = _text("components", _("Component versions"), rows=2)
    accelerator_vendor = _text("accelerator_vendor", _("Accelerator vendor"))
    accelerator_model = _text("accelerator_model", _("Accelerator model"))
    accelerator_count = IntegerField(
        label=_("Accelerators"), min_value=1, max_value=MAX_ACCELERATORS, required=False
    )
    nodes = IntegerField(label=_("Nodes"), min_value=1, max_value=MAX_NODES, required=False)
    tested_from = forms.DateField(label=_("Tested from"), required=False, widget=DateInput())
    tested_to = forms.DateField(label=_("Tested to"), required=False, widget=DateInput())
    notes = _text("notes", _("Notes"), rows=2)
    version = VersionField()

    FIELDS = (
        "product_version",
        "components",
        "accelerator_vendor",
        "accelerator_model",
        "accelerator_count",
        "nodes",
        "tested_from",
        "tested_to",
        "notes",
    )

    @classmethod
    def for_bed(cls, candidate, bed: TestBed | None, data=None):
        """The form of one candidate's bed (ids unique per candidate; names shared)."""
        initial = {"candidate": candidate.pk, "version": bed.version if bed else 0}
        if bed is not None:
            initial.update({name: getattr(bed, name) for name in cls.FIELDS})
        return cls(data, initial=initial, auto_id=f"bed-{candidate.pk}-%s")


class BedEquivalenceForm(forms.Form):
    """The owner declares the test beds of two candidates equivalent, with a reason."""

    first = forms.TypedChoiceField(label=_("Test bed of"), coerce=int)
    second = forms.TypedChoiceField(label=_("is equivalent to the test bed of"), coerce=int)
    reason = forms.CharField(
        label=_("Reason"),
        max_length=text_limit(BedEquivalence, "reason"),
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text=_("Why these beds count as the same conditions for this comparison."),
    )

    def __init__(self, data=None, *, candidates=(), **kwargs):
        super().__init__(data, auto_id="equivalence-%s", **kwargs)
        choices = [("", "—")] + [(c.pk, c.name) for c in candidates]
        self.fields["first"].choices = choices
        self.fields["second"].choices = choices


class EquivalenceWithdrawForm(forms.Form):
    # No version: withdrawing says "compare these apart again", whatever the reason now reads
    # (as withdrawing a waiver or an acknowledgement); the API's DELETE takes If-Match.
    equivalence = IntegerField(min_value=1, widget=forms.HiddenInput)
