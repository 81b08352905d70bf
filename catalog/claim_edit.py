"""Administrators edit a claim in place on the solution page: the row turns into a form (htmx)
or, without JavaScript, a page of its own; a stale edit answers 409 with the saved claim."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.mixins import LoginRequiredMixin
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views import View

from common.views import PageAction

from .forms import ClaimEditForm
from .models import CapabilityClaim
from .selectors import claim_freshness
from .services import claim_update

PERMISSION = "catalog.change_capabilityclaim"


class ClaimMixin(LoginRequiredMixin):
    def dispatch(self, request, *args, **kwargs):
        if not request.user.is_authenticated:
            return self.handle_no_permission()
        if not request.user.has_perm(PERMISSION):
            raise PermissionDenied(_("Only catalog administrators edit claims."))
        self.claim = get_object_or_404(
            CapabilityClaim.objects.select_related("solution", "capability__group"),
            solution__slug=kwargs["slug"],
            capability__slug=kwargs["capability"],
        )
        return super().dispatch(request, *args, **kwargs)

    def row_context(self, claim) -> dict:
        claim.freshness = claim_freshness(claim, on=timezone.localdate())
        return {"claim": claim, "solution": claim.solution, "can_edit_claims": True}


class ClaimRowView(ClaimMixin, View):
    """The claim's row as the solution page shows it (what "Cancel" swaps back)."""

    def get(self, request, slug, capability):
        return render(request, "catalog/partials/claim_row.html", self.row_context(self.claim))


class ClaimEditView(ClaimMixin, PageAction, View):
    template_name = "catalog/claim_edit.html"
    partial_template_name = "catalog/partials/claim_edit_row.html"
    form_class = ClaimEditForm

    def get(self, request, slug, capability):
        form = ClaimEditForm.for_claim(self.claim, self.claim.version)
        return self.answer(self.context(form))

    def context(self, form, **extra) -> dict:
        return {"form": form, "claim": self.claim, "solution": self.claim.solution, **extra}

    def form_for_saved(self, obj):
        return ClaimEditForm.for_claim(obj, obj.version)

    def perform(self, form):
        data = dict(form.cleaned_data)
        return claim_update(
            user=self.request.user,
            claim=self.claim,
            expected_version=data.pop("version"),
            sources=data.pop("sources"),
            **data,
        )

    def success(self, claim):
        if getattr(self.request, "htmx", False):
            claim = CapabilityClaim.objects.select_related("solution", "capability").get(
                pk=claim.pk
            )
            return render(self.request, "catalog/partials/claim_row.html", self.row_context(claim))
        messages.success(self.request, _("Claim saved."))
        url = reverse("catalog:solution_detail", kwargs={"slug": claim.solution.slug})
        return redirect(f"{url}#claim-{claim.capability.slug}")
