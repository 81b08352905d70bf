"""Lower apps never import higher ones. The project's apps are layered in the order
INSTALLED_APPS lists them (common, catalog, evaluations, responsibility, poc, reports, signoff,
portable): a module may import its own app and the apps listed before it, never one listed
after, not even lazily inside a function. A higher app contributes to a lower one through
evaluations.extensions (and the registries still to move there)."""

import ast
import re
from pathlib import Path

from django.conf import settings

ROOT = Path(__file__).resolve().parents[1]


def project_apps() -> list[str]:
    tops = [name.split(".")[0] for name in settings.INSTALLED_APPS]
    return [top for top in dict.fromkeys(tops) if (ROOT / top / "apps.py").exists()]


def imported_modules(path: Path):
    """(line, module) of every import in the file, at any depth (functions included)."""
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.lineno, node.module


def against_the_grain(root: Path = ROOT) -> list[str]:
    layers = project_apps()
    rank = {app: i for i, app in enumerate(layers)}
    found = []
    for app in layers:
        for path in sorted((root / app).rglob("*.py")):
            if "migrations" in path.parts:  # historical state: they name models by string
                continue
            for line, module in imported_modules(path):
                top = module.split(".")[0]
                if rank.get(top, -1) > rank[app]:
                    found.append(f"{path.relative_to(root)}:{line} imports {module}")
    return found


def test_the_layers_are_the_installed_apps_order():
    assert project_apps()[:3] == ["common", "catalog", "evaluations"]
    assert set(project_apps()) >= {"responsibility", "poc", "reports", "signoff", "portable"}
    assert project_apps().index("signoff") == project_apps().index("reports") + 1


def test_no_app_imports_a_higher_one():
    assert against_the_grain() == []


def test_the_check_finds_imports_at_the_top_and_inside_a_function(tmp_path):
    (tmp_path / "common").mkdir()
    probe = tmp_path / "common" / "probe.py"
    probe.write_text("import catalog\n\ndef f():\n    from reports.sections import ALL\n")
    assert against_the_grain(tmp_path) == [
        "common/probe.py:1 imports catalog",
        "common/probe.py:4 imports reports.sections",
    ]


# Names of a higher app's URLs, permissions, models or templates written in evaluations' own
# code and templates ("poc:scorecard", "portable.export_evaluation", "reports/…",
# "signoff:approvals"): each is a dependency the import check cannot see.
HIGHER_NAME = re.compile(r"""['"](?:poc|responsibility|reports|signoff|portable)[:./][\w/.-]+""")


def test_evaluations_names_no_higher_apps_urls_permissions_or_templates():
    files = [
        *(p for p in (ROOT / "evaluations").rglob("*.py") if "migrations" not in p.parts),
        *(ROOT / "templates" / "evaluations").rglob("*.html"),
        *(ROOT / "templates" / "evaluations").rglob("*.jinja"),
    ]
    named = {
        f"{path.relative_to(ROOT)}: {match}"
        for path in files
        for match in HIGHER_NAME.findall(path.read_text())
    }
    assert named == set()
