"""`python -m memoryhub.agents.client`: the command-line client, run from a checkout.

The client's code lives in the installable package clients/python (`memoryhub_client`, the `memoryhub` command,
standard library only); this module runs it. Where the package is not installed into the running Python, the
checkout's own copy of it is used.
"""

from __future__ import annotations

import sys
from pathlib import Path

try:
    import memoryhub_client  # noqa: F401 - installed: `pip install <checkout>/clients/python`
except ImportError:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "clients" / "python"))

from memoryhub_client.cli import main as _main


def main(argv: list[str] | None = None, **options) -> int:
    return _main(argv, prog="python -m memoryhub.agents.client", **options)


if __name__ == "__main__":
    sys.exit(main())
