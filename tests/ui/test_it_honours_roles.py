"""Every dashboard route, for a viewer of apollo, a curator of apollo and an owner of zephyr (the dashboard's
authorisation sweep): what the role allows goes through, what it does not answers 403 and changes nothing, and
another project's row answers exactly like a row that does not exist, without a word of its text.

The routes come from Django's resolver, so a new route that is not in ROUTES fails the sweep until someone says
what it needs.
"""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import get_resolver, reverse

from memoryhub.agents.tokens import create_token
from memoryhub.models import ApiToken, GateLogEntry, Membership, Memory, Proposal, Webhook
from memoryhub.people.roles import Action
from tests.factories import remember

OWN = {"viewer": "proj-apollo", "curator": "proj-apollo", "owner": "proj-zephyr"}
ROLE = {"viewer": "viewer", "curator": "curator", "owner": "owner"}
FOREIGN = {"proj-apollo": "proj-zephyr", "proj-zephyr": "proj-apollo"}
NOWHERE = 999_999  # an id no row has
ADMIN = "admin"  # a route only a hub admin may use: it acts on the whole store or on people

# name: (method, what its id or field names, what it needs)
ROUTES: dict[str, tuple[str, str | None, Action | str]] = {
    "memories": ("GET", None, Action.READ),
    "counters": ("GET", None, Action.READ),
    "bulk": ("POST", "selection", Action.CURATE),
    "merge": ("POST", "selection", Action.CURATE),
    "remove_demo": ("POST", None, ADMIN),
    "new_memory": ("POST", "project", Action.CURATE),
    "memory": ("GET", "memory", Action.READ),
    "row": ("GET", "memory", Action.READ),
    "edit": ("GET", "memory", Action.CURATE),
    "retag": ("GET", "memory", Action.CURATE),
    "confirm": ("POST", "memory", Action.CURATE),
    "archive": ("POST", "memory", Action.CURATE),
    "restore": ("POST", "memory", Action.CURATE),
    "refresh": ("POST", "memory", Action.CURATE),
    "delete": ("POST", "memory", Action.DELETE),
    "proposals": ("GET", None, Action.READ),
    "run_consolidation": ("POST", "project", Action.CURATE),
    "reject_selected": ("POST", "proposal selection", Action.CURATE),
    "accept": ("POST", "proposal", Action.CURATE),
    "reject": ("POST", "proposal", Action.CURATE),
    "undo": ("POST", "proposal", Action.CURATE),
    "decay": ("GET", None, Action.READ),
    "decay_sweep": ("POST", None, Action.SWEEP),
    "decay_sweep_preview": ("GET", None, Action.READ),
    "decay_undo_sweep": ("POST", None, Action.SWEEP),
    "gate": ("GET", None, Action.READ),
    "promote": ("POST", "gate", Action.CURATE),
    "supersessions": ("GET", None, Action.READ),
    "restore_supersession": ("POST", "memory", Action.CURATE),
    "held": ("GET", None, Action.READ),
    "held_approve": ("POST", "memory", Action.CURATE),
    "held_discard": ("POST", "memory", Action.CURATE),
    "changes": ("GET", None, Action.READ),
    "checking": ("GET", None, Action.READ),
    "check_memory": ("POST", "memory", Action.CURATE),
    "expiry": ("POST", "memory", Action.CURATE),
    "overview": ("GET", None, Action.READ),
    "activity_index": ("GET", None, Action.READ),
    "activity": ("GET", "project in path", Action.READ),
    "tokens": ("GET", None, Action.TOKENS),
    "token_create": ("POST", "project", Action.TOKENS),
    "token_revoke": ("POST", "token", Action.TOKENS),
    "token_trust": ("POST", "token", Action.TOKENS),
    "webhooks": ("GET", None, Action.TOKENS),
    "webhook_create": ("POST", "project", Action.TOKENS),
    "webhook_remove": ("POST", "webhook", Action.TOKENS),
    "people": ("GET", None, Action.MEMBERS),
    "person_create": ("POST", None, ADMIN),
    "grant": ("POST", "project", Action.MEMBERS),
    "revoke_role": ("POST", "project", Action.MEMBERS),
}
ALLOWED = {
    "viewer": {Action.READ},
    "curator": {Action.READ, Action.CURATE},
    "owner": set(Action),
}


def dashboard_route_names() -> list[str]:
    _, resolver = get_resolver().namespace_dict["ui"]
    return [pattern.name for pattern in resolver.url_patterns]


