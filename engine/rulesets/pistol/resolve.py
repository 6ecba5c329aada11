"""One ``pistol`` turn: initiative (P14), shots (P9, P5) and hits (P11, P16-P19)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from engine.errors import Rejection
from engine.events import Event
from engine.ruleset import RUNNING, Sealed
from engine.rulesets.pistol.choices import default_order
from engine.rulesets.pistol.state import _RESULT, Duelist, PistolState, _new, _state, _updated

if TYPE_CHECKING:
    from collections.abc import Mapping

    from engine.dice import TurnLog
    from engine.rulesets.pistol.orders import PistolOrder
    from engine.rulesets.pistol.state import Rules


# Markers a CountingLog records instead of full events (kind, plus the count_detail field).
_MARK_INITIATIVE: Final = Event("initiative")
_MARK_MISS: Final = Event("miss")
_MARK_NO_SHOT: Final = Event("no_shot")
_MARK_DEATH: Final = Event("death")
_MARK_WOUND: Final = Event("wound")
_MARK_OUTCOME: Final = Event("outcome")


class _HitMarks(dict[str, Event]):
    """hit markers by part (a configured silhouette may name its own parts)."""

    def __missing__(self, part: str) -> Event:
        mark = self[part] = Event("hit", None, {"part": part})
        return mark


_MARK_HIT: Final = _HitMarks()


class _Live:
    """A duelist's changing fields while one turn resolves (mutable, local to resolve)."""

    __slots__ = ("part", "shrugs_left", "status")

    def __init__(self, shrugs_left: int, status: str, part: str | None) -> None:
        self.shrugs_left = shrugs_left
        self.status = status
        self.part = part


def _initiative(rules: Rules, log: TurnLog, pid: str, move: int, speed: int) -> int:
    """P14: roll one duelist's initiative again (a tie reroll) and record it; the total."""
    roll = log.die(rules.initiative_die, "initiative", pid)
    total = roll + speed - abs(move) * rules.move_penalty
    log.emit("initiative", pid, move=move, roll=roll, speed=speed, total=total)
    return total


def resolve_turn(
    state: PistolState, orders: Mapping[str, Sealed[PistolOrder]], log: TurnLog
) -> PistolState:
    """P9-P19 for one turn. Rolls, in this order: initiative for each duelist in seat
    order (P14), then each shot's hit_x and hit_y dice in shot order, each followed by a
    lethality roll when it hits a torso (P11).

    Written for speed (the simulator's hot path): locals instead of attribute chains,
    events built with ``_new`` (the named tuple's value without its Python ``__new__``),
    and methods called as ``obj.method(...)``, which Python 3.11 specialises
    (``events.append`` is done inline), never through a bound method kept in a local."""
    rules, duelists, turn, result, pids = state  # one unpack; pids: state.acting
    if result.status != "running":  # = result.finished, minus a property call
        raise Rejection("not_running")
    d0, d1 = duelists  # P1: exactly two duelists
    p0 = d0.pid
    p1 = d1.pid
    try:  # the usual case: both orders sealed, and nobody else's
        if len(orders) != 2:
            raise KeyError
        o0 = orders[p0][0]  # [0]: Sealed.order
        o1 = orders[p1][0]
    except KeyError:  # a missing order (the deadline default) or a stranger's
        o0, o1 = _orders(state, orders, p0, p1)
    events = log.events

    # P14: initiative = d6 + weapon speed - |own move|; higher shoots first.
    m0, m1 = o0.move, o1.move
    memo = log.memo  # equal events are shared (TurnLog.shared): the key holds every value
    counting = log.counting  # the simulator's CountingLog: kind markers, no full events
    r0 = log.die(rules.initiative_die, "initiative", p0)
    s0 = d0.speed
    t0 = r0 + s0 - (m0 if m0 >= 0 else -m0) * rules.move_penalty  # abs(m0), without a call
    if counting:
        events.append(_MARK_INITIATIVE)
    else:
        try:  # a subscript (no method call): the key is nearly always there
            event = memo[key := ("initiative", p0, m0, r0, s0, t0)]
        except KeyError:
            data: dict[str, Any] = {"move": m0, "roll": r0, "speed": s0, "total": t0}
            event = log.shared(key, _new(Event, ("initiative", p0, data)))
        events.append(event)
    r1 = log.die(rules.initiative_die, "initiative", p1)
    s1 = d1.speed
    t1 = r1 + s1 - (m1 if m1 >= 0 else -m1) * rules.move_penalty
    if counting:
        events.append(_MARK_INITIATIVE)
    else:
        try:
            event = memo[key := ("initiative", p1, m1, r1, s1, t1)]
        except KeyError:
            data = {"move": m1, "roll": r1, "speed": s1, "total": t1}
            event = log.shared(key, _new(Event, ("initiative", p1, data)))
        events.append(event)
    if t0 == t1 and rules.tie_rerolls:  # P14 (config): equal totals may be rolled again
        for _ in range(rules.tie_rerolls):
            t0 = _initiative(rules, log, p0, m0, s0)
            t1 = _initiative(rules, log, p1, m1, s1)
            if t0 != t1:
                break
    simultaneous = t0 == t1  # P14: equal values shoot simultaneously
    # The higher total shoots first (seat order when equal). Set up as the second shot:
    # each pass of the loop below swaps shooter and target first (no tuples built).
    if t0 >= t1:
        shooter, target = d1, d0
        so, to = o1, o0
    else:
        shooter, target = d0, d1
        so, to = o0, o1

    cells = rules.cells
    changed: dict[str, _Live] | None = None  # only duelists hit this turn
    over = False
    for _ in (1, 2):  # two shots, one each
        shooter, target = target, shooter
        so, to = to, so
        shift = -to.move  # P10: E = -(target's move)
        if over:  # P15/P19: the hit that ended the duel stops the later shot
            if counting:
                events.append(_MARK_NO_SHOT)
                continue
            events.append(_new(Event, ("no_shot", shooter.pid, {"reason": "duel_over"})))
            continue
        n = shooter.zone
        if shooter.player_rolls and so.pick is not None:  # P13 extension, off by default
            f, h = so.pick
        else:
            f = log.die(n, "hit_x", shooter.pid)
            h = log.die(n, "hit_y", shooter.pid)
        ax = so.aim_x
        ay = so.aim_y
        c = ax + shift + f - 1  # P9: C = A + E + (F - 1)
        r = ay - h + 1  # P9: D = B - (H - 1)
        part = cells.get((c, r))  # P11: the hit location is the cell's part (P5)
        if counting:
            if part is None:
                events.append(_MARK_MISS)
                continue
            events.append(_MARK_HIT[part])
        else:
            data = {
                "target": target.pid,
                "aim": so.aim,
                "shift": shift,
                "zone": n,
                "dice": [f, h],
                "cell": [c, r],
            }
            if part is None:
                events.append(_new(Event, ("miss", shooter.pid, data)))
                continue
            data["part"] = part
            events.append(_new(Event, ("hit", shooter.pid, data)))
        if changed is None:
            changed = {}
        live = changed.get(target.pid)
        if live is None:
            live = changed[target.pid] = _Live(target.shrugs_left, target.status, target.part)
        # P15: simultaneous shots are all resolved, whatever the first one did.
        if _apply_hit(rules, target, shooter.pid, part, live, log) and not simultaneous:
            over = True
    played = turn
    turn += 1
    if changed is None:  # the common case: nobody hit, only the turn counter moves (P2)
        if turn <= rules.turn_limit:
            return _new(PistolState, (rules, duelists, turn, RUNNING, pids))
        after = _state(rules, duelists, turn, pids)
    else:
        after = _state(rules, _updated(duelists, changed), turn, pids)
    result = after[_RESULT]
    if result.status != "running":  # P20: the outcome with the turn counter (turn k of N)
        if counting:
            events.append(_MARK_OUTCOME)
            return after
        status, winners, reason = result.status, result.winners, result.reason
        end = ("outcome", status, winners, reason, played, rules.turn_limit)
        try:  # shared like initiative events: few values recur
            event = memo[end]
        except KeyError:
            data = {
                "status": status,
                "winners": list(winners),
                "reason": reason,
                "turn": played,
                "turn_limit": rules.turn_limit,
            }
            event = log.shared(end, _new(Event, ("outcome", None, data)))
        events.append(event)
    return after


