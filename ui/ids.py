"""What the dashboard takes for a row id: ASCII digits, 1 to 18 of them (under any database's 64-bit integer).

`int()` reads far more than that (`١٢`, `１２`, `99999999999999999999999`), and a number past the column's range
stopped the database driver with an error (a 500) instead of finding no row. Paths take ids through the `id`
converter (a number outside it is a 404, as a missing row is); forms take them through `parse_ids`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

ID_PATTERN = "[0-9]{1,18}"
_ID = re.compile(ID_PATTERN)


def is_id(value: object) -> bool:
    return isinstance(value, str) and bool(_ID.fullmatch(value)) and int(value) > 0


def parse_ids(values: Iterable[object]) -> list[int] | None:
    """The ids, in order without repeats; None when any value is not an id (the form answers 422)."""
    values = list(values)
    if not all(is_id(v) for v in values):
        return None
    return list(dict.fromkeys(int(v) for v in values))  # type: ignore[arg-type]


class IdConverter:
    regex = ID_PATTERN

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)
