"""Model fields shared by the apps."""

from django.core.validators import MaxLengthValidator
from django.db import models

# The longest text a person types into one field. Short: a reason, an explanation, a note on
# one cell or one claim. Long: an evaluation's notes, a decision's rationale, a test case's steps,
# catalog prose. Both are far above anything the seeds or the demo hold (at most ~900 characters).
SHORT_TEXT = 2_000
LONG_TEXT = 10_000


class BoundedTextField(models.TextField):
    """A TextField whose max_length model validation enforces too.

    Django passes a TextField's max_length to form fields (and DRF to serializer fields) but does
    not check it in ``full_clean``; services save through ``full_clean``, so the limit belongs here.
    """

    def __init__(self, *args, max_length=SHORT_TEXT, **kwargs):
        super().__init__(*args, max_length=max_length, **kwargs)
        self.validators.append(MaxLengthValidator(self.max_length))


def text_limit(model, field: str) -> int:
    """The maximum length of a model's text field, for forms and serializers that repeat it."""
    return model._meta.get_field(field).max_length
