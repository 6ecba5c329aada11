"""The ``pistol`` order (P6) and its parsing helpers."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.errors import Rejection


@dataclass(frozen=True, slots=True)
class PistolOrder:
    """P6: a move and the top-left aim corner (A, B); ``pick`` is the P13 extension."""

    move: int
    aim_x: int
    aim_y: int
    pick: tuple[int, int] | None = None
    # [A, B] as shot events record it, built once per order: events share it (read-only).
    aim: list[int] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "aim", [self.aim_x, self.aim_y])


# --------------------------------------------------------------------------- parsing helpers


def _int_field(raw: Mapping[str, Any], field: str, expected: str = "integer") -> int:
    if field not in raw:
        raise Rejection("invalid_field", what="order", field=field, expected="required")
    value = raw[field]
    if isinstance(value, bool) or not isinstance(value, int):
        raise Rejection("invalid_field", what="order", field=field, expected=expected)
    return value


def _pair(raw: Mapping[str, Any], field: str) -> tuple[int, int]:
    value = raw[field]
    if isinstance(value, str) and ":" in value:  # "A:B", the way the rules write cells
        try:
            a, b = (int(v) for v in value.split(":"))
        except ValueError:
            pass
        else:
            return a, b
    if (
        isinstance(value, list | tuple)
        and len(value) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        return int(value[0]), int(value[1])
    raise Rejection(
        "invalid_field", what="order", field=field, expected="two integers [A, B] or 'A:B'"
    )


def _choices(keys: Iterable[str]) -> str:
    return ", ".join(sorted(keys))
