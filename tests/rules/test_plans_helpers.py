"""Shared helpers of the ``plans`` rule tests: a plain sheet, scripted turns, event lookup."""

from __future__ import annotations

import copy
from typing import Any

from engine.dice import ScriptedDice, TurnLog
from engine.events import Event
from engine.ruleset import Entrant, Sealed
from engine.rulesets.plans import RULESET, Plan, PlansState

R = RULESET
TEXT = "I lunge along the wall, blade low"


def sheet(**attrs: int) -> dict[str, Any]:
    """A plain sheet: every accuracy 1, impact 2, reserve 2; skills at level 1 except feint 2;
    unarmed (lethality 0). Keyword arguments override attributes; ``lethality=`` the weapon."""
    lethality = attrs.pop("lethality", 0)
    base = {
        "dexterity": 1, "strength": 2, "stamina": 2,
        "artistry": 1, "giftedness": 2, "source": 2,
        "reaction": 1, "concentration": 2, "will": 2,
    }  # fmt: skip
    base.update(attrs)
    return {
        "name": "Plain",
        "attributes": base,
        "skills": {
            "blade": {"level": 1, "groups": ["physical"]},
            "fire": {"level": 1, "groups": ["magical"]},
            "mind": {"level": 1, "groups": ["mental"]},
            "feint": {"level": 2, "groups": ["physical", "mental"]},
        },
        "weapon": {"name": "stick", "lethality": lethality},
    }


def start(
    config: dict[str, Any] | None = None,
    a: dict[str, Any] | None = None,
    b: dict[str, Any] | None = None,
    initiative: tuple[int, ...] = (5, 2),
) -> PlansState:
    """A started duel (p1 vs p2); by default p1 wins initiative (5+3 vs 2+3) and attacks."""
    dice = ScriptedDice(initiative)
    state = R.setup(
        R.config(config or {}),
        [
            Entrant("p1", "p1", copy.deepcopy(a or sheet())),
            Entrant("p2", "p2", copy.deepcopy(b or sheet())),
        ],
        TurnLog(dice),
    )
    assert dice.remaining == 0
    return state


def plan(group: str = "physical", skill: str = "blade", action: str = "cunning", **kw: Any) -> Plan:
    kw.setdefault("text", TEXT)
    return Plan(group, skill, action, **kw)


def with_fighter(state: PlansState, i: int, **changes: Any) -> PlansState:
    """The state with fighter ``i``'s fields changed (reserves, wounds…)."""
    fighters = list(state.fighters)
    fighters[i] = fighters[i]._replace(**changes)
    return state._replace(fighters=tuple(fighters))


def play(state: PlansState, p1: Plan, p2: Plan, faces: list[int]) -> tuple[PlansState, list[Event]]:
    """Resolve one turn with both plans (validated first) and exactly ``faces``."""
    for pid, order in (("p1", p1), ("p2", p2)):
        reason = R.validate(state, pid, order)
        assert reason is None, reason
    dice = ScriptedDice(faces)
    log = TurnLog(dice)
    new = R.resolve(state, {"p1": Sealed(p1), "p2": Sealed(p2)}, log)
    assert dice.remaining == 0, f"{dice.remaining} scripted faces unused"
    return new, log.events


def of(events: list[Event], kind: str, actor: str | None = None) -> list[dict[str, Any]]:
    """Data of the events of ``kind`` (for ``actor`` when given)."""
    return [dict(e.data) for e in events if e.kind == kind and (actor is None or e.actor == actor)]


def one(events: list[Event], kind: str, actor: str | None = None) -> dict[str, Any]:
    found = of(events, kind, actor)
    assert len(found) == 1, (kind, actor, found)
    return found[0]


def rolls(events: list[Event], purpose: str, actor: str | None = None) -> list[list[int]]:
    return [
        list(e.data["faces"])
        for e in events
        if e.kind == "roll" and e.data["purpose"] == purpose and (actor is None or e.actor == actor)
    ]
