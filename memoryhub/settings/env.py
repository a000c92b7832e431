"""Strict readers for MEMORYHUB_* environment settings: a bad value stops start-up with its name."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TypeVar

from memoryhub.startup import SettingError

__all__ = ["SettingError", "envbool", "envchoice", "envfloat", "envint", "envstr"]

N = TypeVar("N", int, float)


def envstr(name: str, default: str = "") -> str:
    return os.environ.get(name, default).strip()


def envbool(name: str, default: bool = False) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    value = raw.strip().lower()
    if value in {"1", "true", "yes", "on"}:
        return True
    if value in {"0", "false", "no", "off"}:
        return False
    raise SettingError(f"{name} must be true or false, not {raw!r}")


def _number(name: str, parse: Callable[[str], N], what: str) -> N | None:
    """The variable read by `parse` (None when unset or blank); a value it cannot read stops start-up."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return None
    try:
        return parse(raw)
    except ValueError as exc:
        raise SettingError(f"{name} must be {what}, not {raw!r}") from exc


def envint(name: str, default: int, *, minimum: int | None = None, maximum: int | None = None) -> int:
    value = _number(name, int, "a whole number")
    return default if value is None else _within(name, value, minimum, maximum)


def envfloat(name: str, default: float, *, minimum: float | None = None, maximum: float | None = None) -> float:
    value = _number(name, float, "a number")
    if value is None:
        return default
    if value != value or value in (float("inf"), float("-inf")):
        raise SettingError(f"{name} must be a finite number, not {os.environ[name]!r}")
    return _within(name, value, minimum, maximum)


def envchoice(name: str, default: str, choices: tuple[str, ...]) -> str:
    """One of `choices` (compared without case); `default` when unset."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    for choice in choices:
        if raw.strip().lower() == choice.lower():
            return choice
    raise SettingError(f"{name} must be one of {', '.join(choices)}, not {raw!r}")


def _within(name: str, value: float, minimum: float | None, maximum: float | None) -> float:
    if minimum is not None and value < minimum:
        raise SettingError(f"{name} must be at least {minimum}, not {value}")
    if maximum is not None and value > maximum:
        raise SettingError(f"{name} must be at most {maximum}, not {value}")
    return value