@pytest.fixture
def hub(db, settings) -> dict:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    rows: dict = {}
    for project, word in (("proj-apollo", "Apollo"), ("proj-zephyr", "Zephyr")):
        first = remember(f"{word} deploys go through the {word.lower()}-pipeline on Mondays", project=project)
        second = remember(f"{word} deploys use the {word.lower()}-pipeline every Monday morning", project=project)
        proposal = Proposal.objects.create(
            sources=[first.pk, second.pk],
            cluster_key=f"{first.pk},{second.pk}",
            project=project,
            content=f"{word} deploys run the {word.lower()}-pipeline on Monday mornings",
        )
        gate = GateLogEntry.objects.create(
            decision="rejected", reason="noise", kind="noise", project=project,
            content=f"{word} gate note about the {word.lower()}-pipeline schedule",
        )  # fmt: skip
        token, _ = create_token(name=f"{word.lower()}-agent", projects=[project])
        webhook = Webhook.objects.create(url=f"https://hooks.example.com/{word.lower()}", project=project, secret="s")
        rows[project] = {"memories": [first, second], "proposal": proposal, "gate": gate, "token": token,
                         "webhook": webhook}  # fmt: skip
        rows[project]["texts"] = [first.content, second.content, proposal.content, gate.content, project]
    rows["global"] = remember("The user prefers short answers in every project", category="preference")
    User = get_user_model()
    for who, role in ROLE.items():
        user = User.objects.create_user(who, password="a-long-test-password")
        Membership.objects.create(user=user, project=OWN[who], role=role)
    User.objects.create_user("newcomer", password="a-long-test-password")
    return rows


def client_for(who: str) -> Client:
    client = Client()
    client.force_login(get_user_model().objects.get(username=who))
    return client


def snapshot() -> tuple:
    """Everything a refused request must leave as it was."""
    return (
        list(Memory.objects.order_by("pk").values_list("pk", "content", "status", "confirmed", "project", "tags")),
        list(Proposal.objects.order_by("pk").values_list("pk", "status")),
        list(GateLogEntry.objects.order_by("pk").values_list("pk", "promoted_to_id")),
        list(ApiToken.objects.order_by("pk").values_list("pk", "revoked_at")),
        list(Membership.objects.order_by("pk").values_list("pk", "user_id", "project", "role")),
        list(Webhook.objects.order_by("pk").values_list("pk", "url", "project")),
    )


def request_for(name: str, target: str | None, project: str, hub: dict, *, missing: bool = False):
    """(url, data) for a route aimed at `project`'s rows (or at ids no row has)."""
    method, _, _ = ROUTES[name]
    rows = hub[project]
    memory_ids = [NOWHERE, NOWHERE - 1] if missing else [m.pk for m in rows["memories"]]
    args: list = []
    data: dict = {}
    if target == "memory":
        args = [memory_ids[0]]
        data = {"confirmed": "1"} if name == "confirm" else {}
    elif target == "selection":
        data = {"selected": memory_ids, "action": "confirm", "content": "Merged text about the pipeline on Mondays"}
    elif target == "proposal":
        args = [NOWHERE if missing else rows["proposal"].pk]
    elif target == "proposal selection":
        data = {"selected": [NOWHERE if missing else rows["proposal"].pk]}
    elif target == "gate":
        args = [NOWHERE if missing else rows["gate"].pk]
    elif target == "token":
        args = [NOWHERE if missing else rows["token"].pk]
    elif target == "webhook":
        args = [NOWHERE if missing else rows["webhook"].pk]
    elif target == "project in path":
        args = [project]
    elif target == "project":
        member = "owner" if project == "proj-zephyr" else "viewer"
        data = {"project": project, "name": "fresh-agent", "projects": [project], "username": member, "role": "viewer"}
    elif name == "person_create":
        data = {"username": "someone-new"}
    return method, reverse(f"ui:{name}", args=args), data


def send(client: Client, method: str, url: str, data: dict):
    return client.get(url, data) if method == "GET" else client.post(url, data)


def test_every_dashboard_route_is_in_the_sweep():
    assert sorted(dashboard_route_names()) == sorted(ROUTES)


