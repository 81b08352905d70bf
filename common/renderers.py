"""The form renderer: Django's own widget templates through Jinja2, which renders them in about a
third of the time the template engine takes (it counts on pages with hundreds of fields), and
Django's template engine for any widget template that exists only there (the admin's, other
apps')."""

from django.forms.renderers import DjangoTemplates, Jinja2
from django.template import TemplateDoesNotExist


class FastFormRenderer(Jinja2):
    fallback = DjangoTemplates()

    def get_template(self, template_name):
        try:
            return super().get_template(template_name)
        except TemplateDoesNotExist:
            return self.fallback.get_template(template_name)
