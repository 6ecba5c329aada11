"""Random orders of the ``dragons`` ruleset (the simulator's hot path): always legal."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from engine.rulesets.dragons.config import IN
from engine.rulesets.dragons.geometry import _params
from engine.rulesets.dragons.orders import Action, DragonOrder

if TYPE_CHECKING:
    from engine.rulesets.dragons.geometry import _Params
    from engine.rulesets.dragons.sheet import Weapon
    from engine.rulesets.dragons.state import Dragon, DragonsState


_Candidate = tuple[str, str | None, str | None, str | None, str | None, str]


def _actions_from(
    params: _Params,
    weapons: Sequence[Weapon],
    speed: int,
    altitude: int,
    tail_of: str | None,
    foes: Sequence[Dragon],
) -> list[_Candidate]:
    """Attacks and tail attempts that look possible from (``speed``, ``altitude``): the D18-D21
    geometry of :func:`_attack_geometry`, inlined because random play calls it a lot.
    ``weapons`` are the working ones."""
    out: list[_Candidate] = []
    factor = params.reach_factor
    adjacent_only = params.melee_requires_range_5
    for foe in foes:
        same_alt = altitude == foe.altitude
        same_speed = speed == foe.speed
        on_tail = same_alt and tail_of == foe.pid
        above = altitude > foe.altitude
        # The Range only matters to a ranged weapon, from above or on the tail (D18-D19).
        if on_tail:
            rng = params.range_on_tail
        elif above:
            rng = params.range_per_speed * abs(speed - foe.speed) + params.range_per_altitude * (
                altitude - foe.altitude
            )
        else:
            rng = 0  # not read
        for w in weapons:
            if w.melee:
                if same_alt and (same_speed or not adjacent_only):
                    out.append(("attack", w.name, foe.pid, None, None, ""))
            elif (above or on_tail) and w.bands is not None and rng <= w.bands[2] * factor:
                out.append(("attack", w.name, foe.pid, None, None, ""))
        if same_alt and same_speed and tail_of != foe.pid and not foe.falling:
            out.append(("tail", None, foe.pid, None, None, ""))
    return out


# Random orders by their fields: equal orders are one object (immutable), so the simulator's
# sealed-order cache hits and no Action or DragonOrder is built for an order seen before.
# Bounded: cleared when full.
_ORDERS: dict[tuple[Any, ...], DragonOrder] = {}
_LEVEL = DragonOrder("level", 0)
# The actions of those orders by their fields (fewer than the orders; bounded the same way).
_ACTIONS: dict[_Candidate, Action] = {}


def _action(fields: _Candidate) -> Action:
    if len(_ACTIONS) >= 4096:
        _ACTIONS.clear()
    action = _ACTIONS[fields] = Action(*fields)
    return action


class _OrderContext:
    """What the random orders of one state share: every acting dragon asks on the same
    state, one after another."""

    __slots__ = ("alive", "by_pid", "params", "state", "teams")

    def __init__(self, state: DragonsState) -> None:
        self.state = state
        self.params = _params(state.config)
        by_pid: dict[str, Dragon] = {}
        alive: list[tuple[Dragon, str]] = []
        teams: dict[str, str] = {}
        for d in state.dragons:
            by_pid[d.pid] = d
            if d.status == IN:
                team = f"dragon:{d.pid}" if d.consumed else d.side  # Dragon.team (D34)
                alive.append((d, team))
                teams[d.pid] = team
        self.by_pid = by_pid
        self.alive = alive  # the dragons in the battle with their teams, in state order
        self.teams = teams


# The context of the last state asked about (one entry, swapped whole: thread-safe enough,
# a miss only costs a recomputation).
_CONTEXT: list[_OrderContext | None] = [None]
