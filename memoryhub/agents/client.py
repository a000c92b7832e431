"""A small command-line client for agents that can run shell commands.

    export MEMORYHUB_URL=http://127.0.0.1:8000 MEMORYHUB_TOKEN=mh_...
    python -m memoryhub.agents.client store "Alpha deploys with make deploy" --project alpha --tag deploy
    python -m memoryhub.agents.client search "how do we deploy" --project alpha
    python -m memoryhub.agents.client recall --project alpha --query "deploy"

Without --project, the project is chosen as the hooks choose it (memoryhub/agents/projects.py):
MEMORYHUB_PROJECT, else the token's only project, else the git repository's top folder name, else the working
directory's name. --global works on the global memories (no project) instead.

Exit status: 0 done (a write folded into an existing memory counts as done), 1 refused or failed, 2 usage.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

import httpx

from memoryhub.agents.projects import PROJECT_ENV, choose_project

DEFAULT_URL = "http://127.0.0.1:8000"


class ClientError(Exception):
    pass


class MemoryHubClient:
    def __init__(self, url: str, token: str, *, timeout: float = 30.0, transport: httpx.BaseTransport | None = None):
        self.http = httpx.Client(
            base_url=url.rstrip("/") + "/api/v1/",
            headers={"Authorization": f"Bearer {token}", "Accept": "application/json"},
            timeout=timeout,
            transport=transport,
        )

    def _post(self, path: str, body: dict[str, Any], ok: tuple[int, ...] = (200, 201)) -> dict[str, Any]:
        try:
            response = self.http.post(path, json=body)
        except httpx.HTTPError as exc:
            raise ClientError(f"cannot reach MemoryHub at {self.http.base_url}: {exc}") from exc
        try:
            data = response.json()
        except ValueError as exc:
            raise ClientError(f"HTTP {response.status_code}: not a JSON answer") from exc
        if response.status_code not in ok:
            error = data.get("error", {}) if isinstance(data, dict) else {}
            raise ClientError(f"HTTP {response.status_code}: {error.get('message') or data}")
        return data

    def whoami(self) -> dict[str, Any]:
        try:
            response = self.http.get("whoami")
        except httpx.HTTPError as exc:
            raise ClientError(f"cannot reach MemoryHub at {self.http.base_url}: {exc}") from exc
        if response.status_code != 200:
            raise ClientError(f"HTTP {response.status_code} from whoami")
        return response.json()

    def store(self, **fields: Any) -> dict[str, Any]:
        return self._post("memories", {k: v for k, v in fields.items() if v not in (None, [])}, ok=(200, 201, 422))

    def search(self, **fields: Any) -> dict[str, Any]:
        return self._post("search", {k: v for k, v in fields.items() if v is not None})

    def recall(self, **fields: Any) -> dict[str, Any]:
        return self._post("recall", {k: v for k, v in fields.items() if v is not None})


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m memoryhub.agents.client", description="Talk to a MemoryHub server."
    )
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


def main(argv: list[str] | None = None, *, transport: httpx.BaseTransport | None = None, out=None) -> int:
    out = out or sys.stdout
    parser = build_parser()
    args = parser.parse_args(argv)
    if not args.token:
        print("error: set MEMORYHUB_TOKEN (or pass --token); make one with `manage.py create_token NAME`",
              file=sys.stderr)  # fmt: skip
        return 2
    client = MemoryHubClient(args.url, args.token, timeout=args.timeout, transport=transport)
    try:
        return run(args, client, out)
    except ClientError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
