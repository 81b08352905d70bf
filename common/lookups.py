"""`__in` on an integer column with a value no such column can hold (a hostile id such as
2**63 or a 400-digit number from a form): Django leaves those out of `exact`, `gt` and friends
(they match nothing) but passes them on in `in`, where SQLite raises OverflowError (a 500).
Left out here too; a list of nothing but such values matches nothing."""

from django.core.exceptions import EmptyResultSet
from django.db.models import IntegerField
from django.db.models.lookups import In


@IntegerField.register_lookup
class IntegerFieldIn(In):
    def process_rhs(self, compiler, connection):
        if self.rhs_is_direct_value():
            try:
                low, high = connection.ops.integer_field_range(
                    self.lhs.output_field.get_internal_type()
                )
            except KeyError:  # an integer type the backend names no range for
                low = high = None
            kept = [
                v
                for v in self.rhs
                if not isinstance(v, int)
                or ((low is None or v >= low) and (high is None or v <= high))
            ]
            if self.rhs and not kept:
                raise EmptyResultSet
            self.rhs = kept
        return super().process_rhs(compiler, connection)
