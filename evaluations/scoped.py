"""The bases every evaluation-scoped view extends, pages and API alike (poc, responsibility and
reports build on these). Each loads the evaluation through the member-only selector, so a
non-member gets 404 wherever they knock."""

from __future__ import annotations

from django.contrib.auth.mixins import LoginRequiredMixin
from django.shortcuts import render
from django.urls import reverse
from django.utils.functional import SimpleLazyObject
from rest_framework import generics

from . import extensions, pagecache
from .models import Candidate, Evaluation, MemberRole
from .rows import listed_reminders, status_of, strip_status
from .rules import member_role
from .selectors import candidate_get, evaluation_data, evaluation_get_for_user

# --- pages -----------------------------------------------------------------------------------


class EvaluationMixin(LoginRequiredMixin):
    """Loads the evaluation for a member (404 otherwise) and the flags templates need."""

    tab = ""
    # Keep the rendered GET answer while the evaluation's stamp is unchanged (pagecache).
    page_cache = False

    def dispatch(self, request, *args, **kwargs):
        if not request.user.is_authenticated:
            return self.handle_no_permission()
        self.evaluation = evaluation_get_for_user(request.user, kwargs["pk"])
        if self.page_cache:
            return pagecache.serve(
                request,
                self.evaluation,
                lambda: super(EvaluationMixin, self).dispatch(request, *args, **kwargs),
            )
        return super().dispatch(request, *args, **kwargs)

    @property
    def data(self):
        """Everything the status strip, overview and reminders read (fixed query count)."""
        if getattr(self, "_data", None) is None:
            self._data = evaluation_data(self.evaluation, viewer=self.request.user)
        return self._data

    def refresh_data(self):
        self._data = None
        return self.data

    # A page that lists the risk reminders (the overview) reads them stored with the status
    # strip while they are current, and then needs only `page_data()`, not all of `data`.
    lists_reminders = False

    def page_data(self):
        """What the page's template reads as `data`: all of it, unless the page lists
        reminders and they were stored (see EvaluationDetailView)."""
        return self.data

    def base_context(self, **extra):
        user, e = self.request.user, self.evaluation
        # The evaluation's data is loaded only if the page (or an out-of-date stored strip)
        # reads it, and once.
        if self.lists_reminders:
            status, reminders = listed_reminders(e, user, lambda: self.data)
        else:
            status, reminders = strip_status(e, user, lambda: status_of(self.data)), []
        ctx = {
            "data": SimpleLazyObject(self.page_data),
            "reminders": reminders,
            "answered": status.answered,
            "total": status.total,
            "reminder_count": status.reminders,
            "evaluation": e,
            "tab": self.tab,
            "my_role": member_role(user, e),
            "my_role_label": MemberRole(member_role(user, e)).label,
            "can_edit": user.has_perm("evaluations.change_evaluation", e),
            "can_manage": user.has_perm("evaluations.manage_members", e),
            "can_change_status": user.has_perm("evaluations.change_status", e),
            "can_reopen": user.has_perm("evaluations.reopen_evaluation", e),
            "extra_tabs": [
                {
                    "key": t.key,
                    "label": t.label,
                    "url": reverse(t.url_name, kwargs={"pk": e.pk}),
                }
                for t in extensions.tabs()
            ],
        }
        ctx.update(extra)
        return ctx

    def render(self, template, status=200, **extra):
        return render(self.request, template, self.base_context(**extra), status=status)

    def respond(self, template, context, status):
        """PageAction renders through the evaluation's base context (tabs, strip, flags)."""
        return self.render(template, status=status, **context)


# --- API -------------------------------------------------------------------------------------


class EvaluationScopedView(generics.GenericAPIView):
    """A view about one evaluation, fetched through the member-only selector (else 404)."""

    evaluation_url_kwarg = "evaluation_pk"
    pagination_class = None
    filter_backends: list = []

    def get_evaluation(self) -> Evaluation:
        if not hasattr(self, "_evaluation"):
            self._evaluation = evaluation_get_for_user(
                self.request.user, self.kwargs[self.evaluation_url_kwarg]
            )
        return self._evaluation

    def parse(self, serializer_class, **kwargs) -> dict:
        serializer = serializer_class(data=self.request.data, **kwargs)
        serializer.is_valid(raise_exception=True)
        return serializer.validated_data

    def out(self, serializer_class, instance, **kwargs):
        return serializer_class(instance, context=self.get_serializer_context(), **kwargs).data


class CandidateScopedView(EvaluationScopedView):
    """Base for API views about one candidate of the evaluation (else 404)."""

    candidate_url_kwarg = "pk"

    def get_candidate(self) -> Candidate:
        evaluation = self.get_evaluation()
        candidate = candidate_get(evaluation, self.kwargs[self.candidate_url_kwarg])
        candidate.evaluation = evaluation
        return candidate
