"""The ``pistol`` order (P6) and its parsing helpers."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from engine.errors import Rejection

if TYPE_CHECKING:
    from collections.abc import Iterable

    from engine.rulesets.pistol.state import Duelist, PistolState


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


def validate(state: PistolState, pid: str, order: PistolOrder) -> Rejection | None:
    cfg = state.rules.config
    if not -cfg.move_max <= order.move <= cfg.move_max:
        return Rejection("move_out_of_range", min=-cfg.move_max, max=cfg.move_max, got=order.move)
    for corner, value in (("A", order.aim_x), ("B", order.aim_y)):
        if not cfg.aim_min <= value <= cfg.aim_max:  # P8
            return Rejection(
                "aim_out_of_window",
                field=f"aim.{corner}",
                min=cfg.aim_min,
                max=cfg.aim_max,
                got=value,
            )
    if order.pick is not None:
        duelist = duelist_of(state, pid)
        if not duelist.player_rolls:  # P13: off by default
            return Rejection("pick_not_allowed", weapon=duelist.weapon)
        for value in order.pick:
            if not 1 <= value <= duelist.zone:
                return Rejection("pick_out_of_zone", min=1, max=duelist.zone, got=value)
    return None


def duelist_of(state: PistolState, pid: str) -> Duelist:
    for d in state.duelists:
        if d.pid == pid:
            return d
    raise Rejection("no_such_participant", pid=pid)


def parse_order(state: PistolState, pid: str, raw: Mapping[str, Any]) -> PistolOrder:
    if not isinstance(raw, Mapping):
        raise Rejection("invalid_field", what="order", field="order", expected="an object")
    extra = sorted(set(raw) - {"move", "aim", "pick"})
    if extra:
        raise Rejection("invalid_field", what="order", field=extra[0], expected="no such field")
    move = _int_field(raw, "move")
    if "aim" not in raw:
        raise Rejection("invalid_field", what="order", field="aim", expected="required")
    a, b = _pair(raw, "aim")
    pick = _pair(raw, "pick") if raw.get("pick") is not None else None
    return PistolOrder(move, a, b, pick)


def dump_order(order: PistolOrder) -> dict[str, Any]:
    out: dict[str, Any] = {"move": order.move, "aim": [order.aim_x, order.aim_y]}
    if order.pick is not None:
        out["pick"] = list(order.pick)
    return out
