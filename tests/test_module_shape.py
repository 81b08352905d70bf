"""The shape of the code: no import cycles between the project's modules, no private name
(a leading underscore) imported from another module, and no module over 450 lines.

Imports are read from the source (ast), at any depth, so an import inside a function that
dodges a cycle at import time still counts as the cycle it is."""

from __future__ import annotations

import ast
from pathlib import Path

from django.conf import settings

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 450
# Project code outside the apps that the size limit also covers.
ALSO_SIZED = ("config", "bench", "tests")


def project_apps() -> list[str]:
    tops = [name.split(".")[0] for name in settings.INSTALLED_APPS]
    return [top for top in dict.fromkeys(tops) if (ROOT / top / "apps.py").exists()]


def modules(root: Path, packages) -> dict[str, Path]:
    """Dotted name → file of every module in the packages (migrations left out: they are
    history, generated and frozen)."""
    found = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            rel = path.relative_to(root)
            if "migrations" in rel.parts:
                continue
            parts = list(rel.with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


def imports_of(name: str, path: Path, known: dict[str, Path]):
    """(line, imported module, imported names) of each import in the file, relative imports
    resolved; a name that is itself a module counts as that module."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name, ()
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            for alias in node.names:
                submodule = f"{module}.{alias.name}"
                if submodule in known:
                    yield node.lineno, submodule, ()
                else:
                    yield node.lineno, module, (alias.name,)


def owning_module(dotted: str, known: dict[str, Path]) -> str | None:
    while dotted and dotted not in known:
        dotted = dotted.rpartition(".")[0]
    return dotted or None


def import_graph(root: Path, packages) -> dict[str, set[str]]:
    known = modules(root, packages)
    graph = {name: set() for name in known}
    for name, path in known.items():
        for _line, module, _names in imports_of(name, path, known):
            target = owning_module(module, known)
            if target and target != name:
                graph[name].add(target)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan, iteratively)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return sorted(found)


def is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def module_aliases(path: Path, known: dict[str, Path]) -> set[str]:
    """Names the file binds to one of the project's modules (`from poc import services`)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.ImportFrom) and node.module:
            names |= {a.asname or a.name for a in node.names if f"{node.module}.{a.name}" in known}
        elif isinstance(node, ast.ImportFrom) and node.level:
            names |= {a.asname or a.name for a in node.names}
    return names


def private_imports(root: Path, packages) -> list[str]:
    """Private names taken from another module: imported by name, or read as an attribute
    of an imported module (`services._clean`)."""
    known = modules(root, packages)
    found = []
    for name, path in known.items():
        where = path.relative_to(root)
        for line, module, names in imports_of(name, path, known):
            if owning_module(module, known) is None:
                continue  # a library's private name is the library's business
            found += [f"{where}:{line} imports {module}.{n}" for n in names if is_private(n)]
        aliases = module_aliases(path, known)
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if (
                isinstance(node, ast.Attribute)
                and is_private(node.attr)
                and isinstance(node.value, ast.Name)
                and node.value.id in aliases
            ):
                found.append(f"{where}:{node.lineno} reads {node.value.id}.{node.attr}")
    return found


def oversized(root: Path, packages) -> list[str]:
    return [
        f"{path.relative_to(root)}: {lines} lines"
        for path in modules(root, packages).values()
        if (lines := len(path.read_text().splitlines())) > MAX_LINES
    ]


def test_no_import_cycles():
    assert cycles(import_graph(ROOT, project_apps())) == []


def test_no_private_name_is_imported_from_another_module():
    assert private_imports(ROOT, [*project_apps(), "config", "bench"]) == []


def test_no_module_is_over_the_limit():
    assert oversized(ROOT, [*project_apps(), *ALSO_SIZED]) == []


def test_the_checks_find_what_they_look_for(tmp_path):
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "__init__.py").write_text("")
    (tmp_path / "app" / "a.py").write_text("from app.b import _hidden\n")
    (tmp_path / "app" / "c.py").write_text("from app import b\n\nb._inner()\n")
    (tmp_path / "app" / "b.py").write_text("def f():\n    from . import a\n")
    (tmp_path / "app" / "big.py").write_text("x = 1\n" * (MAX_LINES + 1))
    assert cycles(import_graph(tmp_path, ["app"])) == [["app.a", "app.b"]]
    assert private_imports(tmp_path, ["app"]) == [
        "app/a.py:1 imports app.b._hidden",
        "app/c.py:3 reads b._inner",
    ]
    assert oversized(tmp_path, ["app"]) == [f"app/big.py: {MAX_LINES + 1} lines"]
