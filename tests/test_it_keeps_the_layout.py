"""The layout stays as docs/architecture.md draws it: the domain in packages, no import cycle among its modules, and
the dashboard and API reaching the database only through the domain."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROJECT_FILES = {"__init__", "apps", "middleware", "models", "startup", "urls", "wsgi"}
PACKAGES = {"agents", "bench", "consolidation", "embeddings", "memories", "people", "retrieval", "settings", "storage"}


def _domain_modules() -> dict[str, Path]:
    modules = {}
    for path in (ROOT / "memoryhub").rglob("*.py"):
        if {"migrations", "management"} & set(path.parts):
            continue
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        modules[name] = path
    return modules


def _imports(path: Path) -> set[str]:
    """Every module this file imports, at the top or inside a function (a lazy import is still a dependency)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in graph[node]:
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                other = stack.pop()
                on_stack.discard(other)
                component.append(other)
                if other == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in graph:
        if node not in index:
            visit(node)
    return found


def test_the_domain_has_no_import_cycle():
    modules = _domain_modules()
    graph = {
        name: {other for other in _imports(path) if other in modules and other != name}
        for name, path in modules.items()
    }
    assert _cycles(graph) == []
    # The check itself sees a cycle when there is one.
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_only_project_files_sit_at_the_top_of_memoryhub():
    top = ROOT / "memoryhub"
    loose = {path.stem for path in top.glob("*.py")} - PROJECT_FILES
    assert loose == set()
    packages = {path.name for path in top.iterdir() if (path / "__init__.py").is_file()}
    assert packages - {"migrations", "management"} == PACKAGES


def test_the_dashboard_and_the_api_run_no_sql_of_their_own():
    for app in ("ui", "api"):
        for path in (ROOT / app).rglob("*.py"):
            if "management" in path.parts:  # benchmark commands build stores directly
                continue
            imported = _imports(path)
            assert "memoryhub.storage.sql" not in imported and "memoryhub.storage" not in imported, path
            assert "django.db.connection" not in imported, path
