"""What every part of a catalog bundle shares: the format's names and limits, the kinds of
rows and the refusals."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError

from ..models import (
    SupportLevel,
)

FORMAT = "shortlist-catalog-bundle"
FORMAT_VERSION = 1
CATALOG_NAME = "catalog.yaml"
MANIFEST_NAME = "manifest.json"
MAX_BYTES = getattr(settings, "CATALOG_BUNDLE_MAX_BYTES", 20 * 1024 * 1024)
# A manifest names two files and who exported them when: a few hundred bytes.
MANIFEST_MAX_BYTES = 64 * 1024
HISTORY_REASON = "Imported from a catalog bundle"
MAX_PROBLEMS = 20

# The kinds of rows, in the loader's order, with the label a page shows.
KINDS = (
    "sources",
    "solution_types",
    "scenarios",
    "capability_groups",
    "capabilities",
    "solutions",
    "claims",
    "shortlist_rules",
    "accelerator_families",
    "accelerator_support",
)
STATUSES = ("new", "changed", "unchanged", "kept")
SOURCED = set(SupportLevel.values) - {SupportLevel.UNKNOWN}


class BundleRefused(ValidationError):
    """A bundle this installation will not read or apply; the messages say what to do."""


class BundleStale(BundleRefused):
    """The catalog changed between the preview of a bundle and its application."""
