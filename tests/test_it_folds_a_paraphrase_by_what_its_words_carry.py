"""A paraphrase whose words the stored memory does not say, in any wording the word rules know ("go through a
vulnerability scan" for "are scanned for vulnerabilities", "likes" for "prefers", "triggers a rebuild" for "is
rebuilt"), is folded when the model reads those words as wording: taken out of the write, the write moves away
from the memory. A detail taken out brings the write nearer the memory that lacks it, so a write that adds one is
stored beside it, and a value swapped for another ("on disk" / "in memory") is never folded. The real embedding
model, through the API, in a project of its own per test."""

from __future__ import annotations

import pytest

from memoryhub.memories.details import added_details
from memoryhub.memories.rewording import compare
from memoryhub.models import Memory
from tests.api.conftest import in_the_store, write

pytestmark = pytest.mark.django_db

# Written for these tests, apart from the labelled sets: each folded only by the model's reading of the words the
# rules leave open.
PARAPHRASES = [
    (
        "Docker images are scanned for vulnerabilities before release.",
        "Before a release, Docker images go through a vulnerability scan.",
    ),
    ("The user prefers short answers with code first.", "The user likes brief answers that lead with the code."),
    ("The docs site is rebuilt on every push to main.", "Each push to main triggers a rebuild of the docs site."),
]
DETAILS = [
    ("The nightly export job writes Parquet files to the analytics bucket.",
     "The nightly export job writes compressed Parquet files to the analytics bucket.", "compressed"),
    ("Pull requests need two approving reviews before merge.",
     "Pull requests need two approving reviews from code owners before merge.", "code owners"),
    ("The mobile app caches images on disk for a week.",
     "The mobile app caches images on disk for a week, except on low storage.", "low storage"),
    ("The docs site is rebuilt on every push to main.",
     "The docs site is rebuilt and redeployed on every push to main.", "redeployed"),
]  # fmt: skip


@pytest.mark.parametrize(("stored", "again"), PARAPHRASES)
def test_a_paraphrase_in_words_the_rules_do_not_know_is_a_duplicate(claude, stored, again):
    first = write(claude, stored)["memory"]["id"]
    answer = write(claude, again)
    assert (answer["outcome"], answer["memory"]["id"]) == ("duplicate", first), answer["reason"]
    assert "(the same meaning, in other words, similarity 0." in answer["reason"]
    assert Memory.objects.filter(project="alpha").count() == 1


@pytest.mark.parametrize(("stored", "added", "detail"), DETAILS)
def test_a_write_that_adds_a_detail_is_stored_beside_the_memory(claude, stored, added, detail):
    write(claude, stored)
    answer = write(claude, added)
    assert answer["outcome"] == "created", answer["reason"]
    assert in_the_store(detail)


def test_a_value_swapped_for_another_is_not_folded(claude):
    write(claude, "The mobile app caches images on disk for a week.")
    answer = write(claude, "The mobile app caches images in memory for a week.")
    assert answer["outcome"] == "created", answer["reason"]
    assert in_the_store("in memory")


def test_solely_restricts_as_only_does(claude):
    stored = "Scores are normalised with statistics from the reference cohort only."
    first = write(claude, stored)["memory"]["id"]
    answer = write(claude, "Scores are normalised solely with statistics from the reference cohort.")
    assert (answer["outcome"], answer["memory"]["id"]) == ("duplicate", first), answer["reason"]
    # The restriction dropped widens the claim: stored beside it.
    assert write(claude, "Scores are normalised with statistics from the reference cohort.")["outcome"] == "created"


def test_a_compound_with_a_number_is_the_words_it_joins():
    stored = "The auth service issues JWTs signed with RS256 that expire after 15 minutes."
    again = "JWTs from the auth service are RS256-signed and have a 15-minute lifetime."
    assert added_details(again, than=stored, words_too=False) == []
    assert compare(again, than=stored).fixed == ()
    # A part the memory does not say is still a new name.
    assert compare("JWTs from the auth service are ES256-signed.", than=stored).fixed == ("ES256-signed",)
