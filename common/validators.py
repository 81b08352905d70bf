from django.core.validators import RegexValidator
from django.utils.translation import gettext_lazy as _

# Stable keys of seeded, admin-editable rows (questions, areas, test cases...).
key_validator = RegexValidator(
    r"^[a-z][a-z0-9_]*$", _("Use lowercase letters, digits and underscores.")
)
