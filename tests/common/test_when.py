"""Dates and times a snapshot stores as ISO 8601 print in the reader's language and the
configured time zone (common/templatetags/when.py)."""

import pytest
from django.test import override_settings
from django.utils import translation

from common.templatetags.when import day, when


@override_settings(TIME_ZONE="Asia/Shanghai")
@pytest.mark.parametrize(
    "language, value, expected",
    [
        ("en", "2027-03-01T01:00:00+00:00", "March 1, 2027, 9 a.m."),
        ("zh-hans", "2027-03-01T01:00:00+00:00", "2027年3月1日 09:00"),
        ("zh-hans", "2027-03-01T09:30:00+08:00", "2027年3月1日 09:30"),
        ("en", "not a time", "not a time"),
        ("en", "", ""),
        ("en", None, ""),
    ],
)
def test_when(language, value, expected):
    with translation.override(language):
        assert when(value) == expected


@pytest.mark.parametrize(
    "language, value, expected",
    [
        ("en", "2026-11-30", "Nov. 30, 2026"),
        ("zh-hans", "2026-11-30", "2026年11月30日"),
        ("zh-hans", "2026-11-30T23:00:00+08:00", "2026年11月30日"),
        ("en", "someday", "someday"),
        ("en", None, ""),
    ],
)
def test_day(language, value, expected):
    with translation.override(language):
        assert day(value) == expected
