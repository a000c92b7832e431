"""The layout stays as docs/architecture.md draws it: the domain in packages on floors, each importing only from the
floors below it, no import cycle among its modules, and the dashboard and API reaching the database only through
the domain."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROJECT_FILES = {"__init__", "apps", "middleware", "models", "startup", "urls", "wsgi"}
PACKAGES = {"agents", "consolidation", "embeddings", "integrations", "memories", "operations", "people", "retrieval",
            "runtime", "settings", "storage"}  # fmt: skip


# The floors, bottom first (docs/architecture.md draws the same table). A module may import from its own package and
# from any package on a floor below; never from another package on its own floor or from one above, at the top of a
# module or inside a function. What a lower floor needs from above is handed down at start-up (memoryhub/apps.py).
FLOORS: list[set[str]] = [
    {"memoryhub.startup"},  # the one error every entry point catches
    {"memoryhub.settings"},
    {"memoryhub.runtime"},  # threads, locks, pools, processes: below every package that needs one
    {"memoryhub.storage"},
    {"memoryhub.embeddings", "memoryhub.models"},
    {"memoryhub.memories"},
    {"memoryhub.retrieval"},
    {"memoryhub.consolidation"},
    {"memoryhub.agents"},
    {"memoryhub.people"},
    {"memoryhub.operations"},  # what an operator watches and wires to: the store's figures, webhooks
    # The wiring: start-up hands what lower floors need down to them (apps), the WSGI entry, URLs, middleware.
    {"memoryhub", "memoryhub.apps", "memoryhub.urls", "memoryhub.wsgi", "memoryhub.middleware"},
    {"api", "ui", "memoryhub.management", "memoryhub.migrations"},  # the faces
    {"memoryhub.integrations"},  # clients of the REST API for agent frameworks: nothing of the server below them
]
FLOOR_OF = {package: level for level, packages in enumerate(FLOORS) for package in packages}


def _package(module: str) -> str | None:
    """The floor table's entry a module belongs to (the longest matching prefix), or None outside the project."""
    parts = module.split(".")
    for end in range(len(parts), 0, -1):
        if ".".join(parts[:end]) in FLOOR_OF:
            return ".".join(parts[:end])
    return None


