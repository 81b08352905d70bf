"""Responsibility API serializers.

Input serializers only parse types; every rule (letters, one accountable party, effort and money
ranges, versions, permissions) is enforced by `responsibility.services`, so the pages and the API
cannot drift. Output serializers read what `responsibility.selectors` built. Money and effort are
Decimal and travel as strings.
"""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from common.fields import text_limit
from common.http import DecimalField, IntegerField, ModelSerializer, VersionField
from evaluations.api.serializers import SolutionBriefSerializer

from ..checks import LETTERS
from ..models import AreaRow, CostInput, CostSettings, Party, PartyKind

# Schema texts are plain (the API documentation is English); messages a user sees are translated.
LETTER_HELP = (
    "R (responsible), A (accountable), AR (accountable and responsible), C (consulted) or "
    "I (informed); RA and A+R are read as AR, case does not matter, and an empty string clears "
    "the cell. Other combinations (RC, AA, ...) are refused."
)
ROW_STATUS_HELP = (
    "ok (one A, at least one R), gap (nobody accountable), conflict (two or more A), "
    "no_responsible (an A but no R) or unanswered (no letter at all)."
)
KEEP_HELP = "Omit to keep the saved value."


def money(**kwargs) -> DecimalField:
    return DecimalField(
        max_digits=18, decimal_places=2, coerce_to_string=True, read_only=True, **kwargs
    )


def fte(**kwargs) -> DecimalField:
    return DecimalField(
        max_digits=7, decimal_places=2, coerce_to_string=True, read_only=True, **kwargs
    )


def percent(**kwargs) -> DecimalField:
    return DecimalField(
        max_digits=4, decimal_places=1, coerce_to_string=True, read_only=True, **kwargs
    )


class CountField(serializers.IntegerField):
    """How many items a list holds (e.g. the areas with a gap)."""

    def __init__(self, **kwargs):
        super().__init__(read_only=True, **kwargs)

    def to_representation(self, value):
        return len(value)


class AreaKeysField(serializers.ListField):
    """Areas shown by key."""

    child = serializers.CharField()

    def to_representation(self, areas):
        return [area.key for area in areas]


@extend_schema_field({"type": "string", "enum": list(LETTERS)})
class LetterField(serializers.CharField):
    """A saved cell value: one of R, A, AR, C, I."""


@extend_schema_field({"type": "string", "enum": [*LETTERS, ""]})
class LetterInputField(serializers.CharField):
    """A typed cell value; the services read aliases (RA, A+R) and refuse the rest."""

    def __init__(self, **kwargs):
        super().__init__(allow_blank=True, max_length=10, help_text=LETTER_HELP, **kwargs)


class LettersField(serializers.DictField):
    """A row's letters by party key (the selectors key them by party id)."""

    child = LetterField(help_text=LETTER_HELP)

    def to_representation(self, letters):
        keys = self.context.get("party_keys", {})
        return {keys.get(pid, str(pid)): letter for pid, letter in letters.items()}


# --- library ---------------------------------------------------------------------------------


class PartySerializer(ModelSerializer):
    shared = serializers.SerializerMethodField(
        help_text="True for the parties every evaluation sees; false for this evaluation's own."
    )

    class Meta:
        model = Party
        fields = ("id", "key", "name", "kind", "shared")
        read_only_fields = fields

    def get_shared(self, party) -> bool:
        return party.evaluation_id is None


class PartyAddSerializer(serializers.Serializer):
    name = serializers.CharField(allow_blank=True, max_length=100)
    kind = serializers.ChoiceField(choices=PartyKind.choices)


class AreaGroupBriefSerializer(serializers.Serializer):
    key = serializers.CharField()
    name = serializers.CharField()


class AreaSerializer(serializers.Serializer):
    """One area of the library, named in the request's language and in both languages."""

    key = serializers.CharField()
    name = serializers.CharField()
    name_en = serializers.CharField()
    name_zh_hans = serializers.CharField()
    group = AreaGroupBriefSerializer()
    governance = serializers.BooleanField(
        help_text="Permissions, audit, quotas and the like: someone internal must own them."
    )
    description = serializers.CharField()


