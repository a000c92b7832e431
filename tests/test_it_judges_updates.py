"""The update rules on their own (a pure decision from two texts and their similarity), and the labelled set and
its measurement through the API (`python -m bench updates`)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from rest_framework.test import APIClient

from bench.commands.updates import Command
from bench.updates_set import DEV, HELD_OUT
from memoryhub.agents.tokens import create_token
from memoryhub.embeddings import get_embedder
from memoryhub.memories.updates import (
    Neighbour,
    Verdict,
    _same_slot_reworded,
    change_cue,
    judge_pair,
    judge_update,
    project_words,
)


@pytest.mark.parametrize(
    ("older", "newer", "verdict"),
    [
        ("CI runs on GitHub Actions.", "CI moved from GitHub Actions to Buildkite in March.", Verdict.SUPERSEDE),
        ("The bastion host is bastion-1.", "The bastion host is bastion-3.", Verdict.CONFLICT),
        ("Incidents page the on-call through PagerDuty.", "Incidents page the on-call through Opsgenie.",
         Verdict.CONFLICT),
        ("The data team's lead is Marguerite.", "The data team's lead is Oluwaseun.", Verdict.CONFLICT),
        ("Backups run every 6 hours.", "Backups now run every hour.", Verdict.SUPERSEDE),
        ("The staging cluster has 3 nodes.", "The production cluster has 12 nodes.", Verdict.DIFFERENT),
        ("Deploys to staging happen on Fridays.", "Deploys to production happen on Fridays.", Verdict.DIFFERENT),
        ("billing-api listens on port 8080.", "search-api listens on port 8080.", Verdict.DIFFERENT),
        ("Port 8080 is where billing-api listens.", "Port 8080 is where search-api listens.", Verdict.DIFFERENT),
        ("The billing service is owned by Alice.", "Alice owns the billing service.", Verdict.NONE),
        ("Use pnpm, not npm, to install packages.", "Install packages with pnpm instead of npm.", Verdict.NONE),
        ("The backup starts at 3pm UTC.", "The backup starts at 15:00 UTC.", Verdict.NONE),
        ("payments-api listens on port 8443.", "payments-api listens on port 8443; set PAYMENTS_PORT to move it.",
         Verdict.NONE),
    ],
)  # fmt: skip
def test_the_rules_read_a_pair_as_people_do(older, newer, verdict):
    embedder = get_embedder()
    a, b = embedder.embed([older, newer])
    similarity = float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))
    assert judge_pair(older=older, newer=newer, similarity=similarity).verdict == verdict


def _similarity(older: str, newer: str) -> float:
    a, b = get_embedder().embed([older, newer])
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("The user's GitHub handle is dana-k.", "The user switched on YubiKey two-factor auth for GitHub."),
        ("tollgate logs are shipped to Loki.",
         "Since the PCI review, tollgate also redacts email addresses from its logs."),
        ("The mobile app uses Renovate for dependency updates.", "The team switched on Dependabot for the mobile app."),
        ("Contract tests run against the payments mock.", "We started running contract tests against the sandbox."),
    ],
)  # fmt: skip
def test_a_write_that_adds_a_fact_replaces_nothing(older, newer):
    verdict = judge_pair(older=older, newer=newer, similarity=_similarity(older, newer), topic=frozenset({"tollgate"}))
    assert verdict.verdict not in (Verdict.SUPERSEDE, Verdict.CONFLICT), verdict.reason


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("Ledger's staging database is ledger-stg.db.internal.",
         "Ledger's CI moved from GitHub Actions to Buildkite in March."),
        ("Ledger's unit tests run on every push.", "Ledger's CI moved from GitHub Actions to Buildkite in March."),
        ("crank has about 400 weekly active users across engineering.",
         "crank releases moved to a weekly cadence, every Wednesday."),
        ("Pebble uses React Navigation 6 for routing.", "Pebble was upgraded to React Native 0.74."),
        ("EU region DB in Frankfurt", "US region DB moved to Ohio"),
    ],
)  # fmt: skip
def test_a_change_to_one_thing_leaves_the_projects_other_facts_alone(older, newer):
    topic = frozenset({"ledger", "crank", "pebble"})
    verdict = judge_pair(older=older, newer=newer, similarity=_similarity(older, newer), topic=topic)
    assert verdict.verdict != Verdict.SUPERSEDE, verdict.reason


def test_the_scope_name_is_no_subject():
    older, newer = "Pebble ships with Expo.", "Pebble now uses React Native 0.74."
    similarity = _similarity(older, newer)
    assert judge_pair(older=older, newer=newer, similarity=similarity, topic=frozenset({"pebble"})).verdict != (
        Verdict.SUPERSEDE
    )


def test_a_change_of_a_version_still_supersedes():
    older, newer = "Pebble is built with React Native 0.72.", "Pebble was upgraded to React Native 0.74."
    verdict = judge_pair(older=older, newer=newer, similarity=_similarity(older, newer), topic=frozenset({"pebble"}))
    assert verdict.verdict == Verdict.SUPERSEDE


@pytest.mark.parametrize(
    ("older", "newer", "verdict"),
    [
        # Another subject in the same words: the older's subject, as written, is gone from the newer.
        ("Node versions on my machine are managed with fnm.",
         "Go and Terraform versions are now managed with mise on my machine.", Verdict.NONE),
        # A change to part of a fact that holds more: a person decides what stays.
        ("FieldKit is a React Native 0.73 app in TypeScript, shipped on iOS and Android.",
         "FieldKit was upgraded to React Native 0.74.", Verdict.CONFLICT),
        ("FieldKit ships in three languages; its strings are managed in Lokalise.",
         "FieldKit translations were moved from Lokalise to Crowdin.", Verdict.CONFLICT),
        # Reworded around the same subject with another value, no cue: a person decides.
        ("Tollgate's default upstream timeout is 30 seconds.",
         "Tollgate gives upstreams 15 seconds by default before timing out.", Verdict.CONFLICT),
        # Very close in meaning, each saying something the other does not: a person decides.
        ("Tollgate refuses anything below TLS 1.2.", "Tollgate only accepts TLS 1.3.", Verdict.CONFLICT),
        # A compound name is another name than its first part.
        ("The Argo CD app for production Tollgate is tollgate-prod, and it auto-syncs.",
         "The tollgate-staging Argo CD app auto-syncs from main.", Verdict.DIFFERENT),
        # Qualifiers inside a compound name are qualifiers too.
        ("The Argo CD app for production is tollgate-prod.", "The Argo CD app for tollgate-staging syncs by hand.",
         Verdict.DIFFERENT),
        # A passive report of a change from the older's value to another: a cue, naming what it replaced.
        ("Logs go to a self-hosted Loki with 30 days of retention.", "Loki retention was cut from 30 to 14 days.",
         Verdict.CONFLICT),
        # A heading's value, and a name in several words opening a sentence: another value, not another subject.
        ("Terminal font: Fira Code at 13 pt.", "Terminal font: Iosevka Term at 13 pt.", Verdict.CONFLICT),
        ("Error tracking is Rollbar for both apps.", "Error tracking for both apps: Honeybadger Insights.",
         Verdict.CONFLICT),
    ],
)  # fmt: skip
def test_the_rules_ask_a_person_when_a_change_touches_part_of_a_fact(older, newer, verdict):
    topic = frozenset({"fieldkit", "tollgate"})
    assert judge_pair(older=older, newer=newer, similarity=_similarity(older, newer), topic=topic).verdict == verdict


def test_a_write_that_would_replace_several_facts_replaces_only_those_it_names():
    neighbours = [
        Neighbour(1, "CI runs on Jenkins.", 0.8),
        Neighbour(2, "Our CI server is Jenkins.", 0.8),
        Neighbour(3, "CI runs on CircleCI.", 0.8),
    ]
    verdicts = {v.memory_id: v.verdict for v in judge_update(text="CI moved from Jenkins to Buildkite.",
                                                              neighbours=neighbours)}  # fmt: skip
    assert verdicts == {1: Verdict.SUPERSEDE, 2: Verdict.SUPERSEDE, 3: Verdict.CONFLICT}


def test_a_write_that_names_none_of_several_facts_asks_a_person():
    neighbours = [Neighbour(1, "CI runs on Jenkins.", 0.8), Neighbour(2, "CI runs on CircleCI.", 0.8)]
    verdicts = [v.verdict for v in judge_update(text="CI now runs on Buildkite.", neighbours=neighbours)]
    assert verdicts == [Verdict.CONFLICT, Verdict.CONFLICT]


def test_a_cue_is_named_in_the_reason():
    verdict = judge_pair(older="The cache layer is Memcached.", newer="The cache layer was replaced by Redis.",
                         similarity=0.8)  # fmt: skip
    assert verdict.verdict == Verdict.SUPERSEDE and "replaced" in verdict.reason
    assert change_cue("The cache layer is Memcached.") == ""


def test_the_labelled_set_is_big_enough_and_a_third_is_held_out():
    assert len(DEV) + len(HELD_OUT) >= 150
    assert len(HELD_OUT) >= (len(DEV) + len(HELD_OUT)) // 3 - 1
    for part in (DEV, HELD_OUT):
        assert set(Counter(p.kind for p in part)) == {"cue", "nocue", "alike", "same"}
    assert not {(p.older, p.newer) for p in DEV} & {(p.older, p.newer) for p in HELD_OUT}


@pytest.mark.django_db
def test_eval_updates_measures_a_pair_of_each_kind_through_the_api():
    _, raw = create_token(name="eval-updates")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    command = Command()
    firsts = {kind: next(p for p in DEV if p.kind == kind) for kind in ("cue", "nocue", "alike", "same")}
    results = {kind: command.run_pair(client, f"p-{kind}", pair) for kind, pair in firsts.items()}
    assert results["cue"].superseded and results["cue"].newer_first and results["cue"].recall_clean
    assert results["nocue"].queued and results["nocue"].newer_first and not results["nocue"].superseded
    assert results["alike"].both_found and not (results["alike"].superseded or results["alike"].queued)
    assert not (results["same"].superseded or results["same"].queued)


def test_a_write_that_says_it_changed_asks_about_its_nearest_fact_when_nothing_else_qualifies():
    text = "Deploys no longer wait for a person: merges to main ship automatically after the checks pass."
    neighbours = [
        Neighbour(1, "Deploys are approved by the release captain in the #deploys channel.", 0.75),
        Neighbour(2, "Staging runs on the edge-staging cluster.", 0.5),
    ]
    verdicts = {v.memory_id: v.verdict for v in judge_update(text=text, neighbours=neighbours)}
    assert verdicts[1] == Verdict.CONFLICT and verdicts[2] != Verdict.CONFLICT
    # Far in meaning, or a write that adds, asks nobody.
    far = [Neighbour(1, neighbours[0].content, 0.45)]
    assert all(v.verdict != Verdict.CONFLICT for v in judge_update(text=text, neighbours=far))
    added = "Deploys now also post a summary to the #deploys channel."
    assert all(v.verdict != Verdict.CONFLICT for v in judge_update(text=added, neighbours=neighbours))


def test_a_range_is_no_change_cue_but_a_passive_report_of_one_is():
    assert change_cue("The worker pool scales from 2 to 10 replicas.") == ""
    assert change_cue("The matching window was widened from 3 to 5 business days.")


@pytest.mark.parametrize(
    ("older", "newer", "project", "same_slot"),
    [
        ("Inkwell's search is powered by Elasticsearch 7.", "Inkwell search runs on OpenSearch 2.11 now.", "inkwell",
         True),
        ("shipctl is written in Go 1.20.", "shipctl now builds with Go 1.23.", "shipctl", True),
        ("The rover's CAN bus runs at 500 kbit/s.", "The CAN bus runs at 1 Mbit/s after the harness redesign.",
         "rover", True),
        # the thing the older is about is gone
        ("billing-api listens on port 8080.", "search-api now listens on port 8081.", "platform", False),
        # a time and a place: two slots
        ("Backups run nightly at 02:00.", "Backups now go to the eu-west-2 bucket.", "platform", False),
        # only the product's name in common
        ("Storefront is styled with Tailwind CSS 3.", "Storefront uses ESLint with next/core-web-vitals, and Prettier.",
         "web", False),
        # two slots changed at once
        ("Partners on the 'gold' plan get 1000 requests per second.",
         "Partners on the 'silver' plan get 300 requests per second.", "tollgate", False),
        # the write names what it replaced, and it is not the older's
        ("The Salesforce extract is loaded with Fivetran.", "The HubSpot extract was migrated from Stitch to Airbyte.",
         "tidewater", False),
    ],
)  # fmt: skip
def test_a_fact_reworded_around_a_new_value_is_told_from_another_fact(older, newer, project, same_slot):
    """The same slot in other linking words ("is powered by" / "runs on") with another value goes to a person: never
    hidden silently, never left as two unrelated facts. Another fact that shares the linking words is not."""
    topic = project_words(project)
    assert _same_slot_reworded(older, newer, topic) == same_slot
    if same_slot:
        verdict = judge_pair(older=older, newer=newer, similarity=_similarity(older, newer), topic=topic)
        assert verdict.verdict == Verdict.CONFLICT, verdict.reason


def test_a_side_or_direction_tells_look_alikes_apart():
    older, newer = "The left drive node has CAN ID 0x21.", "The right drive node was reassigned CAN ID 0x23."
    verdict = judge_pair(older=older, newer=newer, similarity=_similarity(older, newer))
    assert verdict.verdict == Verdict.DIFFERENT, verdict.reason


def test_a_change_that_says_more_than_a_new_value_goes_to_a_person():
    """It keeps the older's subject but says other things of it: another attribute as often as a new value, so the
    older is never hidden on the rules' word alone."""
    older, newer = "Container images are stored in ECR.", "Container images are now scanned by Trivy on push."
    verdict = judge_pair(older=older, newer=newer, similarity=_similarity(older, newer))
    assert verdict.verdict == Verdict.CONFLICT, verdict.reason
    older, newer = "Backups run every 6 hours.", "Backups now run every hour."
    assert judge_pair(older=older, newer=newer, similarity=_similarity(older, newer)).verdict == Verdict.SUPERSEDE