def _imported_modules(source: str, module: str, is_package: bool = False) -> list[tuple[int, str]]:
    """(line, module) for every import in the text, lazy ones inside functions included; `from a import b` counts
    as importing a.b (b may be a module), relative imports are resolved against `module`."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = module.split(".")
                anchor = anchor[: len(anchor) - node.level + (1 if is_package else 0)]
                base = ".".join([*anchor, base] if base else anchor)
            found += [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
    return found


def upward_imports(source: str, module: str, is_package: bool = False) -> list[str]:
    """Each import in the text that reaches another package on the same floor or a higher one."""
    home = _package(module)
    if home is None:
        return []
    wrong = []
    for line, target in _imported_modules(source, module, is_package):
        other = _package(target)
        if other is None or other == home:
            continue
        if FLOOR_OF[other] >= FLOOR_OF[home]:
            wrong.append(f"{module}:{line} imports {target} ({other} is not below {home})")
    return wrong


def _project_files() -> dict[str, Path]:
    files = {}
    for app in ("memoryhub", "api", "ui"):
        for path in (ROOT / app).rglob("*.py"):
            files[".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")] = path
    return files


def test_every_package_imports_only_from_the_floors_below_it():
    files = _project_files()
    assert all(_package(name) for name in files), [name for name in files if not _package(name)]
    wrong = [
        problem
        for name, path in sorted(files.items())
        for problem in upward_imports(path.read_text(), name, path.name == "__init__.py")
    ]
    assert wrong == []


def test_the_floor_check_fails_on_an_upward_import():
    planted = "import json\n\ndef twins():\n    from memoryhub.retrieval.search import similar_in_scope\n"
    assert upward_imports(planted, "memoryhub.memories.gate") == [
        "memoryhub.memories.gate:4 imports memoryhub.retrieval.search.similar_in_scope "
        "(memoryhub.retrieval is not below memoryhub.memories)"
    ]
    # Sideways on one floor is refused too; `from memoryhub import x` and relative imports are followed.
    assert upward_imports("from memoryhub import models\n", "memoryhub.embeddings.minilm")
    assert upward_imports("from ..retrieval import search\n", "memoryhub.memories.gate")
    assert upward_imports("from . import decay\n", "memoryhub.memories", is_package=True) == []
    assert upward_imports("from memoryhub.storage import sql\n", "memoryhub.memories.gate") == []
    # A planted module file is caught by the same walk the tree test uses.
    assert upward_imports("from ui.forms import version_of\n", "memoryhub.models")


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
    return _imports_of(path.read_text())


def _imports_of(source: str) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(source)):
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
            imported = _imports(path)
            assert "memoryhub.storage.sql" not in imported and "memoryhub.storage" not in imported, path
            assert "django.db.connection" not in imported, path


# The lab (bench/, beside the product as scripts/ is) may import the product; the product never imports the lab,
# and no benchmark or evaluation lives inside it: no module that imports `bench`, no `bench` package, no
# `bench_*` or `eval_*` management command for `manage.py help` to list.
LAB = "bench"


def lab_in_the_product(files: dict[str, str]) -> list[str]:
    """Each product file (path relative to the checkout -> its text) that is benchmark or evaluation code."""
    found = []
    for path, source in sorted(files.items()):
        parts = Path(path).parts
        module = ".".join(Path(path).with_suffix("").parts).removesuffix(".__init__")
        if LAB in parts[1:-1] or Path(path).stem == LAB:
            found.append(f"{path}: a bench package inside the product")
        if "commands" in parts and re.match(r"(bench|eval)_", parts[-1]):
            found.append(f"{path}: a benchmark or evaluation command")
        for line, target in _imported_modules(source, module, path.endswith("__init__.py")):
            if target == LAB or target.startswith(f"{LAB}."):
                found.append(f"{path}:{line} imports {target}")
    return found


def test_the_lab_sits_outside_the_product():
    files = {
        str(path.relative_to(ROOT)): path.read_text()
        for app in ("memoryhub", "api", "ui")
        for path in (ROOT / app).rglob("*.py")
    }
    assert lab_in_the_product(files) == []
    assert (ROOT / LAB / "__main__.py").is_file() and not (ROOT / "memoryhub" / LAB).exists()
    # The check sees benchmark code planted in the product: a module importing the lab (at the top or inside a
    # function), a command named for a benchmark or an evaluation, a bench package.
    planted = {
        "memoryhub/memories/noise.py": "def words():\n    from bench.gate_set import NOISE\n",
        "memoryhub/retrieval/speed.py": "import bench.measure\n",
        "memoryhub/management/commands/bench_embed.py": "from memoryhub.embeddings import get_embedder\n",
        "memoryhub/management/commands/eval_gate.py": "",
        "ui/management/commands/bench_ui.py": "",
        "memoryhub/bench/corpus.py": "import random\n",
        "api/bench.py": "",
        "memoryhub/memories/demo.py": "from memoryhub.memories.categories import guess_category\n",
    }
    assert lab_in_the_product(planted) == [
        "api/bench.py: a bench package inside the product",
        "memoryhub/bench/corpus.py: a bench package inside the product",
        "memoryhub/management/commands/bench_embed.py: a benchmark or evaluation command",
        "memoryhub/management/commands/eval_gate.py: a benchmark or evaluation command",
        "memoryhub/memories/noise.py:2 imports bench.gate_set.NOISE",
        "memoryhub/retrieval/speed.py:1 imports bench.measure",
        "ui/management/commands/bench_ui.py: a benchmark or evaluation command",
    ]


def test_the_lab_lists_no_command_in_manage_py_help():
    from django.core.management import get_commands

    assert sorted(name for name in get_commands() if re.match(r"(bench|eval)_", name)) == []


# SQL in a string: a statement's keywords, a condition on the memory table's alias `m`, a NULL test or a
# placeholder compared with. Docstrings may speak of SQL; code outside storage may not hold it.
_SQL = re.compile(
    r"\b(SELECT|INSERT INTO|DELETE FROM|WHERE|JOIN)\b|\bUPDATE \w+ SET\b|\bFROM [a-z_]+\b|\bm\.[a-z_]+\b|"
    r"\bIS (NOT )?NULL\b|[=<>] %s"
)
NO_SQL = ["memoryhub/retrieval", "memoryhub/memories", "memoryhub/consolidation", "memoryhub/agents",
          "memoryhub/people", "api", "ui"]  # fmt: skip


def sql_in_strings(source: str) -> list[tuple[int, str]]:
    """(line, text) of each string literal (f-string pieces included, docstrings not) that holds SQL."""
    return [(line, text) for line, text in _literals(source) if _SQL.search(text)]


def _literals(source: str) -> list[tuple[int, str]]:
    """(line, text) of each string literal, f-string pieces included, docstrings not."""
    tree = ast.parse(source)
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
    ]


def test_no_sql_is_written_outside_storage():
    found = [
        f"{path.relative_to(ROOT)}:{line}: {text[:60]!r}"
        for folder in NO_SQL
        for path in sorted((ROOT / folder).rglob("*.py"))
        for line, text in sql_in_strings(path.read_text())
    ]
    assert found == []
    # The check sees SQL when there is some: a fragment in an f-string, a statement, a condition on `m`.
    planted = 'def more(where, params, model_id):\n    return f"{where} AND m.embed_model = %s", [*params, model_id]\n'
    assert [line for line, _ in sql_in_strings(planted)] == [2]
    assert sql_in_strings('Q = "SELECT id FROM memoryhub_memory"\n')
    assert sql_in_strings('W = ("m.project IS NULL", [])\n')
    assert sql_in_strings('"""A docstring may say SELECT ... WHERE."""\nlog = "refused %s"\n') == []


# A full-text query in FTS5's own syntax: a column filter (`{content tags} :`, `scope : (`), or boolean operators
# joining quoted terms (`" OR "`, `" AND ".join(...)`). Storage renders the domain's typed keyword query
# (memoryhub/storage/keyword.py) for its database; code outside storage builds the tree, never the text.
_FTS5 = re.compile(r'\{[a-z_ ]+\}\s*:|\bscope\s*:\s*\(|(^|")\s*\b(OR|AND|NOT|NEAR)\b\s*("|$)')


def fts5_in_strings(source: str) -> list[tuple[int, str]]:
    """(line, text) of each string literal (f-string pieces included, docstrings not) that writes FTS5 syntax."""
    return [(line, text) for line, text in _literals(source) if _FTS5.search(text)]


def test_no_full_text_query_is_written_outside_storage():
    found = [
        f"{path.relative_to(ROOT)}:{line}: {text[:60]!r}"
        for folder in NO_SQL
        for path in sorted((ROOT / folder).rglob("*.py"))
        for line, text in fts5_in_strings(path.read_text())
    ]
    assert found == []
    # The check sees FTS5 text when there is some: a scope filter, terms joined into an OR, a column filter.
    planted = 'def scoped(scope):\n    return f"scope : ({scope})"\n'
    assert [line for line, _ in fts5_in_strings(planted)] == [2]
    assert fts5_in_strings("""def any_of(terms):\n    return " OR ".join('"' + t + '"' for t in terms)\n""")
    assert fts5_in_strings("""E = '"deploy" AND "notes"'\n""")
    assert fts5_in_strings("""E = f"{{content tags}} : ({expression})"\n""")
    assert fts5_in_strings('"""A docstring may say scope : (...) or " OR "."""\nlog = "deploy or rollback"\n') == []


def test_no_migration_imports_the_projects_own_code():
    """A past migration carries its own SQL: one that imports today's storage (or any of the project's code)
    would change whenever that code does."""
    found = {
        path.name: sorted(name for name in _imports(path) if name.split(".")[0] in ("memoryhub", "api", "ui"))
        for path in sorted((ROOT / "memoryhub" / "migrations").glob("*.py"))
    }
    assert {name: imported for name, imported in found.items() if imported} == {}
    # The check sees such an import when there is one, at the top or inside a function.
    assert "memoryhub.storage" in _imports_of("from memoryhub.storage import sql\n")
    assert "memoryhub.storage.sqlite.schema" in _imports_of(
        "def up(apps, editor):\n    import memoryhub.storage.sqlite.schema\n"
    )


# Functions in the domain's busiest packages make one decision each and stay under this many lines.
LONGEST_LINES = 60


def test_no_function_in_memories_retrieval_or_agents_is_longer_than_the_limit():
    found = {}
    for folder in ("memoryhub/memories", "memoryhub/retrieval", "memoryhub/agents"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    length = node.end_lineno - node.lineno + 1
                    if length > LONGEST_LINES:
                        found[f"{path.relative_to(ROOT)}:{node.name}"] = length
    assert found == {}


# Threads, locks, pools and processes are made in memoryhub/runtime/ alone (with its start and stop); the domain asks
# it for a turn, a lock or a lane. What counts as making one: a call to one of these, from one of these modules.
CONCURRENCY_MODULES = {"threading", "_thread", "multiprocessing", "concurrent.futures", "os"}
MAKERS = {
    "Lock", "RLock", "Condition", "Semaphore", "BoundedSemaphore", "Event", "Barrier", "Thread", "Timer",
    "ThreadPoolExecutor", "ProcessPoolExecutor", "Process", "Pool", "Array", "Value", "Queue", "Manager",
    "get_context", "start_new_thread", "allocate_lock", "fork", "forkpty",
}  # fmt: skip
NO_CONCURRENCY = ["memoryhub/memories", "memoryhub/retrieval", "memoryhub/storage", "memoryhub/embeddings",
                  "memoryhub/consolidation"]  # fmt: skip


def concurrency_made(source: str) -> list[tuple[int, str]]:
    """(line, name) of each thread, lock, pool or process the text makes: `threading.Lock()`, `Lock()` imported from
    threading, `multiprocessing.get_context("fork").Array(...)`, `os.fork()`."""
    tree = ast.parse(source)
    origin: dict[str, str] = {}  # a name in this text -> the module it comes from
    real: dict[str, str] = {}  # a name imported under another -> its own
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            origin |= {(alias.asname or alias.name).split(".")[0]: alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            origin |= {alias.asname or alias.name: node.module for alias in node.names}
            real |= {alias.asname: alias.name for alias in node.names if alias.asname}
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        root = node.func
        name = getattr(root, "id", "")
        last = root.attr if isinstance(root, ast.Attribute) else real.get(name, name)
        while isinstance(root, ast.Attribute | ast.Call):
            root = root.value if isinstance(root, ast.Attribute) else root.func
        if isinstance(root, ast.Name) and origin.get(root.id) in CONCURRENCY_MODULES and last in MAKERS:
            found.append((node.lineno, last))
    return found


def test_threads_locks_pools_and_processes_are_made_only_in_the_runtime():
    found = [
        f"{path.relative_to(ROOT)}:{line}: {name}"
        for folder in NO_CONCURRENCY
        for path in sorted((ROOT / folder).rglob("*.py"))
        for line, name in concurrency_made(path.read_text())
    ]
    assert found == []
    # The check sees one when there is one, however it is spelled.
    assert concurrency_made("import threading\n\n_lock = threading.Lock()\n") == [(3, "Lock")]
    assert concurrency_made("from threading import Thread as T\nT(target=print).start()\n") == [(2, "Thread")]
    assert concurrency_made("import multiprocessing\nS = multiprocessing.get_context('fork').Array('i', 2)\n")
    assert concurrency_made("from concurrent.futures import ThreadPoolExecutor\nP = ThreadPoolExecutor(2)\n")
    assert concurrency_made("import os\npid = os.fork()\n") == [(2, "fork")]
    assert concurrency_made("from memoryhub import runtime\n_lock = runtime.lock('copy')\n") == []
