#!/usr/bin/env python3
"""Prompt hook: recall from MemoryHub before the agent sees the prompt.

Claude Code runs it on UserPromptSubmit with the hook's JSON on stdin; whatever it prints on stdout is added to the
agent's context. The hook itself is `memoryhub hook recall` of the client package (clients/python, standard library
only: memoryhub_client/hooks.py says what it reads and how it fails open); this file runs the checkout's copy of it
with any `python3`, so nothing needs installing.
"""

from __future__ import annotations

import os
import sys

CLIENT = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "clients", "python")

if __name__ == "__main__":
    sys.path.insert(0, CLIENT)
    from memoryhub_client.hooks import recall_hook

    sys.exit(recall_hook())
