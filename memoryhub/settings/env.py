"""Strict readers for MEMORYHUB_* environment settings: a bad value stops start-up with its name."""

from __future__ import annotations

import os


class SettingError(ValueError):
    pass


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


def envint(name: str, default: int, *, minimum: int | None = None) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw)
    except ValueError as exc:
        raise SettingError(f"{name} must be a whole number, not {raw!r}") from exc
    if minimum is not None and value < minimum:
        raise SettingError(f"{name} must be at least {minimum}, not {value}")
    return value


def envfloat(name: str, default: float, *, minimum: float | None = None, maximum: float | None = None) -> float:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = float(raw)
    except ValueError as exc:
        raise SettingError(f"{name} must be a number, not {raw!r}") from exc
    if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
        raise SettingError(f"{name} must be between {minimum} and {maximum}, not {value}")
    return value
