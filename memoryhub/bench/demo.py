"""The demo memories, for benchmarks and rule checks that want realistic text (home: memoryhub/memories/demo.py)."""

from memoryhub.memories.demo import DEMO_MEMORIES

__all__ = ["DEMO_MEMORIES"]
