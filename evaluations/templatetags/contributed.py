"""`{% contributed_links "overview" evaluation as links %}`: the links other apps add to a page
of evaluations (evaluations.extensions), those the viewer may follow, with their URLs."""

from django import template
from django.urls import reverse

from evaluations.extensions import links_at

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
