"""The ``dragons`` order (D3): a movement and up to three actions; parsing and dumping."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engine.errors import Rejection
from engine.rulesets.dragons.config import (
    ACTION_TYPES,
    FORCE_CHOICES,
    FORCE_RAISE_CHOICES,
    MOVE_KINDS,
)
from engine.rulesets.dragons.geometry import movement_result
from engine.savage import (
    edition_rules,
)

if TYPE_CHECKING:
    from engine.rulesets.dragons.config import DragonsConfig
    from engine.rulesets.dragons.state import DragonsState


# --------------------------------------------------------------------------- orders


@dataclass(frozen=True, slots=True)
class Action:
    """One action (D3). ``type``: attack (weapon, target), tail (target), force (choice: up or
    down; raise_choice: climb or dive), break (target: optional pursuer), power (text)."""

    type: str
    weapon: str | None = None
    target: str | None = None
    choice: str | None = None
    raise_choice: str | None = None
    text: str = ""


@dataclass(frozen=True, slots=True)
class DragonOrder:
    """One movement (level with a Speed change ``n``; climb/dive ``n`` units) with an optional
    aerobatics name (D33), and up to three actions (D3)."""

    move: str = "level"
    n: int = 0
    aerobatics: str | None = None
    actions: tuple[Action, ...] = ()


_ORDER_KEYS = frozenset({"move", "n", "aerobatics", "actions"})
_ACTION_KEYS = frozenset({"type", "weapon", "target", "choice", "raise_choice", "text"})


def _bad(field_name: str, expected: str) -> Rejection:
    return Rejection("invalid_field", what="order", field=field_name, expected=expected)


def _str_field(raw: Mapping[str, Any], key: str, where: str, *, required: bool) -> str | None:
    value = raw.get(key)
    if value is None:
        if required:
            raise _bad(f"{where}.{key}", "required")
        return None
    if not isinstance(value, str) or not value.strip() or len(value) > 60:
        raise _bad(f"{where}.{key}", "a non-empty text up to 60 characters")
    return value.strip()


def parse_order_dict(config: DragonsConfig, raw: Mapping[str, Any]) -> DragonOrder:
    """Parse an order's JSON form (shape only; :meth:`DragonsRuleset.validate` checks it
    against the battle)."""
    if not isinstance(raw, Mapping):
        raise _bad("order", "an object")
    for key in raw:
        if key not in _ORDER_KEYS:
            raise _bad(str(key), "no such field")
    move = raw.get("move", "level")
    if move not in MOVE_KINDS:
        raise _bad("move", "level, climb or dive")
    n = raw.get("n", 0)
    if not isinstance(n, int) or isinstance(n, bool):
        raise _bad("n", "an integer")
    if move == "level" and not -config.level_slow_down <= n <= config.level_speed_up:
        # D11: level flight changes Speed by -1..+2.
        raise Rejection(
            "bad_speed_change", value=n, min=-config.level_slow_down, max=config.level_speed_up
        )
    if move != "level" and not 1 <= n <= config.max_altitude_change:
        raise Rejection("bad_altitude_change", value=n, min=1, max=config.max_altitude_change)
    aero = raw.get("aerobatics")
    if aero is not None and (not isinstance(aero, str) or not aero.strip() or len(aero) > 60):
        raise _bad("aerobatics", "a manoeuvre name up to 60 characters, or null")
    raw_actions = raw.get("actions", [])
    if not isinstance(raw_actions, list | tuple):
        raise _bad("actions", "a list")
    limit = min(config.max_actions, edition_rules(config.edition).action_cap or config.max_actions)
    if len(raw_actions) > limit:
        raise Rejection("too_many_actions", count=len(raw_actions), limit=limit)  # D3
    actions: list[Action] = []
    for i, a in enumerate(raw_actions):
        where = f"actions.{i}"
        if not isinstance(a, Mapping):
            raise _bad(where, "an object")
        for key in a:
            if key not in _ACTION_KEYS:
                raise _bad(f"{where}.{key}", "no such field")
        kind = a.get("type")
        if kind not in ACTION_TYPES:
            raise _bad(f"{where}.type", "attack, tail, force, break or power")
        if kind == "attack":
            actions.append(
                Action(
                    "attack",
                    weapon=_str_field(a, "weapon", where, required=True),
                    target=_str_field(a, "target", where, required=True),
                )
            )
        elif kind == "tail":
            actions.append(Action("tail", target=_str_field(a, "target", where, required=True)))
        elif kind == "force":
            choice = a.get("choice")
            if choice not in FORCE_CHOICES:
                raise _bad(f"{where}.choice", "up or down")
            raise_choice = a.get("raise_choice")
            if raise_choice is not None and raise_choice not in FORCE_RAISE_CHOICES:
                raise _bad(f"{where}.raise_choice", "climb, dive or null")
            actions.append(Action("force", choice=choice, raise_choice=raise_choice))
        elif kind == "break":
            actions.append(Action("break", target=_str_field(a, "target", where, required=False)))
        else:
            text = a.get("text", "")
            if not isinstance(text, str) or len(text) > 200:
                raise _bad(f"{where}.text", "a text up to 200 characters")
            actions.append(Action("power", text=text.strip()))
    return DragonOrder(move, n, aero.strip() if aero else None, tuple(actions))


def dump_order_dict(order: DragonOrder) -> dict[str, Any]:
    """The JSON form of an order (inverse of :func:`parse_order_dict`)."""
    actions: list[dict[str, Any]] = []
    for a in order.actions:
        if a.type == "attack":
            actions.append({"type": "attack", "weapon": a.weapon, "target": a.target})
        elif a.type == "tail":
            actions.append({"type": "tail", "target": a.target})
        elif a.type == "force":
            actions.append({"type": "force", "choice": a.choice, "raise_choice": a.raise_choice})
        elif a.type == "break":
            actions.append({"type": "break", "target": a.target})
        else:
            actions.append({"type": "power", "text": a.text})
    return {"move": order.move, "n": order.n, "aerobatics": order.aerobatics, "actions": actions}


def validate(state: DragonsState, pid: str, order: DragonOrder) -> Rejection | None:
    cfg = state.config
    try:
        me = state.dragon(pid)
    except Rejection as exc:
        return exc
    if not me.in_battle:
        return Rejection("not_in_battle", pid=pid)
    stats = state.stats[pid]
    if me.tail_of is not None:
        if (order.move, order.n) != ("level", 0) or order.aerobatics:
            return Rejection("pursuer_copies_victim", victim=me.tail_of)  # D26
    elif not me.falling:  # D32: a falling dragon's movement is void anyway
        reason = movement_result(cfg, stats, me, order.move, order.n)[2]
        if reason is not None:
            return reason
    weapons_used: set[str] = set()
    will_tail = me.tail_of is not None
    for i, a in enumerate(order.actions):
        where = f"actions.{i}"
        if a.type in ("attack", "tail"):
            target = next((d for d in state.dragons if d.pid == a.target), None)
            if target is None:
                return Rejection("no_such_target", field=where, target=a.target)
            if target.pid == pid:
                return Rejection("cannot_target_self", field=where)
            if not target.in_battle:
                return Rejection("target_not_in_battle", field=where, target=target.pid)
            if target.team == me.team:
                return Rejection("target_is_ally", field=where, target=target.pid)
        if a.type == "attack":
            weapon = stats.weapon(a.weapon or "")
            if weapon is None:
                names = ", ".join(w.name for w in stats.weapons)
                return Rejection("no_such_weapon", field=where, weapon=a.weapon, choices=names)
            if weapon.name in me.broken:
                return Rejection("weapon_broken", field=where, weapon=weapon.name)  # D24
            if weapon.name in weapons_used:
                return Rejection("weapon_used_twice", field=where, weapon=weapon.name)  # D17
            weapons_used.add(weapon.name)
            if state.dragon(a.target or "").tail_of == pid:
                return Rejection("cannot_attack_pursuer", field=where, target=a.target)  # D26
        elif a.type == "tail":
            if me.tail_of == a.target:
                return Rejection("already_on_tail", field=where, target=a.target)
            will_tail = True
        elif a.type == "force":
            if not will_tail:
                return Rejection("not_on_tail", field=where)  # D27
        elif a.type == "break":
            pursuers = [d.pid for d in state.dragons if d.tail_of == pid and d.in_battle]
            if not pursuers:
                return Rejection("no_pursuer", field=where)  # D28
            if a.target is not None and a.target not in pursuers:
                return Rejection("not_your_pursuer", field=where, target=a.target)
        elif a.type == "power" and stats.arcane is None:
            return Rejection("no_arcane_skill", field=where)  # D34a
    return None
