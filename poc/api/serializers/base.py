"""What the POC API's serializers share: the schema's help texts and the decimal fields
(numbers travel as strings)."""

from decimal import Decimal

from common.http import DecimalField

# Schema texts are plain (the API documentation is English); messages a user sees are translated.
TEXT_HELP = "For a case copied from the library: the library's text in the request language."
HIDDEN_HELP = (
    "Null while other reviewers' submitted scores for this cell are hidden from you (submit "
    "your own first), or while the cell has no submitted score."
)
HIDDEN_CELLS_HELP = (
    "Cells other reviewers have scored but you have not: they count as missing in every total "
    "and figure you are shown until you submit your own score for them (always 0 for the "
    "owner and viewers)."
)


def decimal(places: int, **kwargs) -> DecimalField:
    return DecimalField(
        max_digits=20, decimal_places=places, coerce_to_string=True, read_only=True, **kwargs
    )


class NumberField(DecimalField):
    """A number as the client meant it: trailing zeros after the point are dropped (4.00 is 4)
    instead of padding it to `decimal_places` (4.0000), so the services judge the value given
    and the models' digit limits see no zeros that were never part of it."""

    def validate_precision(self, value):
        if value.as_tuple().exponent < 0:
            integral = value == value.to_integral_value()
            value = value.quantize(Decimal(1)) if integral else value.normalize()
        return super().validate_precision(value)

    def quantize(self, value):
        return value
