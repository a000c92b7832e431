"""The layout stays as docs/architecture.md draws it: the domain in packages on floors, each importing only from the
floors below it, no import cycle among its modules, and the dashboard and API reaching the database only through
the domain."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROJECT_FILES = {"__init__", "apps", "middleware", "models", "startup", "urls", "wsgi"}
PACKAGES = {"agents", "consolidation", "embeddings", "integrations", "judges", "memories", "operations", "people",
            "retrieval", "runtime", "settings", "storage", "writes"}  # fmt: skip


# The floors, bottom first (docs/architecture.md draws the same table). A module may import from its own package and
# from any package on a floor below; never from another package on its own floor or from one above, at the top of a
# module or inside a function. Code that needs a floor above it moves up (the write gate sits above search and the
# judges); nothing is handed down at start-up.
FLOORS: list[set[str]] = [
    {"memoryhub.startup"},  # the one error every entry point catches
    {"memoryhub.settings"},
    {"memoryhub.runtime"},  # threads, locks, pools, processes: below every package that needs one
    {"memoryhub.storage"},
    {"memoryhub.embeddings", "memoryhub.models"},
    {"memoryhub.memories"},  # record operations: store, edit, supersede, decay, select
    {"memoryhub.retrieval"},
    {"memoryhub.judges"},  # the LLM's second opinions and its client
    {"memoryhub.writes"},  # the write gate, above search and the judges it asks
    {"memoryhub.consolidation"},
    {"memoryhub.agents"},
    {"memoryhub.people"},
    {"memoryhub.operations"},  # what an operator watches and wires to: the store's figures, webhooks
    # The wiring: the app's start-up checks (apps), the WSGI entry, URLs, middleware.
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
    assert upward_imports(planted, "memoryhub.memories.store") == [
        "memoryhub.memories.store:4 imports memoryhub.retrieval.search.similar_in_scope "
        "(memoryhub.retrieval is not below memoryhub.memories)"
    ]
    assert upward_imports(planted, "memoryhub.writes.gate") == []  # the gate sits above search
    assert upward_imports("from memoryhub.writes.gate import gate_write\n", "memoryhub.judges.update_judge")
    # Sideways on one floor is refused too; `from memoryhub import x` and relative imports are followed.
    assert upward_imports("from memoryhub import models\n", "memoryhub.embeddings.minilm")
    assert upward_imports("from ..retrieval import search\n", "memoryhub.memories.store")
    assert upward_imports("from . import decay\n", "memoryhub.memories", is_package=True) == []
    assert upward_imports("from memoryhub.storage import sql\n", "memoryhub.memories.store") == []
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
        "memoryhub/writes/noise.py": "def words():\n    from bench.gate_set import NOISE\n",
        "memoryhub/retrieval/speed.py": "import bench.measure\n",
        "memoryhub/management/commands/bench_embed.py": "from memoryhub.embeddings import get_embedder\n",
        "memoryhub/management/commands/eval_gate.py": "",
        "ui/management/commands/bench_ui.py": "",
        "memoryhub/bench/corpus.py": "import random\n",
        "api/bench.py": "",
        "memoryhub/memories/demo.py": "from memoryhub.memories.store import import_memories\n",
    }
    assert lab_in_the_product(planted) == [
        "api/bench.py: a bench package inside the product",
        "memoryhub/bench/corpus.py: a bench package inside the product",
        "memoryhub/management/commands/bench_embed.py: a benchmark or evaluation command",
        "memoryhub/management/commands/eval_gate.py: a benchmark or evaluation command",
        "memoryhub/retrieval/speed.py:1 imports bench.measure",
        "memoryhub/writes/noise.py:2 imports bench.gate_set.NOISE",
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
NO_SQL = ["memoryhub/retrieval", "memoryhub/memories", "memoryhub/judges", "memoryhub/writes",
          "memoryhub/consolidation", "memoryhub/agents", "memoryhub/people", "api", "ui"]  # fmt: skip


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


def in_tree(root: Path, folders: list[str], check) -> list[str]:
    """`path:line: what` for each finding of `check` (source -> [(line, what)]) in the Python files under `folders`
    of the checkout at `root`: the one walk every tree test below makes, and the planted-tree test makes again."""
    return [
        f"{path.relative_to(root)}:{line}: {str(what)[:60]!r}"
        for folder in folders
        for path in sorted((root / folder).rglob("*.py"))
        for line, what in check(path.read_text())
    ]


def test_no_sql_is_written_outside_storage():
    assert in_tree(ROOT, NO_SQL, sql_in_strings) == []
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
    assert in_tree(ROOT, NO_SQL, fts5_in_strings) == []
    # The check sees FTS5 text when there is some: a scope filter, terms joined into an OR, a column filter.
    planted = 'def scoped(scope):\n    return f"scope : ({scope})"\n'
    assert [line for line, _ in fts5_in_strings(planted)] == [2]
    assert fts5_in_strings("""def any_of(terms):\n    return " OR ".join('"' + t + '"' for t in terms)\n""")
    assert fts5_in_strings("""E = '"deploy" AND "notes"'\n""")
    assert fts5_in_strings("""E = f"{{content tags}} : ({expression})"\n""")
    assert fts5_in_strings('"""A docstring may say scope : (...) or " OR "."""\nlog = "deploy or rollback"\n') == []


MIGRATIONS = ["memoryhub/migrations"]


def project_imports(source: str) -> list[tuple[int, str]]:
    """(line, module) of each import of the project's own code (memoryhub, api, ui), inside functions too. The
    migrations package's own modules are frozen with it (its _frozen_sql.py and _frozen_fields.py): a migration may
    import those."""
    return [
        (line, target)
        for line, target in _imported_modules(source, "memoryhub.migrations.m")
        if target.split(".")[0] in ("memoryhub", "api", "ui") and not target.startswith("memoryhub.migrations.")
    ]


def test_no_migration_imports_the_projects_own_code():
    """A past migration carries its own SQL: one that imports today's storage (or any of the project's code)
    would change whenever that code does."""
    assert in_tree(ROOT, MIGRATIONS, project_imports) == []
    # The check sees such an import when there is one, at the top or inside a function.
    assert "memoryhub.storage" in _imports_of("from memoryhub.storage import sql\n")
    assert project_imports("from ._frozen_sql import run_per_database\n") == []
    assert project_imports("from .. import models\nfrom ..storage import sql\n") == [
        (1, "memoryhub.models"),
        (2, "memoryhub.storage.sql"),
    ]
    assert "memoryhub.storage.sqlite.schema" in _imports_of(
        "def up(apps, editor):\n    import memoryhub.storage.sqlite.schema\n"
    )


# Functions in the domain's busiest packages make one decision each and stay under this many lines.
LONGEST_LINES = 60


def test_no_function_in_memories_retrieval_writes_or_agents_is_longer_than_the_limit():
    found = {}
    for folder in ("memoryhub/memories", "memoryhub/retrieval", "memoryhub/writes", "memoryhub/agents"):
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
                  "memoryhub/judges", "memoryhub/writes", "memoryhub/consolidation"]  # fmt: skip


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
    assert in_tree(ROOT, NO_CONCURRENCY, concurrency_made) == []
    # The check sees one when there is one, however it is spelled.
    assert concurrency_made("import threading\n\n_lock = threading.Lock()\n") == [(3, "Lock")]
    assert concurrency_made("from threading import Thread as T\nT(target=print).start()\n") == [(2, "Thread")]
    assert concurrency_made("import multiprocessing\nS = multiprocessing.get_context('fork').Array('i', 2)\n")
    assert concurrency_made("from concurrent.futures import ThreadPoolExecutor\nP = ThreadPoolExecutor(2)\n")
    assert concurrency_made("import os\npid = os.fork()\n") == [(2, "fork")]
    assert concurrency_made("from memoryhub import runtime\n_lock = runtime.lock('copy')\n") == []


# No start-up hooks: a lower floor that needs something from above is not handed it as a callable at start-up (a
# `register_*` function keeping it in a module global, called from `AppConfig.ready`); the code that needs it moves
# up and imports it. `ready` registers Django's system checks and nothing else.
HOOKED = ["memoryhub", "api", "ui"]


def start_up_hooks(source: str) -> list[tuple[int, str]]:
    """(line, name) of each `register_*` function the text defines or calls (Django's `checks.register`, a
    template library's `register` and `register_converter` for URL paths are not hooks of ours)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("register_"):
            found.append((node.lineno, node.name))
        elif isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name.startswith("register_") and name != "register_converter":  # Django's URL converters: a URL API
                found.append((node.lineno, name))
    return found


def _ready_calls(source: str) -> list[str]:
    """What `ready()` calls, as written (`checks.register`)."""
    ready = next(n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.FunctionDef) and n.name == "ready")
    return [ast.unparse(call.func) for call in ast.walk(ready) if isinstance(call, ast.Call)]


