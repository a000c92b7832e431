"""Find clusters of duplicate or closely related memories and write consolidation proposals for them."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from memoryhub.consolidation.proposals import run_consolidation
from memoryhub.judges.llm import LLMError, get_llm


class Command(BaseCommand):
    help = (
        "Write a pending proposal for each new cluster of duplicate or closely related memories (one scope at a "
        "time; never across projects). Uses the MEMORYHUB_LLM_* endpoint when set, the deterministic text otherwise."
    )

    def add_arguments(self, parser):
        parser.add_argument("--project", help="only this project's memories (default: every project and the globals)")
        parser.add_argument("--no-llm", action="store_true", help="deterministic proposals even if an LLM is set")
        parser.add_argument("--limit", type=int, default=None, help="at most this many proposals in this run")

    def handle(self, *args, project: str | None, no_llm: bool, limit: int | None, **options):
        try:
            llm = False if no_llm else get_llm()
        except LLMError as exc:
            raise CommandError(str(exc)) from exc
        if limit is not None and limit < 1:
            raise CommandError("--limit must be at least 1")
        proposals = run_consolidation(project=project or None, actor="consolidate command", llm=llm, limit=limit)
        for proposal in proposals:
            scope = proposal.project or "global"
            sources = ", ".join(f"#{i}" for i in proposal.sources)
            self.stdout.write(f"  proposal #{proposal.id} [{scope}] merges {sources} ({proposal.generator})")
            self.stdout.write(f"      {' '.join(proposal.content.split())[:100]}")
        where = f"project {project}" if project else "all scopes"
        self.stdout.write(f"Made {len(proposals)} new proposals in {where}.")
