"""Which project a hook or the command-line client works in, decided the same way everywhere.

In order: `MEMORYHUB_PROJECT` (or the client's `--project`); else the token's only project, when the token is
limited to exactly one (the server says so at GET /api/v1/whoami); else the name of the git repository's top
folder; else the name of the working directory. A token limited to `demo` used from a folder named `webshop`
therefore works in `demo`, instead of being refused for a project it may not touch.

Standard library only: the hooks in scripts/hooks load this module from the checkout, possibly with another Python
than the server's.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from memoryhub_client.api import MemoryHubClient

PROJECT_ENV = "MEMORYHUB_PROJECT"


def git_top_folder(cwd: str) -> str | None:
    """The folder holding `.git` (a directory, or a file in a worktree or submodule) at or above `cwd`."""
    current = os.path.abspath(cwd)
    while True:
        if os.path.exists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def choose_project(
    *,
    explicit: str | None,
    token_projects: Callable[[], list[str] | None] | None,
    cwd: str,
) -> str | None:
    """The project to use. `token_projects` is asked only when nothing explicit was given; it answers the
    token's projects (None: every project) and may raise, in which case the folder rules decide."""
    explicit = (explicit or "").strip()
    if explicit:
        return explicit
    if token_projects is not None:
        try:
            projects = token_projects()
        except Exception:  # noqa: BLE001 - a server that cannot say leaves the decision to the folder
            projects = None
        if isinstance(projects, list) and len(projects) == 1 and isinstance(projects[0], str):
            return projects[0]
    top = git_top_folder(cwd)
    name = os.path.basename(os.path.normpath(top or cwd))
    return name or None


def project_from_environment(*, base_url: str, token: str, cwd: str, timeout: float = 5.0) -> str | None:
    """The hooks' entry point: MEMORYHUB_PROJECT, else the token's only project, else the folder."""
    return choose_project(
        explicit=os.environ.get(PROJECT_ENV),
        token_projects=lambda: MemoryHubClient(base_url, token, timeout=timeout).whoami().get("projects"),
        cwd=cwd,
    )
