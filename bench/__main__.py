"""python -m bench <name> [options]: run one benchmark or evaluation; without a name, list them.

Run from the checkout (the lab is not installed with the product), with the project's Python:
`.venv/bin/python -m bench embed`."""

from __future__ import annotations

import os
import sys


def main(argv: list[str]) -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryhub.settings")
    from memoryhub.startup import load_settings_or_exit

    load_settings_or_exit("python -m bench")  # a bad MEMORYHUB_* value is one line on stderr, as for manage.py
    import django

    django.setup()
    from bench.commands import NAMES, command

    if not argv or argv[0] in ("-h", "--help", "help"):
        print("usage: python -m bench <name> [options]   (python -m bench <name> --help for its options)\n")
        for name in NAMES:
            print(f"  {name:<12} {command(name).help.split('. ')[0].rstrip('.')}")
        return 0
    name, *rest = argv
    if name not in NAMES:
        print(f"python -m bench: no command {name!r}; one of: {', '.join(NAMES)}", file=sys.stderr)
        return 2
    command(name).run_from_argv(["python -m bench", name, *rest])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
