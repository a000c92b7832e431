"""Field definitions several migrations share, frozen like them: a migration's fields are the model's as they were
when it was made, so nothing here follows memoryhub/models.py. It imports nothing of the project's."""

from django.db import models


def indexed_choice(*values: str, default: str | None = None) -> models.CharField:
    """An indexed column holding one of `values` (a status, a decision, a kind), each labelled as Django labels a
    TextChoices value ("pending" -> "Pending")."""
    given = {} if default is None else {"default": default}
    return models.CharField(
        choices=[(value, value.capitalize()) for value in values], db_index=True, max_length=20, **given
    )


def memory_link(related_name: str, on_delete=models.SET_NULL) -> models.ForeignKey:
    """An optional link to another memory (by default set to NULL when that memory goes)."""
    return models.ForeignKey(
        blank=True, null=True, on_delete=on_delete, related_name=related_name, to="memoryhub.memory"
    )