# --- matrices --------------------------------------------------------------------------------


class MatrixRowSerializer(serializers.Serializer):
    """One area of a candidate's matrix (version 0 and no letters before it is first saved)."""

    area = serializers.CharField(source="area.key")
    area_name = serializers.CharField(source="area.name")
    group = serializers.CharField(source="area.group.key")
    governance = serializers.BooleanField(source="area.governance")
    version = serializers.IntegerField()
    note = serializers.SerializerMethodField()
    internal_fte = fte(source="fte", help_text="Internal platform team effort, in FTE.")
    letters = LettersField(
        help_text="Party key → R, A, AR, C or I; parties without a letter are absent."
    )
    status = serializers.CharField(source="check.status", help_text=ROW_STATUS_HELP)
    accountable = serializers.ListField(
        child=serializers.CharField(),
        source="check.accountable",
        help_text="Party keys with A or AR.",
    )
    responsible = serializers.ListField(
        child=serializers.CharField(),
        source="check.responsible",
        help_text="Party keys with R or AR.",
    )

    def get_note(self, row) -> str:
        return row.row.note if row.row else ""


class MatrixSummarySerializer(serializers.Serializer):
    """The check of one candidate's matrix, read from a `selectors.MatrixView`."""

    candidate = serializers.IntegerField(source="candidate.pk")
    solution = SolutionBriefSerializer(source="candidate.solution")
    started = serializers.BooleanField(help_text="Whether any area has been saved yet.")
    coverage = percent(
        source="result.coverage", help_text="Share of areas with one A and at least one R (%)."
    )
    complete = serializers.BooleanField(source="result.complete")
    areas = CountField(source="rows")
    ok = serializers.IntegerField(source="result.ok_count")
    gaps = CountField(source="result.gaps", help_text="Areas with nobody accountable.")
    conflicts = CountField(source="result.conflicts", help_text="Areas with two or more A.")
    unanswered = CountField(source="result.unanswered", help_text="Areas with no letter.")
    no_responsible = CountField(source="result.no_responsible", help_text="An A but no R.")
    fte_total = fte(help_text="Internal effort over every area, in FTE.")
    governance_without_internal_owner = AreaKeysField(
        help_text="Governance areas for which no internal party is accountable."
    )


class MatrixSerializer(MatrixSummarySerializer):
    parties = PartySerializer(many=True, help_text="The matrix columns, in order.")
    rows = MatrixRowSerializer(many=True)


class MatrixPrefillSerializer(MatrixSerializer):
    added = serializers.IntegerField(help_text="Areas filled now; rows already saved are kept.")


class RowWriteSerializer(serializers.Serializer):
    letters = serializers.DictField(
        child=LetterInputField(),
        required=False,
        help_text="Party key → letter; replaces every letter of the row. " + KEEP_HELP,
    )
    note = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=text_limit(AreaRow, "note"),
        help_text=KEEP_HELP,
    )
    internal_fte = DecimalField(
        max_digits=5, decimal_places=2, required=False, help_text="0 to 50. " + KEEP_HELP
    )
    version = VersionField()


class CellWriteSerializer(serializers.Serializer):
    letter = LetterInputField()
    version = VersionField()


# --- costs -----------------------------------------------------------------------------------


class CostSettingsSerializer(ModelSerializer):
    """The evaluation's cost settings; before they are first saved, the defaults and version 0."""

    class Meta:
        model = CostSettings
        fields = ("years", "currency", "fte_cost_per_year", "version")
        read_only_fields = fields


class CostSettingsWriteSerializer(serializers.Serializer):
    years = serializers.IntegerField(required=False, help_text="1 to 10. " + KEEP_HELP)
    currency = serializers.CharField(
        required=False, max_length=3, help_text="Three letters, e.g. CNY. " + KEEP_HELP
    )
    fte_cost_per_year = DecimalField(
        max_digits=16, decimal_places=2, required=False, help_text=KEEP_HELP
    )
    version = VersionField()


