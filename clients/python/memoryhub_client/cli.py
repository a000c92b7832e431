"""The `memoryhub` command (also `python -m memoryhub_client`, and `python -m memoryhub.agents.client` in a
checkout):

    export MEMORYHUB_URL=http://127.0.0.1:8000 MEMORYHUB_TOKEN=mh_...
    memoryhub store "Alpha deploys with make deploy" --project alpha --tag deploy
    memoryhub search "how do we deploy" --project alpha
    memoryhub recall --project alpha "how do we deploy?"
    memoryhub whoami
    memoryhub hook recall          # Claude Code's prompt hook: the event JSON on stdin

Without --project, the project is chosen as the hooks choose it (`projects`): MEMORYHUB_PROJECT, else the token's
only project, else the git repository's top folder name, else the working directory's name. --global works on the
global memories (no project) instead.

Exit status: 0 done (a write folded into an existing memory counts as done), 1 refused or failed, 2 usage.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from memoryhub_client.api import DEFAULT_URL, ClientError, MemoryHubClient, Send
from memoryhub_client.hooks import recall_hook
from memoryhub_client.projects import PROJECT_ENV, choose_project


def build_parser(prog: str = "memoryhub") -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description="Talk to a MemoryHub server.")
    parser.add_argument("--url", default=os.environ.get("MEMORYHUB_URL", DEFAULT_URL), help="default $MEMORYHUB_URL")
    parser.add_argument("--token", default=os.environ.get("MEMORYHUB_TOKEN", ""), help="default $MEMORYHUB_TOKEN")
    parser.add_argument("--json", action="store_true", help="print the server's JSON answer as it is")
    parser.add_argument("--timeout", type=float, default=30.0)
    commands = parser.add_subparsers(dest="command", required=True)

    store = commands.add_parser("store", help="store one fact (through the write gate)")
    store.add_argument("content", help="the fact; '-' reads it from standard input")
    _project_options(store)
    store.add_argument("--category")
    store.add_argument("--tier")
    store.add_argument("--tag", action="append", dest="tags", default=[])
    store.add_argument("--importance", type=float)
    store.add_argument("--metadata", help="a JSON object")

    search = commands.add_parser("search", help="search memories")
    search.add_argument("query")
    _project_options(search)
    search.add_argument("-k", type=int, default=None)
    search.add_argument("--mode", choices=["hybrid", "keyword", "semantic"])

    recall = commands.add_parser("recall", help="the recall block for a project")
    _project_options(recall)
    recall.add_argument("--query")
    # `recall --project p "how do we paginate?"` reads as naturally as `--query`; either works.
    recall.add_argument("query_text", nargs="?", metavar="QUERY", help="the turn's question (same as --query)")
    recall.add_argument("--budget", type=int, dest="budget_chars")

    commands.add_parser("whoami", help="the token's name, projects and read-only flag, and the project chosen here")

    hook = commands.add_parser("hook", help="run as an agent's hook (the event JSON on stdin; fails open)")
    hook.add_argument("event", choices=["recall"], help="recall: the prompt hook (UserPromptSubmit)")
    return parser


def _project_options(command: argparse.ArgumentParser) -> None:
    where = command.add_mutually_exclusive_group()
    where.add_argument("--project", help="default: $MEMORYHUB_PROJECT, the token's only project, or the folder")
    where.add_argument("--global", action="store_true", dest="global_scope", help="the global memories only")


def project_of(args: argparse.Namespace, client: MemoryHubClient) -> str | None:
    if getattr(args, "global_scope", False):
        return None
    return choose_project(
        explicit=getattr(args, "project", None) or os.environ.get(PROJECT_ENV),
        token_projects=lambda: client.whoami().get("projects"),
        cwd=os.getcwd(),
    )


def run(args: argparse.Namespace, client: MemoryHubClient, out=sys.stdout) -> int:
    if args.command == "whoami":
        answer = client.whoami() | {"project": project_of(args, client)}
        print(json.dumps(answer, indent=2), file=out)
        return 0
    args.project = project_of(args, client)
    if args.command == "store":
        content = sys.stdin.read() if args.content == "-" else args.content
        metadata = None
        if args.metadata:
            try:
                metadata = json.loads(args.metadata)
            except json.JSONDecodeError as exc:
                raise ClientError(f"--metadata is not JSON: {exc.msg}") from exc
        answer = client.store(
            content=content, project=args.project, category=args.category, tier=args.tier, tags=args.tags,
            importance=args.importance, metadata=metadata,
        )  # fmt: skip
        if args.json:
            print(json.dumps(answer, indent=2), file=out)
        else:
            memory = answer.get("memory") or {}
            where = f" #{memory['id']}" if memory else ""
            print(f"{answer['outcome']}{where}: {answer['reason']}", file=out)
            for warning in answer.get("warnings", []):
                print(f"warning: {warning}", file=out)
        return 1 if answer["outcome"] == "rejected" else 0
    if args.command == "search":
        answer = client.search(query=args.query, project=args.project, k=args.k, mode=args.mode)
        if args.json:
            print(json.dumps(answer, indent=2), file=out)
        else:
            for hit in answer["results"]:
                label = f"[{hit['category']}] " if hit["category"] else ""
                print(f"#{hit['id']}\t{hit['score']:.3f}\t{label}{hit['content']}", file=out)
        return 0
    if args.query and args.query_text:
        raise ClientError("give the query once: as --query or as the last argument, not both")
    query = args.query or args.query_text
    answer = client.recall(project=args.project, query=query, budget_chars=args.budget_chars)
    print(json.dumps(answer, indent=2) if args.json else answer["text"], file=out)
    return 0


def main(argv: list[str] | None = None, *, send: Send | None = None, out=None, prog: str = "memoryhub") -> int:
    out = out or sys.stdout
    args = build_parser(prog).parse_args(argv)
    if args.command == "hook":
        return recall_hook(out=out)
    if not args.token:
        print("error: set MEMORYHUB_TOKEN (or pass --token); make one on the server with "
              "`.venv/bin/python manage.py create_token NAME`", file=sys.stderr)  # fmt: skip
        return 2
    client = MemoryHubClient(args.url, args.token, timeout=args.timeout, send=send)
    try:
        return run(args, client, out)
    except ClientError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
