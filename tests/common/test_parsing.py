"""Bounds on parsing uploaded data (common/parsing.py): counted outside strings, in linear time."""

import io
import time
import zipfile

import pytest

from common.parsing import InputRefused, check_json_bounds, json_loads, read_member


@pytest.mark.parametrize(
    "text",
    [
        '{"a": [1, 2, {"b": null}]}',
        '["[[[[[[[[", "{{{{{{{{{{"]',  # brackets inside strings are text
        '["\\"[[[[[[[[[[[[", "\\\\"]',  # so are they after an escaped quote
        "",
    ],
)
def test_what_shortlist_reads_passes(text):
    check_json_bounds(text, max_depth=3, max_values=10)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[" * 5, "nested more than 3 levels"),
        ('{"a": {"b": {"c": {}}}}', "nested more than 3 levels"),
        ("[" + "0," * 20 + "0]", "more than 10 values"),
        ('["' + '", "' * 20 + '"]', "more than 10 values"),
    ],
)
def test_too_deep_or_too_many_values_is_refused_before_parsing(text, message):
    with pytest.raises(InputRefused, match=message):
        check_json_bounds(text, max_depth=3, max_values=10)


def test_an_unclosed_string_full_of_escaped_quotes_is_scanned_in_linear_time():
    text = '"\\' * 2_000_000  # every quote would start a string running to the end
    started = time.monotonic()
    check_json_bounds(text)
    assert time.monotonic() - started < 5


def test_json_loads_refuses_as_a_value_error_and_parses_otherwise():
    assert json_loads('{"a": [1]}') == {"a": [1]}
    with pytest.raises(ValueError, match="nested more than"):
        json_loads("[" * 200000)


def test_a_zip_member_is_read_up_to_its_limit_only():
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("small.json", b"[1]")
        archive.writestr("big.json", b"0" * 5000)
    with zipfile.ZipFile(out) as archive:
        assert read_member(archive, "small.json", 3) == b"[1]"
        with pytest.raises(InputRefused, match="big.json is larger than"):
            read_member(archive, "big.json", 4999)
        archive.getinfo("big.json").file_size = 10  # an entry that understates its size
        with pytest.raises((InputRefused, zipfile.BadZipFile)):
            read_member(archive, "big.json", 100)
