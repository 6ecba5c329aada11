"""The state of a ``plans`` duel: immutable, JSON round-trippable."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from engine.rulesets.plans.config import ATTRIBUTES, GROUP_INDEX, GROUPS, PlansConfig
from engine.rulesets.plans.sheet import Sheet, Skill


class Fighter(NamedTuple):
    """One duelist. ``reserves`` are the temporary reserve values per group (C5); ``bled`` is
    set once damage stuck to them (C6 first blood)."""

    pid: str
    name: str
    side: str
    sheet: Sheet
    reserves: tuple[int, ...]
    wounds: int = 0
    bled: bool = False

    def reserves_json(self) -> dict[str, int]:
        r = self.reserves
        return {"physical": r[0], "magical": r[1], "mental": r[2]}


class PlansState(NamedTuple):
    """``turn`` is the turn about to be played; ``attacker`` its attacker (C4, roles swap).

    Named tuples (here and :class:`Fighter`): immutable, and cheap to build once per turn."""

    config: PlansConfig
    fighters: tuple[Fighter, ...]
    turn: int = 1
    attacker: str = ""
    initiative: tuple[tuple[str, int], ...] = ()

    def seat(self, pid: str) -> int:
        for i, f in enumerate(self.fighters):
            if f.pid == pid:
                return i
        raise KeyError(pid)

    @property
    def defender(self) -> str:
        return next(f.pid for f in self.fighters if f.pid != self.attacker)


def sheet_from_json(raw: Mapping[str, Any]) -> Sheet:
    """Rebuild a stored (already validated) sheet."""
    attrs = tuple(int(raw["attributes"][a]) for a in ATTRIBUTES)
    skills = tuple(
        Skill(sid, int(s["level"]), tuple(GROUP_INDEX[g] for g in s["groups"]))
        for sid, s in raw["skills"].items()
    )
    weapon = raw.get("weapon") or {}
    return Sheet(
        str(raw.get("name", "")),
        attrs,
        skills,
        str(weapon.get("name", "")),
        int(weapon.get("lethality", 0)),
    )


def dump_state(state: PlansState) -> dict[str, Any]:
    return {
        "turn": state.turn,
        "attacker": state.attacker,
        "initiative": [[pid, total] for pid, total in state.initiative],
        "config": state.config.model_dump(mode="json"),
        "fighters": [
            {
                "pid": f.pid,
                "name": f.name,
                "side": f.side,
                "sheet": f.sheet.to_json(),
                "reserves": dict(zip(GROUPS, f.reserves, strict=True)),
                "wounds": f.wounds,
                "bled": f.bled,
            }
            for f in state.fighters
        ],
    }


def load_state(raw: Mapping[str, Any]) -> PlansState:
    fighters = tuple(
        Fighter(
            pid=str(f["pid"]),
            name=str(f["name"]),
            side=str(f["side"]),
            sheet=sheet_from_json(f["sheet"]),
            reserves=tuple(int(f["reserves"][g]) for g in GROUPS),
            wounds=int(f["wounds"]),
            bled=bool(f["bled"]),
        )
        for f in raw["fighters"]
    )
    return PlansState(
        config=PlansConfig.model_validate(raw["config"]),
        fighters=fighters,
        turn=int(raw["turn"]),
        attacker=str(raw["attacker"]),
        initiative=tuple((str(p), int(t)) for p, t in raw["initiative"]),
    )
