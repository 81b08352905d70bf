"""Forms of the approvals page (signoff.views)."""

from django import forms
from django.utils.translation import gettext_lazy as _

from common.fields import text_limit
from common.forms import IntegerField, VersionField
from common.people import person_name

from .models import Approval, ApprovalDecision


class RequestForm(forms.Form):
    """The owner names an approver (a member) and what they sign for."""

    approver = forms.TypedChoiceField(
        label=_("Approver"),
        coerce=int,
        error_messages={
            "required": _("Choose the member who approves."),
            "invalid_choice": _("Choose one of the evaluation's members."),
        },
    )
    role = forms.CharField(
        label=_("Role"),
        required=False,
        max_length=text_limit(Approval, "role"),
        help_text=_("E.g. Procurement, Security, Tech lead. Empty: their role in Shortlist."),
    )

    def __init__(self, *args, members=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["approver"].choices = [("", "—")] + [(u.pk, person_name(u)) for u in members]


class WithdrawForm(forms.Form):
    """The owner withdraws a request nobody decided yet."""

    id = IntegerField(min_value=1)
    version = VersionField()


class DecideForm(forms.Form):
    """The approver approves or rejects one finished report, with a comment."""

    id = IntegerField(min_value=1)
    run = IntegerField(
        label=_("Report"),
        min_value=1,
        error_messages={"required": _("Choose the report you read.")},
    )
    decision = forms.ChoiceField(
        label=_("Decision"),
        choices=[
            (ApprovalDecision.APPROVED, _("Approve")),
            (ApprovalDecision.REJECTED, _("Reject")),
        ],
        widget=forms.RadioSelect,
        error_messages={"required": _("Choose approve or reject.")},
    )
    comment = forms.CharField(
        label=_("Comment"),
        required=False,
        max_length=text_limit(Approval, "comment"),
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text=_("Required to reject."),
    )
    change = forms.BooleanField(label=_("Change my decision"), required=False)
    version = VersionField()