def test_no_floor_is_handed_code_at_start_up():
    assert in_tree(ROOT, HOOKED, start_up_hooks) == []
    assert _ready_calls((ROOT / "memoryhub" / "apps.py").read_text()) == ["checks.register"]
    # The checks see a hook when there is one: a register_ function, its call in ready().
    planted = "_lookup = None\n\ndef register_twin_lookup(lookup):\n    global _lookup\n    _lookup = lookup\n"
    assert start_up_hooks(planted) == [(3, "register_twin_lookup")]
    ready = (
        "class C:\n    def ready(self):\n        checks.register(check)\n"
        "        from memoryhub.writes.noise import register_noise_judge\n        register_noise_judge(judge)\n"
    )
    assert start_up_hooks(ready) == [(5, "register_noise_judge")]
    assert _ready_calls(ready) == ["checks.register", "register_noise_judge"]
    assert start_up_hooks("register = template.Library()\n\n@register.filter\ndef days(v):\n    return v\n") == []


def test_each_tree_check_fails_on_what_is_planted_in_a_copy_of_the_tree(tmp_path):
    """The folder walks themselves, not only the checkers: each rule planted in a file of a scratch checkout."""
    planted = {
        "memoryhub/writes/noise.py": "_judge = None\n\ndef register_noise_judge(judge):\n    global _judge\n"
        "    _judge = judge\n",
        "memoryhub/writes/lane.py": "import threading\n\n_lock = threading.Lock()\n",
        "memoryhub/memories/turns.py": "from concurrent.futures import ThreadPoolExecutor as P\nPOOL = P(2)\n",
        "memoryhub/judges/pool.py": "import threading\nthreading.Thread(target=print).start()\n",
        "memoryhub/retrieval/query_text.py": 'def scoped(scope):\n    return f"scope : ({scope})"\n',
        "memoryhub/writes/twins.py": 'E = \'"deploy" OR "notes"\'\n',
        "memoryhub/migrations/0009_x.py": "def up(apps, editor):\n    from memoryhub.storage import sql\n",
        "memoryhub/migrations/0010_y.py": "from ._frozen_sql import run_per_database\n",  # frozen beside them
        "memoryhub/storage/sqlite/fts.py": 'E = \'"deploy" OR "notes"\'\n',  # storage may write FTS5
    }
    for path, text in planted.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    assert in_tree(tmp_path, HOOKED, start_up_hooks) == ["memoryhub/writes/noise.py:3: 'register_noise_judge'"]
    assert in_tree(tmp_path, NO_CONCURRENCY, concurrency_made) == [
        "memoryhub/memories/turns.py:2: 'ThreadPoolExecutor'",
        "memoryhub/judges/pool.py:2: 'Thread'",
        "memoryhub/writes/lane.py:3: 'Lock'",
    ]
    assert in_tree(tmp_path, NO_SQL, fts5_in_strings) == [
        "memoryhub/retrieval/query_text.py:2: 'scope : ('",
        'memoryhub/writes/twins.py:1: \'"deploy" OR "notes"\'',
    ]
    assert in_tree(tmp_path, MIGRATIONS, project_imports) == [
        "memoryhub/migrations/0009_x.py:2: 'memoryhub.storage.sql'"
    ]


