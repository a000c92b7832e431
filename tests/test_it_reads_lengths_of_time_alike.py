"""A length of time written another way is the same length ("two weeks" / "14 days", "300 seconds" / "five
minutes", "a 15-minute lifetime" / "a lifetime of fifteen minutes"): the gate folds a write that says nothing else,
and another length is still another value, never folded. How often something happens is read the same way
("every 15 minutes" / "every quarter of an hour"; "every 60 minutes" is "every hour"), a rate is left as written
("100 requests a minute"), and months and years are never counted in days. The real embedding model,
through the API, in a project of its own per test."""

from __future__ import annotations

import pytest

from memoryhub.memories.details import added_details
from memoryhub.memories.phrasing import read_phrases
from memoryhub.memories.times import lengths_as_written, lengths_written_as_in, normalise_times
from memoryhub.memories.updates import Verdict, judge_pair
from tests.api.conftest import in_the_store, write

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("kept for 14 days", "kept for two weeks"),
        ("a TTL of 300 seconds", "a TTL of five minutes"),
        ("a 15-minute lifetime", "a fifteen-minute lifetime"),
        ("it times out after 90 minutes", "it times out after 1.5 hours"),
        ("polls twice within 1000 ms", "polls twice within a second"),
        ("half an hour of grace", "30 minutes of grace"),
        ("a quarter of an hour late", "15 min late"),
        ("twenty-four hours", "one day"),
        ("a 2.5 s budget", "a 2500ms budget"),
    ],
)
def test_one_length_written_two_ways_reads_as_one(one, other):
    assert normalise_times(one) == normalise_times(other)


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("kept for 30 seconds", "kept for 30 minutes"),
        ("kept for 30 days", "kept for a month"),
        ("kept for 12 months", "kept for a year"),
        ("kept for 7 days", "kept for 7 hours"),
    ],
)
def test_two_lengths_stay_two(one, other):
    assert normalise_times(one) != normalise_times(other)


@pytest.mark.parametrize(
    "rate",
    ["Each key may make 100 requests a minute.", "Deploys happen once a day.", "Standup is every second Monday."],
)
def test_how_often_is_left_as_written(rate):
    assert normalise_times(rate) == rate


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("Clickstream loads every 15 minutes.", "Clickstream loads every quarter of an hour."),
        ("The sensor is read every 500 milliseconds.", "The sensor is read every half second."),
        ("The cache is flushed every 60 minutes.", "The cache is flushed every hour."),
        ("Backups run every 6 hours.", "Backups run every six hours."),
    ],
)
def test_how_often_written_two_ways_reads_as_one(one, other):
    assert read_phrases(normalise_times(one)) == read_phrases(normalise_times(other))


def test_another_period_stays_another():
    assert read_phrases(normalise_times("Backups run every 6 hours.")) != read_phrases(
        normalise_times("Backups run every hour.")
    )


def test_a_range_gives_both_numbers_its_unit():
    assert normalise_times("Retention was cut from 30 to 14 days.") == normalise_times(
        "Retention was cut from 30 days to two weeks."
    )


def test_a_length_a_write_adds_is_named_as_written():
    assert added_details("Log retention in Loki is two weeks.", than="Log retention in Loki is 14.") == ["two weeks"]
    assert lengths_as_written("for a week, then 300 seconds") == {"7day": "a week", "5min": "300 seconds"}


PARAPHRASES = [
    ("Nightly database backups are retained for 14 days.", "Nightly database backups are retained for two weeks."),
    ("Search results are cached in Redis for 300 seconds.", "Search results are cached in Redis for five minutes."),
    ("Access tokens expire after 15 minutes.", "Access tokens expire after a quarter of an hour."),
]


@pytest.mark.parametrize(("stored", "again"), PARAPHRASES)
def test_a_write_that_writes_a_length_another_way_is_a_duplicate(claude, stored, again):
    first = write(claude, stored)["memory"]["id"]
    answer = write(claude, again)
    assert (answer["outcome"], answer["memory"]["id"]) == ("duplicate", first), answer["reason"]


@pytest.mark.parametrize(
    ("stored", "again", "value"),
    [
        ("Nightly database backups are retained for 14 days.",
         "Nightly database backups are retained for three weeks.", "three weeks"),
        ("Search results are cached in Redis for 300 seconds.",
         "Search results are cached in Redis for five hours.", "five hours"),
    ],
)  # fmt: skip
def test_another_length_is_never_folded(claude, stored, again, value):
    write(claude, stored)
    answer = write(claude, again)
    assert answer["outcome"] != "duplicate", answer["reason"]
    assert in_the_store(value)


def test_the_update_rules_read_a_length_as_the_older_writes_it():
    assert lengths_written_as_in("Backups are retained for two weeks.", "Backups are kept for 14 days.") == (
        "Backups are retained for 14 days."
    )
    # Another length, or a period the older states without a count, stays as the newer wrote it.
    assert lengths_written_as_in("Kept for three weeks.", "Kept for 14 days.") == "Kept for three weeks."
    assert lengths_written_as_in("Runs every 60 minutes.", "Runs every hour.") == "Runs every 60 minutes."


@pytest.mark.parametrize(
    ("newer", "verdict"),
    [
        ("Nightly backups are now kept for two weeks.", Verdict.NONE),
        ("Nightly backups are now kept for three weeks.", Verdict.SUPERSEDE),
    ],
)
def test_one_length_written_another_way_is_no_new_value(newer, verdict):
    assert judge_pair(older="Nightly backups are kept for 14 days.", newer=newer, similarity=0.95).verdict == verdict
