"""No dashboard route answers 500 for any id: every route that takes an id in its path, and every form that sends ids
in its body, is walked with huge, negative, zero, non-ASCII-digit, malformed and another project's ids. Each answers
a 4xx (or the page, for a selection that keeps nothing) and another project's row is left as it was.

The routes come from Django's resolver, so a new route taking an id is walked without being listed here."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import URLPattern, get_resolver

from memoryhub.agents.tokens import create_token
from memoryhub.models import GateLogEntry, Membership, Memory, Proposal
from tests.factories import remember

BAD_IDS = [
    "99999999999999999999999",  # past any integer column
    "9223372036854775808",  # one past PostgreSQL's bigint
    "2147483648",  # one past a 32-bit integer
    "-1",
    "0",
    "١٢",  # Arabic-Indic digits: str.isdigit() and int() take them, a URL's [0-9] does not
    "１２",  # fullwidth digits
    "²",  # a superscript: isdigit() says yes, int() fails
    "1e3",
    "12abc",
    " 7",
    "",
    "null",
]
# Forms that send ids in their body, with what else they need to reach the ids.
SELECTION_FORMS = {
    "/memories/bulk/": {"action": "archive"},
    "/memories/merge/": {"content": "One merged fact about the deploys", "category": "fact"},
    "/proposals/reject/": {},
}


def id_routes() -> list[str]:
    """Path templates (`/memories/{}/edit/`) of every dashboard route with an id in its path."""
    found = []

    def walk(patterns, prefix=""):
        for p in patterns:
            if isinstance(p, URLPattern):
                route = prefix + str(p.pattern)
                converter = next((c for c in ("<id:", "<int:") if c in route), None)
                if converter:
                    found.append("/" + route.split(converter)[0] + "{}" + route.split(">", 1)[1])
            else:
                walk(p.url_patterns, prefix + str(p.pattern))

    walk(get_resolver().url_patterns)
    return sorted(set(found))


@pytest.fixture
def setup(db, settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    owner = get_user_model().objects.create_user("olga", password="a-long-test-password")
    Membership.objects.create(user=owner, project="apollo", role="owner")
    mine = remember("Apollo deploys run from the release branch", project="apollo")
    theirs = remember("Zephyr keeps its secrets in the vault under zephyr/prod", project="zephyr")
    other = remember("Zephyr pages the on-call person through Opsgenie", project="zephyr")
    proposal = Proposal.objects.create(sources=[theirs.pk, other.pk], cluster_key=f"{theirs.pk},{other.pk}",
                                       project="zephyr", category="fact", tier="semantic", tags=[],
                                       content="Zephyr's secrets and paging", rationale="same")  # fmt: skip
    entry = GateLogEntry.objects.create(decision="rejected", reason="noise", kind="noise", content="ok", payload={},
                                        project="zephyr", source="codex")  # fmt: skip
    token, _ = create_token(name="zephyr-bot", projects=["zephyr"])
    client = Client()
    client.force_login(owner)
    return client, {
        "memory": theirs,
        "other": other,
        "proposal": proposal,
        "entry": entry,
        "token": token,
        "mine": mine,
    }


def test_the_walk_finds_the_routes_that_take_ids():
    routes = id_routes()
    assert "/memories/{}/edit/" in routes and "/proposals/{}/accept/" in routes and "/tokens/{}/revoke/" in routes
    assert len(routes) >= 15


def test_every_route_with_an_id_in_its_path_answers_4xx_for_bad_and_foreign_ids(setup):
    client, rows = setup
    before = Memory.objects.get(pk=rows["memory"].pk).updated_at
    failures = []
    for route in id_routes():
        # Another project's row of the kind the route acts on.
        kind = {"proposals": "proposal", "gate": "entry", "tokens": "token"}.get(route.split("/")[1], "memory")
        foreign = [str(rows[kind].pk)]
        for bad in [*BAD_IDS, *foreign]:
            path = route.format(bad)
            for method in ("get", "post"):
                status = getattr(client, method)(path).status_code
                if status >= 500 or status < 400 and bad not in foreign:
                    failures.append((method, path, status))
                elif bad in foreign and status not in (403, 404, 405):
                    failures.append((method, path, status, "another project's row"))
    assert failures == []
    assert Memory.objects.get(pk=rows["memory"].pk).updated_at == before
    assert Proposal.objects.get(pk=rows["proposal"].pk).status == "pending"
    rows["token"].refresh_from_db()
    assert rows["token"].is_active


@pytest.mark.parametrize("path", SELECTION_FORMS)
def test_every_form_sending_ids_answers_without_a_500_and_leaves_other_projects_alone(setup, path):
    client, rows = setup
    foreign = [str(rows["memory"].pk), str(rows["other"].pk), str(rows["proposal"].pk)]
    for bad in [*BAD_IDS, *foreign]:
        for selected in ([bad], [bad, str(rows["mine"].pk)]):
            response = client.post(path, {**SELECTION_FORMS[path], "selected": selected}, HTTP_HX_REQUEST="true")
            assert response.status_code < 500, (path, selected, response.status_code)
    assert Memory.objects.get(pk=rows["memory"].pk).status == "active"
    assert Memory.objects.get(pk=rows["other"].pk).status == "active"
    assert Proposal.objects.get(pk=rows["proposal"].pk).status == "pending"


def test_revoking_a_role_or_reading_activity_with_odd_names_answers_4xx(setup):
    client, _ = setup
    for name in ["x" * 5000, "١٢", "../admin", "", "zephyr"]:
        assert client.post("/people/revoke/", {"username": name, "project": "apollo"}).status_code < 500
        assert client.post("/people/revoke/", {"username": "olga", "project": name}).status_code < 500
        assert client.get(f"/projects/{name or '-'}/activity/").status_code < 500