# The project's own modules are imported by name, at the top or with a reason inside a function: never loaded from a
# string (`importlib.import_module("memoryhub...")`), never guarded by `except ImportError` as if they might be absent.
OWN = ("memoryhub", "api", "ui")


def own_modules_dodged(source: str) -> list[tuple[int, str]]:
    """(line, module) of each project module the text loads from a string, or imports inside a `try` that catches
    ImportError (or ModuleNotFoundError)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            target = node.args[0].value
            if name in ("import_module", "__import__") and str(target).split(".")[0] in OWN:
                found.append((node.lineno, str(target)))
        elif isinstance(node, ast.Try) and any(_catches_import_error(h) for h in node.handlers):
            for stmt in node.body:
                for line, target in _imported_modules(ast.unparse(stmt), "memoryhub.x"):
                    if target.split(".")[0] in OWN:
                        found.append((stmt.lineno + line - 1, target))
    return sorted(found)


def _catches_import_error(handler: ast.ExceptHandler) -> bool:
    caught = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(getattr(c, "id", "") in ("ImportError", "ModuleNotFoundError") for c in caught)


def test_the_projects_own_modules_are_never_loaded_by_name_or_guarded():
    assert in_tree(ROOT, HOOKED, own_modules_dodged) == []
    # The check sees both when they are there (the API's old consolidation loader, the dashboard's old guard).
    planted = (
        "import importlib\n\ndef consolidation(function):\n"
        "    return getattr(importlib.import_module('memoryhub.consolidation.proposals'), function)\n"
        "\ndef merged(memory):\n    try:\n        from memoryhub.consolidation.proposals import proposal_for_merged\n"
        "    except ImportError:\n        return None\n"
    )
    assert own_modules_dodged(planted) == [
        (4, "memoryhub.consolidation.proposals"),
        (8, "memoryhub.consolidation.proposals.proposal_for_merged"),
    ]
    # A third-party module may be optional: only the project's own are held to this.
    assert own_modules_dodged("try:\n    import onnx\nexcept ImportError:\n    onnx = None\n") == []
