"""What cannot succeed now: each action of an order checked as resolution will check it, with
the ordering dragon after its own movement and every other dragon where it is now (pure).

Resolution re-checks every action at the moment it is taken, after everyone moved (D10), so
an action possible now may still fail; one impossible now fails unless someone else's
movement saves it. The order builder and every order the bot proposes use this to name what
cannot succeed and why (docs/rules/dragons.md, D18-D28, D34), with the reason codes that
resolution's "impossible" events use.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from engine.rulesets.dragons.config import IN
from engine.rulesets.dragons.geometry import attack_check, movement_result
from engine.rulesets.dragons.orders import Action, DragonOrder
from engine.rulesets.dragons.state import Dragon, DragonsState

Problem = tuple[int, str, dict[str, Any]]  # (action index, reason code, its parameters)


def action_problems(state: DragonsState, pid: str, order: DragonOrder) -> list[Problem]:
    """The actions of ``pid``'s ``order`` that cannot succeed now, with why."""
    me = state.dragon(pid)
    moved = me
    if me.tail_of is None:  # a pursuer follows its victim (D26): it stays where it is now
        speed, altitude, _, _ = movement_result(
            state.config, state.stats[pid], me, order.move, order.n
        )
        moved = replace(me, speed=max(speed, 0), altitude=altitude)
    out: list[Problem] = []
    for i, a in enumerate(order.actions):
        found = _problem(state, pid, moved, order, a)
        if found is not None:
            out.append((i, *found))
        elif a.type == "tail" and moved.tail_of is None:
            moved = replace(moved, tail_of=a.target)  # a force after it works on it (D27)
    return out


def me_now(state: DragonsState, pid: str) -> Dragon:
    return state.dragon(pid)


def _in_battle(state: DragonsState, pid: str | None, *, flying: bool = True) -> Dragon | None:
    """The dragon ``pid`` if it is in the battle (and, with ``flying``, not falling)."""
    d = next((d for d in state.dragons if d.pid == pid), None)
    if d is None or d.status != IN or (flying and d.falling):
        return None
    return d


def _problem(
    state: DragonsState, pid: str, moved: Dragon, order: DragonOrder, a: Action
) -> tuple[str, dict[str, Any]] | None:
    if a.type == "attack":  # D18-D21, D24, D26
        if _in_battle(state, a.target, flying=False) is None:  # a falling dragon is a target
            return "target_gone", {"target": a.target}
        chk = attack_check(state, pid, a.weapon or "", a.target or "", (order.move, order.n))
        return None if chk.possible else (chk.reason or "", {"range": chk.range})
    if a.type == "tail":  # D25
        t = _in_battle(state, a.target)
        if t is None:
            return "target_gone", {"target": a.target}
        if me_now(state, pid).tail_of == t.pid:
            return "already_on_tail", {"target": t.pid}
        if (moved.speed, moved.altitude) != (t.speed, t.altitude):
            return "not_same_position", {"target": t.pid}
        return None
    if a.type == "force":  # D27
        victim = _in_battle(state, moved.tail_of)
        if victim is None:
            return "not_on_tail", {}
        if victim.tail_of is not None:
            return "victim_on_tail", {"victim": victim.pid}
        return None
    if a.type == "break":  # D28
        pursuers = [d.pid for d in state.dragons if d.tail_of == pid and d.status == IN]
        if a.target is not None:
            pursuers = [p for p in pursuers if p == a.target]
        return None if pursuers else ("no_pursuer", {})
    if a.type == "power" and state.stats[pid].arcane is None:  # D34a
        return "no_arcane_skill", {}
    return None
