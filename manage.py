#!/usr/bin/env python
"""Django's command-line utility for MemoryHub."""

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryhub.settings")
    from django.core.management import execute_from_command_line

    from memoryhub.startup import load_settings_or_exit

    # Every command (serve included): a bad MEMORYHUB_* value is one line on stderr, not a traceback.
    load_settings_or_exit("manage.py")
    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
