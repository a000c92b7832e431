"""A write that puts one word of a stored memory in place of another value ("Logs are kept for a week" / "... for a
month", "before" / "after the deploy", "uppercased" / "lowercased") is never folded into it as a duplicate, however
close the model reads the two (0.92-0.98): it states another fact, and folding it would lose that fact. It is stored
beside the memory. A paraphrase that puts a plain word in place of another ("loads" / "fetches") still folds. The real
embedding model, through the API, in a project of its own per test."""

from __future__ import annotations

import pytest

from memoryhub.memories.rewording import compare
from memoryhub.models import Memory
from tests.api.conftest import write

pytestmark = pytest.mark.django_db

# Written for these tests, apart from the swap sets of the lab (bench/data/swaps).
SWAPS = {
    "unit_of_time": ("Audit logs are kept for a week.", "Audit logs are kept for a month."),
    "order": ("Schema migrations run before the deploy.", "Schema migrations run after the deploy."),
    "siblings_by_shape": ("User emails are lowercased before saving.", "User emails are uppercased before saving."),
    "days": ("Releases go out on weekdays only after review.", "Releases go out on weekends only after review."),
    "side": ("Read replicas serve the analytics queries.", "Write replicas serve the analytics queries."),
}  # fmt: skip


@pytest.mark.parametrize("kind", sorted(SWAPS))
def test_a_write_swapping_a_value_is_stored_beside_the_memory(claude, kind):
    stored, newer = SWAPS[kind]
    write(claude, stored)
    answer = write(claude, newer)
    assert answer["outcome"] not in ("duplicate", "merged"), answer["reason"]
    assert set(Memory.objects.filter(project="alpha").values_list("content", flat=True)) >= {stored, newer}


def test_a_paraphrase_trading_a_plain_word_still_folds(claude):
    first = write(claude, "The checkout page loads Stripe.js from the Stripe CDN.")["memory"]["id"]
    answer = write(claude, "The checkout page fetches Stripe.js from the Stripe CDN.")
    assert answer["outcome"] == "duplicate" and answer["memory"]["id"] == first, answer["reason"]


def test_a_swap_is_one_word_for_one_naming_values_of_one_thing():
    assert compare("Logs are kept for a month.", than="Logs are kept for a week.").swaps_a_value
    assert compare("Uploads are limited to 20 MB.", than="Downloads are limited to 20 MB.").swaps_a_value  # by shape
    assert not compare("The page fetches Stripe.js.", than="The page loads Stripe.js.").swaps_a_value
    # A word of a pair that also rewords everyday acts is no contrast on its own ("starts" / "is launched").
    assert not compare("The dev server is launched by npm.", than="npm starts the dev server.").swaps_a_value
    # Two words for two is a rewording to judge otherwise, not one value for another.
    assert not compare("Backups get stored offsite weekly.", than="Backups are kept offsite weekly.").swaps_a_value
