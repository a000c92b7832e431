"""Start-up's one rule about settings: a bad MEMORYHUB_* value stops the process with one line naming it.

`SettingError` lives here rather than in `memoryhub.settings` because importing anything from that package runs
the settings themselves, which is what raises it; the entry points (manage.py, memoryhub/wsgi.py, the MCP stdio
server) must be able to catch it without importing the module that failed.
"""

from __future__ import annotations

import sys


class SettingError(ValueError):
    """A MEMORYHUB_* environment variable holds a value the service cannot use; the message names it."""


def load_settings_or_exit(program: str) -> None:
    """Load Django's settings now; on a bad value print `program: <message>` to stderr and exit with status 2."""
    from django.conf import settings  # inside: the settings import is what may fail here (see the docstring)

    try:
        settings.INSTALLED_APPS  # noqa: B018 - touching a setting imports the settings module
    except SettingError as exc:
        print(f"{program}: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
