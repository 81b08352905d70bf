"""`{% jinja "poc/plan_rows.jinja" %}`: render a block of a Django template with Jinja2
(common/jinja.py), with everything the Django template sees at that point, plus `name=value`
pairs given to the tag.

`csrf_input` is made once per block: Django's Jinja2 backend would mask a new token for every
form of every row (a fresh random string each time), which is most of a long table's time."""

from django import template
from django.middleware.csrf import get_token
from django.template import engines
from django.utils.html import format_html
from django.utils.safestring import mark_safe

register = template.Library()


@register.simple_tag(takes_context=True)
def jinja(context, name: str, **values) -> str:
    flat = context.flatten()
    flat.update(values)
    request = context.get("request")
    if request is not None:
        token = get_token(request)
        flat.update(
            request=request,
            csrf_token=token,
            csrf_input=format_html(
                '<input type="hidden" name="csrfmiddlewaretoken" value="{}">', token
            ),
        )
    # The Jinja2 template itself: the backend's wrapper would replace csrf_input per use.
    rendered = engines["jinja2"].get_template(name).template.render(flat)
    return mark_safe(rendered)  # noqa: S308 - Jinja2 escaped what it rendered (autoescape on)
