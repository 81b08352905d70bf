"""`{% contributed_links "overview" evaluation as links %}`: the links other apps add to a page
of evaluations (evaluations.extensions), those the viewer may follow, with their URLs.
`{% contributed_panels "decision" evaluation %}`: the panels other apps add there, rendered."""

from django import template
from django.urls import reverse
from django.utils.safestring import mark_safe

from evaluations.extensions import links_at, panels_at

register = template.Library()


@register.simple_tag(takes_context=True)
def contributed_links(context, place, evaluation=None):
    user = context["request"].user
    shown = []
    for link in links_at(place):
        if link.perm and not user.has_perm(link.perm, evaluation):
            continue
        kwargs = {"pk": evaluation.pk} if evaluation is not None else {}
        shown.append((link, reverse(link.url_name, kwargs=kwargs)))
    return shown


@register.simple_tag(takes_context=True)
def contributed_panels(context, place, evaluation=None):
    """Each panel's template, rendered like an include: with the page's context and what the
    panel's own function adds for this viewer."""
    user = context["request"].user
    shown = []
    for panel in panels_at(place):
        extra = panel.context(user, evaluation) if panel.context else {}
        with context.push(**extra):
            shown.append(context.template.engine.get_template(panel.template).render(context))
    return mark_safe("".join(shown))
