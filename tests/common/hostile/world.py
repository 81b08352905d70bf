"""The world the corpus is sent into: an evaluation with every kind of row, and the ids and
values a write needs."""

from __future__ import annotations

import re

from common import roles
from evaluations.models import MemberRole
from poc import services as poc_services
from tests.common.hostile.api_ops import ApiOp
from tests.conftest import make_user
from tests.factories import CapabilityFactory, make_everything
from tests.pageforms import PageForm


class World:
    """The evaluation of make_everything plus what a few writes need, and how to name its rows
    in a path or a body."""

    def __init__(self, owner, people):
        from catalog.models import CapabilityClaim, ShortlistRule, Solution, Source
        from evaluations.models import ContextQuestion, FiveQuestion

        self.owner, self.people = owner, people
        self.evaluation = e = make_everything(owner, people)
        self.admin = make_user(roles.ADMIN, username="hostile-admin")
        self.outsider = people["outsider"]
        self.slurm = e.candidates.get(solution__slug="slurm")
        self.volcano = e.candidates.get(solution__slug="volcano")
        self.eliminated = e.candidates.get(status="eliminated")
        self.measured = e.poc_cases.get(title="Own case with a metric")
        # The owner scores too: a submitted score far from the reviewer's (a disagreement, so
        # the consensus form shows) and a draft on another cell (so its evidence form shows).
        poc_services.score_save(
            user=owner, case=self.measured, candidate=self.slurm, score="0", expected_version=None
        )
        poc_services.scores_submit(user=owner, evaluation=e)
        poc_services.score_save(
            user=owner, case=self.measured, candidate=self.volcano, score="3",
            expected_version=None,
        )  # fmt: skip
        # Test beds for the two shortlisted candidates on different accelerators, declared
        # equivalent (the withdraw form shows; a second declaration of the pair is allowed).
        from poc.testbeds.comparable import equivalence_declare
        from poc.testbeds.services import bed_save

        bedded = list(e.candidates.filter(status="shortlisted").order_by("pk")[:2])
        for i, candidate in enumerate(bedded):
            bed_save(
                user=owner, candidate=candidate, expected_version=None,
                accelerator_vendor="NVIDIA", accelerator_model=f"A{800 + i}",
            )  # fmt: skip
        self.bedded = bedded
        self.equivalence = equivalence_declare(
            user=owner, evaluation=e, first=bedded[0], second=bedded[1], reason="Same pool."
        )
        # One open high reminder acknowledged (its withdraw form shows), the others open (their
        # acknowledge forms show): the decided gate's list has both kinds of form.
        from evaluations.acknowledgements import high_reminders
        from evaluations.selectors import evaluation_data
        from evaluations.services.acknowledgements import reminder_acknowledge

        highs = high_reminders(evaluation_data(e))
        assert len(highs) >= 2, "the world needs open high reminders for the gate's forms"
        self.acknowledged_key = highs[0].key
        reminder_acknowledge(
            user=owner, evaluation=e, key=highs[0].key, reason="Accepted for the test.",
            expected_version=None,
        )  # fmt: skip
        self.unused_solution = Solution.objects.exclude(
            pk__in=e.candidates.values("solution")
        ).order_by("slug")[0]
        self.new_capability = CapabilityFactory()  # a capability no claim names yet
        from catalog.models import AcceleratorFamily

        # Every entry has a row for every family the catalog knows: a new family has none yet.
        self.new_family = AcceleratorFamily.objects.create(
            slug="hostile-accelerator", name="Hostile accelerator", order=999
        )
        self.context_key = ContextQuestion.objects.filter(is_active=True).order_by("order")[0].key
        self.five_key = FiveQuestion.objects.filter(is_active=True).order_by("order")[0].key
        self.claim = CapabilityClaim.objects.order_by("pk")[0]
        self.rule = ShortlistRule.objects.order_by("pk")[0]
        self.source = Source.objects.order_by("pk")[0]
        self.editor_membership = e.memberships.get(user=people[MemberRole.EDITOR])
        # Volcano leaves one hard constraint unverified and violates another, so the shortlist
        # shows its "verify in the POC" and "waive" forms too.
        CapabilityClaim.objects.filter(
            solution__slug="volcano", capability__slug="private-deployment"
        ).update(level="unknown")
        CapabilityClaim.objects.filter(
            solution__slug="volcano", capability__slug="localised-accelerators"
        ).update(level="none")
        type(e).objects.filter(pk=e.pk).update(localisation_required=True)
        e.refresh_from_db()
        # Declared conflicts of interest: the editor's with Volcano blocks (make_everything); the
        # reviewer's with Volcano is allowed, so the owner's "revoke" shows too.
        from poc import conflicts
        from poc.models import ConflictDeclaration

        self.blocked = ConflictDeclaration.objects.get(
            candidate=self.volcano, member=people[MemberRole.EDITOR]
        )
        self.volcano.evaluation = e
        allowed = conflicts.declaration_save(
            user=people[MemberRole.REVIEWER],
            candidate=self.volcano,
            has_conflict=True,
            description="Holds shares in the vendor.",
            expected_version=None,
        )
        self.allowed = conflicts.allowance_grant(
            user=owner, declaration=allowed, reason="A small holding.", expected_version=None
        )
        # A decided evaluation with a finished report and approvals in every state: the only
        # kind whose approvals page shows its forms (the owner's own request is pending).
        from signoff.models import Approval

        self.sealed = make_everything(owner, people, sealed=True)
        self.sealed_run = self.sealed.report_runs.get()
        self.own_approval = Approval.objects.get(
            evaluation=self.sealed, approver=owner, voided_at=None
        )
        self.free_approver = people[MemberRole.REVIEWER]  # their request was withdrawn
        # One library case out of the plan, so the "add from the library" form has a choice.
        poc_services.plan_case_remove(
            user=owner, case=e.poc_cases.filter(source_case__isnull=False).order_by("-pk")[0]
        )

    def path_value(self, template: str, name: str) -> str:
        """The value of one path parameter of a schema path."""
        from catalog import models as catalog

        before = template.split("{" + name + "}")[0].rstrip("/").rsplit("/", 1)[-1]
        e = self.evaluation
        if name == "candidate_pk" or (name == "id" and before == "candidates"):
            if template.endswith("/restore/"):
                return self.eliminated.pk
            if any(part in template for part in ("/score/", "/evidence/", "/waivers/")):
                return self.volcano.pk
            return self.slurm.pk
        simple = {
            ("evaluation_pk", None): e.pk,
            ("id", "evaluations"): e.pk,
            ("id", "members"): self.editor_membership.pk,
            ("id", "claims"): self.claim.pk,
            ("id", "accelerator-support"): catalog.AcceleratorSupport.objects.order_by("pk")[0].pk,
            ("question_key", "context"): self.context_key,
            ("question_key", "answers"): self.five_key,
            ("area_key", None): "job_execution",
            ("case_pk", None): self.measured.pk,
            ("group_key", None): self.measured.group.key,
            ("key", "sources"): self.source.key,
            ("key", "shortlist-rules"): self.rule.key,
            ("key", "acknowledgements"): self.acknowledged_key,
            ("equivalence_pk", None): self.equivalence.pk,
            ("term", None): "p1_response",
        }
        if "/approvals/" in template and name == "evaluation_pk":
            return self.sealed.pk
        if name == "approval_pk":
            return self.own_approval.pk
        if name == "declaration_pk":
            return (self.allowed if template.endswith("/revoke/") else self.blocked).pk
        if (name, before) in simple:
            return simple[(name, before)]
        if (name, None) in simple:
            return simple[(name, None)]
        if name == "party_key":
            return "internal_platform" if self._has_party("internal_platform") else self._party()
        if name == "slug":
            model = {
                "solution-types": catalog.SolutionType,
                "scenarios": catalog.Scenario,
                "capability-groups": catalog.CapabilityGroup,
                "capabilities": catalog.Capability,
                "solutions": catalog.Solution,
                "accelerator-families": catalog.AcceleratorFamily,
            }[before]
            return model.objects.order_by("pk")[0].slug
        raise AssertionError(f"no value for {{{name}}} in {template}: teach World.path_value")

    def _has_party(self, key) -> bool:
        from responsibility.models import Party

        return Party.objects.filter(key=key).exists()

    def _party(self) -> str:
        from responsibility.selectors import parties_for

        return parties_for(self.evaluation)[0].key

    def path(self, template: str) -> str:
        return re.sub(r"\{(\w+)\}", lambda m: str(self.path_value(template, m.group(1))), template)

    def page_overrides(self, form: PageForm) -> dict:
        """Values a page form needs that the page cannot show (a user to add)."""
        if form.label == "evaluations:evaluation_members[add]":
            return {"username": self.outsider.username, "role": "viewer"}
        if form.route == "poc:bed_equivalence_declare":
            return {"first": str(self.bedded[0].pk), "second": str(self.bedded[1].pk)}
        if form.route == "responsibility:support":
            return {"amount": "4"}  # the first term offered is a time in hours
        if form.label == "poc:plan[custom]":
            return {"metric_direction": ""}  # a direction needs a threshold: neither
        if form.label == "evaluations:evaluation_shortlist[stack]":
            # The layer menus start empty; a user picks two different solutions.
            return {
                "layer_execution": "",
                "layer_batch_queue": "volcano",
                "layer_governance": "enterprise-container-platform",
                "layer_burst": "",
                "layer_other": "",
                "main": "governance",
            }
        return {}

    def upload_for(self, where: str) -> tuple[str, bytes] | None:
        """The valid file a form or an API write takes, when "run.txt" is not one: a measurement
        import (a page route or a schema path) takes a CSV of the reviewer's draft cell."""
        if where == "poc:imports" or where.endswith("/poc/imports/"):
            rows = f"candidate,case,value\n{self.volcano.pk},{self.measured.pk},12\n"
            return "measurements.csv", rows.encode()
        return None

    def overrides(self, op: ApiOp) -> dict:
        """Values a valid body needs that neither the schema nor the GET can give."""
        t, m = op.template, op.method
        if t == "/api/evaluations/" and m == "post":
            return {"scenarios": ["training"]}
        if t.endswith("/candidates/stacks/"):
            return {
                "main": "governance",
                "layers": [
                    {"role": "batch_queue", "solution": "volcano"},
                    {"role": "governance", "solution": "enterprise-container-platform"},
                ],
            }
        if t.endswith("/candidates/") and m == "post":
            return {"solution": self.unused_solution.slug, "reason": "Worth a look."}
        if t.endswith("/waivers/"):
            return {"constraint": "localisation", "reason": "Accepted for now."}
        if t.endswith("/plan/verify/"):
            return {"capability": "private-deployment"}
        if t.endswith("/members/") and m == "post":
            return {"username": self.outsider.username, "role": "viewer"}
        if t.endswith("/members/{id}/"):
            return {"role": "viewer"}
        if t.endswith("/transition/"):
            return {"status": "draft", "reason": "Back to the drawing board."}
        if t.endswith("/plan/cases/") and m == "post":
            return {
                "group": self.measured.group.key,
                "title": "Hostile case",
                "acceptance": "Works.",
            }
        if t.endswith("/plan/profile/"):
            from poc.models import ScenarioProfile

            return {"profile": ScenarioProfile.objects.order_by("pk")[0].key}
        if t.endswith("/reports/") and m == "post":
            return {"language": "en", "sections": ["types"]}
        if t == "/api/catalog/claims/" and m == "post":
            return {
                "solution": "slurm",
                "capability": self.new_capability.slug,
                "level": "unknown",
            }
        if t == "/api/catalog/accelerator-support/" and m == "post":
            return {
                "solution": "slurm",
                "family": self.new_family.slug,
                "level": "unknown",
                "sources": [],
            }
        if t.endswith("/answers/{question_key}/"):
            return {"parties": ["internal"]}  # the first question asks who
        if "/conflicts/candidates/" in t:
            return {"has_conflict": True, "description": "Former reseller agreement."}
        if t.endswith("/approvals/") and m == "post":
            return {"approver": self.free_approver.username, "role": "Quality"}
        if t.endswith("/decide/"):
            return {"decision": "approved", "run": self.sealed_run.pk, "comment": "Read it."}
        if t.endswith("/allow/"):
            return {"reason": "Public facts only."}
        if t.endswith("/testbeds/equivalences/") and m == "post":
            return {"first": self.bedded[0].pk, "second": self.bedded[1].pk}
        if "/support-terms/" in t and m == "put":
            return {"amount": "4", "source_kind": "contract", "source": "Clause 7.2"}
        if t.endswith("/consensus/"):
            return {"score": "2", "reason": "Agreed."}
        if t.endswith("/score/"):
            return {"score": "3"}
        if "/cells/{party_key}/" in t:
            return {"letter": "R"}
        if t.endswith("/parties/"):
            return {"name": "Hostile Ltd", "kind": "other"}
        return {}
