import unicodedata

from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator
from django.utils.translation import gettext_lazy as _

# Stable keys of seeded, admin-editable rows (questions, areas, test cases...).
key_validator = RegexValidator(
    r"^[a-z][a-z0-9_]*$", _("Use lowercase letters, digits and underscores.")
)


def no_hidden_characters(value: str) -> None:
    """Refuse control and format characters (bidi overrides, zero-width marks) in an address:
    "https://\u202eexe.gpj" shows another address than it opens."""
    if any(unicodedata.category(ch) in ("Cc", "Cf") for ch in value or ""):
        raise ValidationError(
            _(
                "This address contains invisible or direction characters, so it would show "
                "a different address than it opens. Type or paste it again."
            ),
            code="hidden_characters",
        )
