"""The form renderer: Django's own widget templates through Jinja2, which renders them in about a
third of the time the template engine takes (it counts on pages with hundreds of fields), and
Django's template engine for any widget template that exists only there (the admin's, other
apps')."""

from pathlib import Path

import django.forms
from django.forms.renderers import DjangoTemplates, Jinja2
from django.template import TemplateDoesNotExist
from django.utils.functional import cached_property

# Django's own widget templates, after this app's versions of a few of them (common/jinja2/:
# the select and the checkbox and radio lists, with their options written in place).
WIDGET_DIRS = [Path(__file__).parent / "jinja2", Path(django.forms.__file__).parent / "jinja2"]


class FastFormRenderer(Jinja2):
    fallback = DjangoTemplates()

    @cached_property
    def engine(self):
        return self.backend(
            {"APP_DIRS": True, "DIRS": WIDGET_DIRS, "NAME": "djangoforms", "OPTIONS": {}}
        )

    def get_template(self, template_name):
        try:
            return super().get_template(template_name)
        except TemplateDoesNotExist:
            return self.fallback.get_template(template_name)
