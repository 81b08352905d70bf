"""Evaluation projects: context, candidates, the five questions, decision, members, history."""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords

from catalog.models import Capability, Scenario, ShortlistRule, Solution, SolutionType
from common.concurrency import VersionedModel
from common.fields import LONG_TEXT, BoundedTextField
from common.querysets import SignallingModel
from common.validators import key_validator, no_hidden_characters

from .answer_scales import missing_parts


class Status(models.TextChoices):
    DRAFT = "draft", _("Draft")
    POC = "poc", _("POC")
    DECIDED = "decided", _("Decided")
    ARCHIVED = "archived", _("Archived")


# Allowed moves; reopening (out of decided/archived) is the owner's, with a reason.
TRANSITIONS = {
    Status.DRAFT: {Status.POC},
    Status.POC: {Status.DRAFT, Status.DECIDED},
    Status.DECIDED: {Status.ARCHIVED, Status.POC},
    Status.ARCHIVED: {Status.POC},
}
SEALED = {Status.DECIDED, Status.ARCHIVED}


class MemberRole(models.TextChoices):
    OWNER = "owner", _("Owner")
    EDITOR = "editor", _("Editor")
    REVIEWER = "reviewer", _("Reviewer")
    VIEWER = "viewer", _("Viewer (procurement)")


class ContextFact:
    """An evaluation requirement that is also a context question: one fact, stored once, as the
    evaluation's answer to the question `key` (yes: required; no or not answered: not).

    Reading it on an evaluation says whether that answer is yes, from the prefetched answers
    when they are loaded. It is read-only: `services.evaluation_create` / `evaluation_update`
    take the box's value and save the answer (ticked: yes; cleared: a yes becomes no).
    """

    def __init__(self, key: str, label) -> None:
        self.key = key
        self.label = label

    def __set_name__(self, owner, name: str) -> None:
        self.name = name

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        return instance.fact(self.key)

    def __set__(self, instance, value) -> None:
        raise AttributeError(
            f"{self.name} is the answer to the context question {self.key!r}: save that answer."
        )


class Evaluation(VersionedModel):
    title = models.CharField(_("title"), max_length=200)
    organisation = models.CharField(_("organisation / team"), max_length=200)
    scenarios = models.ManyToManyField(
        Scenario, related_name="evaluations", verbose_name=_("primary scenarios")
    )
    # Asked once, as context questions: the create form's boxes show and change those answers.
    private_deployment_required = ContextFact(
        "private_deployment", _("private deployment required")
    )
    compliance_required = ContextFact(
        "compliance_regime", _("compliance, data-residency or audit requirements")
    )
    localisation_required = models.BooleanField(
        _("localisation (domestic hardware and delivery) required"), default=False
    )
    plans_hybrid = models.BooleanField(
        _("combines several resource sources (hybrid route)"),
        default=False,
        help_text=_("For example open-source scheduling on premises plus cloud GPUs."),
    )
    unified_view_owner = models.CharField(
        _("owner of the unified resource view and audit trail"),
        max_length=200,
        blank=True,
        help_text=_(
            "Who runs the single resource catalog, request flow, cost attribution and audit "
            "across sources."
        ),
    )
    notes = BoundedTextField(_("notes"), max_length=LONG_TEXT, blank=True)
    # The method's second step, before tools: which type of solution carries the main
    # responsibility, and why (kept in history, printed as scenario -> type -> tools).
    main_type = models.ForeignKey(
        SolutionType,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("type carrying the main responsibility"),
    )
    main_type_reason = BoundedTextField(_("why this type"), blank=True)
    status = models.CharField(
        _("status"), max_length=10, choices=Status.choices, default=Status.DRAFT
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("created by"),
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)
    # Set by portable's import (and only there): the archive's file name and when, so that a
    # copy imported next to its original is told apart in the list.
    imported_from = models.CharField(_("imported from"), max_length=255, blank=True)
    imported_at = models.DateTimeField(_("imported"), null=True, blank=True)
    history = HistoricalRecords(m2m_fields=[scenarios])

    class Meta:
        ordering = ["-updated_at", "-pk"]
        verbose_name = _("evaluation")
        verbose_name_plural = _("evaluations")
        constraints = [
            models.CheckConstraint(
                condition=models.Q(status__in=Status.values), name="evaluation_status_valid"
            )
        ]

    def __str__(self) -> str:
        return self.title

    def get_absolute_url(self) -> str:
        return reverse("evaluations:evaluation_detail", kwargs={"pk": self.pk})

    @property
    def is_sealed(self) -> bool:
        return self.status in SEALED

    def fact(self, key: str) -> bool:
        """Whether the context question `key` is answered yes."""
        if self.pk is None:
            return False
        prefetched = getattr(self, "_prefetched_objects_cache", {}).get("context_answers")
        if prefetched is not None:
            return any(a.question.key == key and a.value == AnswerValue.YES for a in prefetched)
        return self.context_answers.filter(question__key=key, value=AnswerValue.YES).exists()