@pytest.mark.parametrize("who", ["viewer", "curator", "owner"])
@pytest.mark.parametrize("name", dashboard_route_names())
def test_each_route_honours_the_role(hub, name, who):
    method, target, needs = ROUTES[name]
    own, foreign = OWN[who], FOREIGN[OWN[who]]
    client = client_for(who)
    allowed = needs != ADMIN and needs in ALLOWED[who]

    # Another project's row: the same answer as a row that does not exist, none of its text, nothing changed.
    if target not in (None, "project"):
        before = snapshot()
        answer = send(client, *request_for(name, target, foreign, hub))
        body = answer.content.decode()
        assert snapshot() == before
        assert not any(text in body for text in hub[foreign]["texts"]), (name, who)
        if target == "project in path":
            assert answer.status_code == 404, (name, who)
        else:
            # A role that may not do this anywhere is refused before any row is looked up (403 both times).
            nowhere = send(client, *request_for(name, target, foreign, hub, missing=True))
            assert answer.status_code == nowhere.status_code, (name, who)

    # A project they may not act in by name (projects are names, not rows): refused, nothing changed.
    if target == "project":
        before = snapshot()
        answer = send(client, *request_for(name, target, foreign, hub))
        assert answer.status_code == 403, (name, who, answer.status_code)
        assert snapshot() == before

    # Their own project's rows (or the page itself): through when the role allows it, 403 and unchanged if not.
    before = snapshot()
    answer = send(client, *request_for(name, target, own, hub))
    if allowed:
        assert answer.status_code not in (403, 404), (name, who, answer.status_code)
    else:
        assert answer.status_code == 403, (name, who, answer.status_code)
        assert snapshot() == before
    if method == "GET" and allowed:
        body = answer.content.decode()
        leaked = [text for text in hub[foreign]["texts"] if text in body]
        # Nor its ids: no link to, nor row of, another project's memory.
        leaked += [m.pk for m in hub[foreign]["memories"] if f"/memories/{m.pk}/" in body or f"memory-{m.pk}" in body]
        assert leaked == [], (name, who)


@pytest.mark.parametrize("who", ["viewer", "curator", "owner"])
def test_lists_searches_and_counts_show_only_what_the_person_may_see(hub, who):
    client = client_for(who)
    own, foreign = OWN[who], FOREIGN[OWN[who]]
    visible = {m.pk for m in hub[own]["memories"]} | {hub["global"].pk}
    listed = {int(n) for n in re.findall(r'<tr id="memory-(\d+)"', client.get("/").content.decode())}
    assert listed == visible
    searched = client.get("/", {"q": "deploys pipeline Monday", "status": "all"}).content.decode()
    assert {int(n) for n in re.findall(r'<tr id="memory-(\d+)"', searched)} <= visible
    assert all(text not in searched for text in hub[foreign]["texts"])
    # Asking for the other project by name shows nothing of it.
    filtered = client.get("/", {"project": foreign}).content.decode()
    assert re.findall(r'<tr id="memory-(\d+)"', filtered) == []
    counters = client.get(reverse("ui:counters")).content.decode()
    assert re.search(r'data-counter="active">(\d+)<', counters).group(1) == str(len(visible))
    assert re.search(r'data-counter="pending">(\d+)<', counters).group(1) == "1"
    overview = client.get(reverse("ui:overview")).content.decode()
    assert foreign not in overview


def test_a_hub_admin_sees_every_project(hub):
    admin = get_user_model().objects.create_superuser("root", password="a-long-test-password")
    client = Client()
    client.force_login(admin)
    body = client.get("/").content.decode()
    assert len(re.findall(r'<tr id="memory-(\d+)"', body)) == 5


def test_a_curator_may_not_move_a_memory_into_a_project_they_do_not_curate(hub):
    memory = hub["proj-apollo"]["memories"][0]
    client = client_for("curator")
    form = {f"m{memory.pk}-version": memory.updated_at.isoformat(), f"m{memory.pk}-project": "proj-zephyr"}
    answer = client.post(reverse("ui:retag", args=[memory.pk]), form)
    assert answer.status_code == 403
    memory.refresh_from_db()
    assert memory.project == "proj-apollo"


def test_global_memories_are_read_by_everyone_and_curated_by_hub_admins(hub):
    memory = hub["global"]
    client = client_for("owner")
    assert client.get(reverse("ui:memory", args=[memory.pk])).status_code == 200
    assert client.post(reverse("ui:archive", args=[memory.pk])).status_code == 403
    memory.refresh_from_db()
    assert memory.status == "active"
