"""The licence the repository ships is the one its package metadata declares."""

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_project_is_apache_2_licensed_in_text_and_metadata():
    text = (ROOT / "LICENSE").read_text()
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert "END OF TERMS AND CONDITIONS" in text  # the whole licence, not a pointer to it
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == "Apache-2.0"
    assert project["license-files"] == ["LICENSE"]