def _orders(
    state: PistolState, orders: Mapping[str, Sealed[PistolOrder]], p0: str, p1: str
) -> tuple[PistolOrder, PistolOrder]:
    """Both duelists' orders, the default for a missing one; refuses a stranger's."""
    for pid in orders:
        if pid not in (p0, p1):
            raise Rejection("no_such_participant", pid=pid)
    s0, s1 = orders.get(p0), orders.get(p1)
    return (
        s0.order if s0 is not None else default_order(state, p0),
        s1.order if s1 is not None else default_order(state, p1),
    )


def _apply_hit(
    rules: Rules, target: Duelist, shooter: str, part: str, live: _Live, log: TurnLog
) -> bool:
    """Apply a hit on ``part`` of ``target``, updating ``live`` in place. Returns True
    when the hit ends the duel (P16)."""
    if part in target.shrug_parts and live.shrugs_left > 0:
        # P17 thick_skinned: shrugged off, no wound, the duel goes on.
        live.shrugs_left -= 1
        log.emit("perk", target.pid, effect="shrug", part=part, by=shooter)
        return False
    mode = rules.lethality[part]
    lethal = mode == "always"
    if mode != "never" and part in target.never_lethal:
        # P17 (lucky: torso): a hit here wounds but never kills, whether the part is
        # lethal by a roll (no roll then) or always.
        lethal = False
        log.emit("perk", target.pid, effect="not_lethal", part=part, by=shooter)
    elif mode == "roll":
        cfg = rules.config
        roll = log.die(cfg.lethal_roll_sides, "lethality", target.pid)
        lethal = roll <= cfg.lethal_roll_max  # P11: 50% by default
    if live.status != "dead":  # P18: both take their wounds; death is not undone
        live.status = "dead" if lethal else "wounded"
        live.part = part
    kind = "death" if lethal else "wound"
    if log.counting:
        log.events.append(_MARK_DEATH if lethal else _MARK_WOUND)
        return True
    event = log.memo.get(key := (kind, target.pid, part, shooter))  # shared, as initiative
    if event is None:
        data = {"part": part, "by": shooter}
        event = log.shared(key, _new(Event, (kind, target.pid, data)))
    log.events.append(event)
    return True