# Evaluation requirement (the create form's box) -> the context question it is the answer to.
FACT_FLAGS = {
    name: field.key for name, field in vars(Evaluation).items() if isinstance(field, ContextFact)
}


class Membership(SignallingModel):
    evaluation = models.ForeignKey(Evaluation, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="evaluation_memberships",
        verbose_name=_("user"),
    )
    role = models.CharField(_("role"), max_length=10, choices=MemberRole.choices)
    added_at = models.DateTimeField(_("added"), auto_now_add=True)
    history = HistoricalRecords()

    class Meta:
        ordering = ["evaluation", "role", "user__username"]
        verbose_name = _("member")
        verbose_name_plural = _("members")
        constraints = [
            models.UniqueConstraint(fields=["evaluation", "user"], name="membership_unique"),
            models.CheckConstraint(
                condition=models.Q(role__in=MemberRole.values), name="membership_role_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} · {self.get_role_display()}"


class AnswerValue(models.TextChoices):
    YES = "yes", _("Yes")
    NO = "no", _("No")
    UNKNOWN = "unknown", _("Not sure yet")


class LibraryQuestion(SignallingModel):
    """A seeded, admin-editable question. Keys are stable: answers and rules refer to them."""

    key = models.CharField(_("key"), max_length=60, unique=True, validators=[key_validator])
    order = models.PositiveSmallIntegerField(_("order"), default=0)
    text = models.CharField(_("question"), max_length=300)
    help_text = BoundedTextField(_("help"), blank=True)
    is_active = models.BooleanField(_("active"), default=True)

    class Meta:
        abstract = True
        ordering = ["order", "pk"]

    def __str__(self) -> str:
        return self.text


class ContextQuestion(LibraryQuestion):
    """A question about the organisation's context; its key is what shortlist rules test."""

    detail_label = models.CharField(
        _("detail label"),
        max_length=120,
        blank=True,
        help_text=_("If set, a free-text detail is asked for, e.g. 'Which cloud?'."),
    )

    class Meta(LibraryQuestion.Meta):
        verbose_name = _("context question")
        verbose_name_plural = _("context questions")


class ConstraintFlag(models.TextChoices):
    """The evaluation's own yes/no requirements a constraint can follow (the first two are its
    answers to the context questions of the same name: `ContextFact`)."""

    PRIVATE_DEPLOYMENT = "private_deployment_required", _("private deployment required")
    COMPLIANCE = "compliance_required", _("compliance or data-residency requirements")
    LOCALISATION = "localisation_required", _("localisation required")
    HYBRID = "plans_hybrid", _("combines several resource sources")


class Constraint(SignallingModel):
    """A hard requirement an evaluation can carry, and the catalog capabilities every candidate
    must have to meet it (seeded, admin-editable, like the shortlist rules).

    An evaluation carries it when its flag is set or any of its facts (context question keys) is
    answered yes: the create form's checkbox and the context question are one fact.
    """

    key = models.CharField(_("key"), max_length=60, unique=True, validators=[key_validator])
    order = models.PositiveSmallIntegerField(_("order"), default=0)
    name = models.CharField(_("name"), max_length=150)
    description = BoundedTextField(_("description"), blank=True)
    flag = models.CharField(
        _("evaluation flag"), max_length=40, choices=ConstraintFlag.choices, blank=True
    )
    facts = models.JSONField(
        _("context facts"),
        default=list,
        blank=True,
        help_text=_("Context question keys; any one answered yes carries the constraint."),
    )
    capabilities = models.ManyToManyField(
        Capability, related_name="constraints", verbose_name=_("capabilities that must hold")
    )
    checks_families = models.BooleanField(
        _("checks the named accelerator families"),
        default=False,
        help_text=_(
            "Also check each accelerator family the evaluation's context answers name (e.g. "
            "'Ascend 910B' in a detail) against the candidate's recorded support."
        ),
    )
    is_active = models.BooleanField(_("active"), default=True)

    class Meta:
        ordering = ["order", "pk"]
        verbose_name = _("hard constraint")
        verbose_name_plural = _("hard constraints")

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        facts = self.facts
        if not isinstance(facts, list) or not all(isinstance(f, str) for f in facts):
            raise ValidationError({"facts": _("Give a list of context question keys.")})
        unknown = sorted(set(facts) - set(ContextQuestion.objects.values_list("key", flat=True)))
        if unknown:
            raise ValidationError(
                {
                    "facts": _("Unknown context question(s): %(keys)s.")
                    % {"keys": ", ".join(unknown)}
                }
            )


class ContextAnswer(VersionedModel):
    evaluation = models.ForeignKey(
        Evaluation, on_delete=models.CASCADE, related_name="context_answers"
    )
    question = models.ForeignKey(
        ContextQuestion,
        on_delete=models.PROTECT,
        related_name="answers",
        verbose_name=_("question"),
    )
    value = models.CharField(
        _("answer"), max_length=10, choices=AnswerValue.choices, default=AnswerValue.UNKNOWN
    )
    detail = models.CharField(_("detail"), max_length=300, blank=True)
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    updated_at = models.DateTimeField(_("updated"), auto_now=True)
    history = HistoricalRecords()

    class Meta:
        ordering = ["question__order"]
        verbose_name = _("context answer")
        verbose_name_plural = _("context answers")
        constraints = [
            models.UniqueConstraint(
                fields=["evaluation", "question"], name="context_answer_unique"
            ),
            models.CheckConstraint(
                condition=models.Q(value__in=AnswerValue.values), name="context_answer_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.question.key}: {self.value}"


class CandidateStatus(models.TextChoices):
    SHORTLISTED = "shortlisted", _("Shortlisted")
    ELIMINATED = "eliminated", _("Eliminated")


class CandidateOrigin(models.TextChoices):
    SUGGESTED = "suggested", _("Suggested by the rules")
    MANUAL = "manual", _("Added by hand")


class Candidate(VersionedModel):
    """One catalog solution, or a stack: several solutions, each in a layer (`CandidateLayer`).

    A stack's `solution` is its main layer, the one whose type carries the main responsibility;
    everything else (questions, matrix, costs, POC, report) treats a stack as one candidate.
    """

    evaluation = models.ForeignKey(Evaluation, on_delete=models.CASCADE, related_name="candidates")
    solution = models.ForeignKey(
        Solution,
        on_delete=models.PROTECT,
        related_name="candidacies",
        verbose_name=_("solution"),
        help_text=_("For a stack: the layer that carries the main responsibility."),
    )
    stack_name = models.CharField(
        _("stack name"),
        max_length=100,
        blank=True,
        help_text=_("Empty for a single solution; the combined route's name for a stack."),
    )
    status = models.CharField(
        _("status"),
        max_length=12,
        choices=CandidateStatus.choices,
        default=CandidateStatus.SHORTLISTED,
    )
    origin = models.CharField(_("origin"), max_length=10, choices=CandidateOrigin.choices)
    rules = models.ManyToManyField(
        ShortlistRule, blank=True, related_name="+", verbose_name=_("rules that suggested it")
    )
    reason = BoundedTextField(
        _("reason for the shortlist"), blank=True, help_text=_("Why this candidate is on the list.")
    )
    elimination_reason = BoundedTextField(_("reason for elimination"), blank=True)
    eliminated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    eliminated_at = models.DateTimeField(_("eliminated"), null=True, blank=True)
    added_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    added_at = models.DateTimeField(_("added"), auto_now_add=True)
    history = HistoricalRecords(m2m_fields=[rules])

    class Meta:
        ordering = ["solution__solution_type__order", "solution__name", "pk"]
        verbose_name = _("candidate")
        verbose_name_plural = _("candidates")
        constraints = [
            models.UniqueConstraint(
                fields=["evaluation", "solution"],
                condition=models.Q(stack_name=""),
                name="candidate_unique",
            ),
            models.UniqueConstraint(
                fields=["evaluation", "stack_name"],
                condition=~models.Q(stack_name=""),
                name="candidate_stack_name_unique",
            ),
            models.CheckConstraint(
                condition=~models.Q(status="eliminated") | ~models.Q(elimination_reason=""),
                name="candidate_elimination_has_reason",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def is_stack(self) -> bool:
        return bool(self.stack_name)

    @property
    def name(self) -> str:
        """What pages and reports call it: the solution's name, or the stack's."""
        return self.stack_name or self.solution.name

    @property
    def stack_layers(self) -> list:
        """A stack's layers, bottom to top; empty for a single solution."""
        if not self.stack_name:
            return []
        order = LayerRole.values
        return sorted(self.layers.all(), key=lambda layer: order.index(layer.role))

    @property
    def is_shortlisted(self) -> bool:
        return self.status == CandidateStatus.SHORTLISTED


class LayerRole(models.TextChoices):
    """The layers a stack is built from, bottom to top (the seeds' usual combination)."""

    EXECUTION = "execution", _("Execution and scheduling")
    BATCH_QUEUE = "batch_queue", _("Batch queue")
    GOVERNANCE = "governance", _("Unified view, tenancy, audit and service")
    BURST = "burst", _("Burst capacity")
    OTHER = "other", _("Other layer")


class CandidateLayer(SignallingModel):
    """One catalog solution in a stack candidate, in a named layer. Set when the stack is
    composed; to change the layers, compose another stack."""

    candidate = models.ForeignKey(Candidate, on_delete=models.CASCADE, related_name="layers")
    solution = models.ForeignKey(
        Solution, on_delete=models.PROTECT, related_name="+", verbose_name=_("solution")
    )
    role = models.CharField(_("layer"), max_length=12, choices=LayerRole.choices)
    history = HistoricalRecords()

    class Meta:
        verbose_name = _("stack layer")
        verbose_name_plural = _("stack layers")
        constraints = [
            models.UniqueConstraint(fields=["candidate", "role"], name="layer_role_unique"),
            models.UniqueConstraint(fields=["candidate", "solution"], name="layer_solution_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.get_role_display()}: {self.solution}"

    @property
    def order(self) -> int:
        return LayerRole.values.index(self.role)

    @property
    def is_main(self) -> bool:
        return self.solution_id == self.candidate.solution_id


class AnswerScale(models.TextChoices):
    """How a pre-procurement question is answered."""

    ASSESSMENT = "assessment", _("Yes / partly / no")
    PARTIES = "parties", _("Parties (who)")
    BUDGET = "budget", _("What the budget weighs more")


class FiveQuestion(LibraryQuestion):
    """One of the five pre-procurement questions (SPEC §1.5)."""

    scale = models.CharField(
        _("answer scale"),
        max_length=12,
        choices=AnswerScale.choices,
        default=AnswerScale.ASSESSMENT,
        help_text=_(
            "Parties: answered with who (several allowed); budget: with what the budget weighs "
            "more; otherwise yes / partly / no."
        ),
    )

    class Meta(LibraryQuestion.Meta):
        verbose_name = _("pre-procurement question")
        verbose_name_plural = _("pre-procurement questions")
        constraints = [
            models.CheckConstraint(
                condition=models.Q(scale__in=["assessment", "parties", "budget"]),
                name="five_question_scale_valid",
            )
        ]


class Assessment(models.TextChoices):
    YES = "yes", _("Yes")
    PARTLY = "partly", _("Partly")
    NO = "no", _("No")
    UNKNOWN = "unknown", _("Unknown")


class BudgetFocus(models.TextChoices):
    SOFTWARE = "software", _("The software purchase")
    PEOPLE = "people", _("Long-term people and stability")
    BOTH = "both", _("Both equally")
    UNKNOWN = "unknown", _("Unknown")


class QuestionAnswer(VersionedModel):
    candidate = models.ForeignKey(Candidate, on_delete=models.CASCADE, related_name="answers")
    question = models.ForeignKey(
        FiveQuestion, on_delete=models.PROTECT, related_name="answers", verbose_name=_("question")
    )
    # Who-questions: the keys of the parties named, each one of the evaluation's parties (the
    # shared ones and its own, responsibility.Party), in the order given.
    parties = models.JSONField(_("who"), default=list, blank=True)
    assessment = models.CharField(
        _("assessment"), max_length=10, choices=Assessment.choices, default=Assessment.UNKNOWN
    )
    budget = models.CharField(
        _("the budget weighs more"),
        max_length=10,
        choices=BudgetFocus.choices,
        default=BudgetFocus.UNKNOWN,
    )
    explanation = BoundedTextField(_("explanation"), max_length=LONG_TEXT, blank=True)
    evidence_url = models.URLField(
        _("evidence link"), max_length=500, blank=True, validators=[no_hidden_characters]
    )
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    updated_at = models.DateTimeField(_("updated"), auto_now=True)
    history = HistoricalRecords()

    class Meta:
        ordering = ["candidate", "question__order"]
        verbose_name = _("answer")
        verbose_name_plural = _("answers")
        constraints = [
            models.UniqueConstraint(
                fields=["candidate", "question"], name="question_answer_unique"
            ),
            models.CheckConstraint(
                condition=models.Q(assessment__in=Assessment.values)
                & models.Q(budget__in=BudgetFocus.values),
                name="question_answer_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.candidate} · {self.question.key}"

    def missing_parts(self) -> list[str]:
        """What still keeps this answer from counting as complete (empty list: complete); what
        counts follows the question's scale (`answer_scales.missing_parts`)."""
        return missing_parts(
            self.question.scale,
            parties=self.parties,
            assessment=self.assessment,
            budget=self.budget,
            explanation=self.explanation,
        )

    @property
    def is_complete(self) -> bool:
        return not self.missing_parts()


class Decision(VersionedModel):
    evaluation = models.OneToOneField(Evaluation, on_delete=models.CASCADE, related_name="decision")
    chosen = models.ManyToManyField(
        Candidate, related_name="+", blank=True, verbose_name=_("chosen candidates")
    )
    rationale = BoundedTextField(_("rationale"), max_length=LONG_TEXT, blank=True)
    decided_on = models.DateField(_("decision date"), null=True, blank=True)
    decided_by = models.CharField(
        _("decided by"), max_length=200, blank=True, help_text=_("A person or a committee.")
    )
    recorded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    updated_at = models.DateTimeField(_("updated"), auto_now=True)
    history = HistoricalRecords(m2m_fields=[chosen])

    class Meta:
        verbose_name = _("decision record")
        verbose_name_plural = _("decision records")

    def __str__(self) -> str:
        return f"{self.evaluation} · {self.decided_on or '—'}"


class ConstraintWaiver(SignallingModel):
    """The owner's explicit, reasoned acceptance that a candidate violates a hard constraint;
    without one the decided gate refuses a decision that chooses it."""

    candidate = models.ForeignKey(Candidate, on_delete=models.CASCADE, related_name="waivers")
    constraint = models.ForeignKey(
        Constraint, on_delete=models.PROTECT, related_name="waivers", verbose_name=_("constraint")
    )
    reason = BoundedTextField(_("reason"))
    waived_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    waived_at = models.DateTimeField(_("when"), auto_now_add=True)
    history = HistoricalRecords()

    class Meta:
        ordering = ["constraint__order", "pk"]
        verbose_name = _("constraint waiver")
        verbose_name_plural = _("constraint waivers")
        constraints = [
            models.UniqueConstraint(
                fields=["candidate", "constraint"], name="constraint_waiver_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.candidate} · {self.constraint}"


class StatusChange(SignallingModel):
    """Every status move, with the reason where one is required (reopening)."""

    evaluation = models.ForeignKey(
        Evaluation, on_delete=models.CASCADE, related_name="status_changes"
    )
    from_status = models.CharField(_("from"), max_length=10, choices=Status.choices)
    to_status = models.CharField(_("to"), max_length=10, choices=Status.choices)
    reason = BoundedTextField(_("reason"), blank=True)
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    changed_at = models.DateTimeField(_("when"), auto_now_add=True)

    class Meta:
        ordering = ["-changed_at", "-pk"]
        verbose_name = _("status change")
        verbose_name_plural = _("status changes")

    def __str__(self) -> str:
        return f"{self.from_status} → {self.to_status}"


from .models_digests import StatusDigest, StatusStamp  # noqa: E402,F401
