"""Building the documentation site (MkDocs, mkdocs.yml) for the tests that read or serve it, as
`make docs` does: strict, into a folder of the test's own."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# The build takes a second or two; past this something is wrong (a plugin waiting on a network).
BUILD_TIMEOUT = 20


def build_site(site_dir: Path, config: Path = ROOT / "mkdocs.yml") -> subprocess.CompletedProcess:
    return subprocess.run(
        # Not --quiet: it hides the warnings --strict counts, and the build then passes.
        [sys.executable, "-m", "mkdocs", "build", "--strict"]
        + ["--config-file", str(config), "--site-dir", str(site_dir)],
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT,
        cwd=config.parent,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