MISSING_HELP = (
    "True when nobody has saved this candidate's cost inputs yet: its costs are unknown, not "
    "zero, so the totals are null and the years empty."
)


class CostInputSerializer(ModelSerializer):
    """A candidate's cost inputs; before they are first saved, `missing` is true and the
    figures are the defaults a first save starts from (zeros, utilisation 1), with version 0."""

    candidate = serializers.IntegerField(source="candidate_id", read_only=True)
    has_price = serializers.BooleanField(read_only=True)
    missing = serializers.SerializerMethodField(
        help_text="True until someone saves these inputs; the figures are then only defaults."
    )

    class Meta:
        model = CostInput
        fields = ("candidate", *CostInput.INPUT_FIELDS, "has_price", "missing", "version")
        read_only_fields = fields

    def get_missing(self, data: CostInput) -> bool:
        return data.pk is None


def _amount(max_digits=16, decimal_places=2, **kwargs) -> DecimalField:
    return DecimalField(
        max_digits=max_digits, decimal_places=decimal_places, required=False, **kwargs
    )


class CostInputWriteSerializer(serializers.Serializer):
    licence_per_year = _amount()
    vendor_services_per_year = _amount()
    gpu_count = IntegerField(required=False)
    gpu_hours_per_year = _amount(max_digits=8, decimal_places=1, help_text="0 to 8784.")
    gpu_price_per_hour = _amount(max_digits=12, decimal_places=4)
    utilisation = _amount(max_digits=4, decimal_places=3, help_text="0 to 1.")
    hardware_one_off = _amount()
    hardware_per_year = _amount()
    one_off = _amount(help_text="Integration, migration, training; counted in year 1.")
    version = VersionField()


class WhatIfSerializer(serializers.Serializer):
    """Drivers to try without saving: each replaces the saved value for every candidate."""

    gpu_count = IntegerField(min_value=0, required=False)
    utilisation = DecimalField(
        max_digits=4,
        decimal_places=3,
        min_value=0,
        max_value=1,
        required=False,
        coerce_to_string=True,
    )
    fte_cost_per_year = DecimalField(
        max_digits=16, decimal_places=2, min_value=0, required=False, coerce_to_string=True
    )


class YearCostSerializer(serializers.Serializer):
    year = serializers.IntegerField()
    licences = money()
    services = money()
    cloud = money()
    hardware = money(help_text="Yearly hardware, plus hardware bought up front in year 1.")
    one_off = money()
    people = money()
    total = money()
    cumulative = money()


class CandidateCostSerializer(serializers.Serializer):
    """One candidate's cost of ownership, read from a `selectors.CandidateCost`."""

    candidate = serializers.IntegerField(source="candidate.pk")
    solution = SolutionBriefSerializer(source="candidate.solution")
    fte = fte(help_text="Internal effort from the candidate's matrix, in FTE.")
    has_price = serializers.BooleanField(source="data.has_price")
    input_version = serializers.IntegerField(source="data.version")
    missing = serializers.BooleanField(source="result.missing", help_text=MISSING_HELP)
    years = YearCostSerializer(
        many=True, source="result.years", help_text="Year by year; empty when `missing`."
    )
    total = money(source="result.total", allow_null=True, help_text="Null when `missing`.")
    people_total = money(
        source="result.people_total", allow_null=True, help_text="Null when `missing`."
    )
    people_share = percent(
        source="result.people_share",
        allow_null=True,
        help_text="People's share of the total; null when `missing`.",
    )


class CostsSerializer(serializers.Serializer):
    years = serializers.IntegerField(source="settings.years")
    currency = serializers.CharField(source="settings.currency")
    fte_cost_per_year = money(help_text="The loaded cost per FTE-year used (what-if or saved).")
    settings_version = serializers.IntegerField(source="settings.version")
    what_if = WhatIfSerializer(help_text="The what-if values applied (nothing is saved).")
    candidates = CandidateCostSerializer(many=True)