@pytest.mark.parametrize(
    ("older", "newer", "kept"),
    [
        # One region's two values share the qualifiers of their name: no look-alikes.
        ("The main Harbor cluster lives in eu-west-1.", "The main Harbor cluster now lives in eu-west-3.", True),
        # Qualifiers that differ still tell two facts apart, whatever the names share.
        ("EU user data is stored in eu-west-1.", "UK user data was migrated to eu-west-2.", False),
        # A closing clause of why is not what the write adds.
        ("API keys rotate every 90 days.", "API keys now rotate every 30 days, per the new security policy.", True),
        ("API keys rotate every 90 days.", "Webhook secrets now also rotate every 30 days.", False),
        # A new version of a name both hold, written short or long, or with a capital inside.
        ("The main database is PostgreSQL 14.", "The main database now runs Postgres 16.", True),
        ("The app's minimum supported version is iOS 15.", "The app now requires iOS 17 or later.", True),
    ],
)  # fmt: skip
def test_a_change_of_a_value_is_read_through_its_name_and_a_closing_clause(older, newer, kept):
    verdict = judge_pair(older=older, newer=newer, similarity=_similarity(older, newer), topic=frozenset({"harbor"}))
    assert (verdict.verdict in (Verdict.SUPERSEDE, Verdict.CONFLICT)) is kept, verdict.reason
