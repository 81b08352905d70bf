"""Stacks the stack-control tests compose (evaluations and responsibility read the same)."""

from catalog.models import Solution
from evaluations import services
from evaluations.reminders import reminders_for
from evaluations.selectors import evaluation_data

# The seeded catalog: Kueue and Volcano claim queues and quotas natively, and so does the
# enterprise container platform its project quotas.
THREE_QUOTAS = {
    "execution": "kueue",
    "batch_queue": "volcano",
    "governance": "enterprise-container-platform",
}
# The GPU operator claims none of the four controls; Kueue claims GPU monitoring only partly.
NO_DUPLICATES = {"execution": "nvidia-gpu-operator", "batch_queue": "kueue"}


def compose(evaluation, owner, layers, *, main="governance", name="Queues + platform"):
    return services.candidate_compose_stack(
        user=owner,
        evaluation=evaluation,
        name=name,
        reason="Open source underneath, a platform on top.",
        layers={role: Solution.objects.get(slug=slug) for role, slug in layers.items()},
        main=main,
    )


def reminders(evaluation):
    return {r.key: r for r in reminders_for(evaluation_data(evaluation))}
