"""The lab's commands, one module each, named as `python -m bench <name>` calls them. Each is a Django
`BaseCommand` (`Command` in its module), run with `run_from_argv` from the command line and with
`call_command(command(name), ...)` from tests."""

from __future__ import annotations

import importlib

from django.core.management.base import BaseCommand

NAMES = (
    "embed",
    "search",
    "ingest",
    "consolidate",
    "ui",
    "gate",
    "chatter",
    "recall",
    "locomo",
    "updates",
    "planted",
    "webhooks",
    "links",
    "heads",
    "swaps",
    "planted_head",
)


def command(name: str) -> BaseCommand:
    """A fresh instance of the command called `name`; KeyError for a name that is not one."""
    if name not in NAMES:
        raise KeyError(name)
    return importlib.import_module(f"bench.commands.{name}").Command()
