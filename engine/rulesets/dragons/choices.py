"""Random orders of the ``dragons`` ruleset (the simulator's hot path): always legal."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.errors import Rejection
from engine.rulesets.dragons.config import FORCE_CHOICES, FORCE_RAISE_CHOICES, IN
from engine.rulesets.dragons.geometry import _MoveRow, _params, movement_result
from engine.rulesets.dragons.orders import Action, DragonOrder

if TYPE_CHECKING:
    import random
    from collections.abc import Sequence

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


def default_order(state: DragonsState, pid: str) -> DragonOrder:
    """Level flight, no action (DEFAULT), Speed change from config; a pursuer or a dragon
    that could not make the change keeps its Speed."""
    cfg = state.config
    me = state.dragon(pid)
    delta = cfg.default_speed_delta
    if (
        me.tail_of is not None
        or movement_result(cfg, state.stats[pid], me, "level", delta)[2] is not None
    ):
        delta = 0
    return DragonOrder("level", delta)


def random_order(state: DragonsState, pid: str, rng: random.Random) -> DragonOrder:
    """A random legal order: a legal movement (with at most 3 units of climb or dive),
    preferring one after which an attack or a tail attempt is possible, so random battles
    end: from a uniformly drawn movement on, in the list order (level -1..+2, climb 1..3,
    dive 1..3) and round to the start, the first such one; the drawn one if none is. Then
    an occasional aerobatics and 1-3 actions drawn from those that look possible after
    the movement."""
    ctx = _CONTEXT[0]
    if ctx is None or ctx.state is not state:
        ctx = _CONTEXT[0] = _OrderContext(state)
    me = ctx.by_pid.get(pid)
    if me is None:
        raise Rejection("no_such_participant", pid=pid)
    params = ctx.params
    if me.status != IN or me.falling:
        if params.config.default_speed_delta == 0:
            return _LEVEL  # default_order's value when the Speed change is 0
        return default_order(state, pid)
    stats = state.stats[pid]
    team = ctx.teams[pid]
    foes: list[Dragon] = []
    pursued = False
    for d, their_team in ctx.alive:
        if d.tail_of == pid:
            pursued = True  # D26: its pursuer cannot be attacked
        elif their_team != team:
            foes.append(d)
    tail_of = me.tail_of
    moves: list[_MoveRow]
    if tail_of is not None:
        moves = [("level", 0, me.speed, 0)]  # D26
    else:
        top = stats.top_speed
        found = params.moves.get((me.speed, top))
        moves = found if found is not None else params.legal_moves(me.speed, top)
    random_ = rng.random
    broken = me.broken
    weapons = [w for w in stats.weapons if w.name not in broken] if broken else stats.weapons
    altitude = me.altitude
    count = len(moves)
    start = int(random_() * count)
    move, n, speed, climbed = moves[start]
    if count == 1:  # e.g. a pursuer (D26)
        candidates = _actions_from(params, weapons, speed, altitude + climbed, tail_of, foes)
    else:
        # From the drawn movement on (cyclically), the first after which something can be
        # attacked (or tailed), so random battles end; the drawn one if there is none.
        # The test is _actions_from's (a dragon with more than one movement is on no
        # tail), without building lists: only the chosen movement's actions are built.
        factor = params.reach_factor
        if broken:
            melee = False
            reach = -1  # the longest Long band of a working ranged weapon; -1: none
            for w in weapons:
                if w.bands is None:
                    melee = melee or w.melee
                elif w.bands[2] * factor > reach:
                    reach = w.bands[2] * factor
        else:  # every weapon works: the sheet's figures
            melee = stats.melee
            reach = stats.long_band * factor if stats.long_band >= 0 else -1
        melee_anywhere = melee and not params.melee_requires_range_5
        per_speed, per_altitude = params.range_per_speed, params.range_per_altitude
        candidates = []
        for i in range(start, start + count):
            row = moves[i - count] if i >= count else moves[i]
            row_speed = row[2]
            row_altitude = altitude + row[3]
            for foe in foes:
                if row_altitude == foe.altitude:
                    if melee_anywhere or (row_speed == foe.speed and (melee or not foe.falling)):
                        break
                elif row_altitude > foe.altitude and reach >= 0:
                    gap = per_speed * abs(row_speed - foe.speed) + per_altitude * (
                        row_altitude - foe.altitude
                    )
                    if gap <= reach:
                        break
            else:
                continue  # nothing from this movement
            move, n, speed, climbed = row
            candidates = _actions_from(params, weapons, speed, altitude + climbed, tail_of, foes)
            break
    aero = "loop" if tail_of is None and random_() < 0.05 else None
    if tail_of is not None:
        choice = FORCE_CHOICES[int(random_() * 2)]
        raise_choice = FORCE_RAISE_CHOICES[int(random_() * 2)]
        candidates.append(("force", None, None, choice, raise_choice, ""))
    if pursued:
        candidates.append(("break", None, None, None, None, ""))
    if stats.arcane is not None and random_() < 0.1:
        candidates.append(("power", None, None, None, None, "power"))
    key: tuple[Any, ...]
    if not candidates:
        key = (move, n, aero)
    else:
        count = int(random_() * params.max_actions) + 1
        chosen: list[_Candidate] = []
        used: list[str | None] = []
        # Uniform draws without replacement (the same as shuffling and taking from the
        # front, without drawing for the candidates never reached); one weapon per order
        # (D17).
        while candidates and len(chosen) < count:
            c = candidates.pop(int(random_() * len(candidates)))
            if c[0] == "attack":
                if c[1] in used:
                    continue
                used.append(c[1])
            chosen.append(c)
        key = (move, n, aero, *chosen)
    order = _ORDERS.get(key)
    if order is None:
        if len(_ORDERS) >= 4096:
            _ORDERS.clear()
        actions = tuple([_ACTIONS.get(c) or _action(c) for c in key[3:]])
        order = _ORDERS[key] = DragonOrder(move, n, aero, actions)
    return order
