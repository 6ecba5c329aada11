"""The ``dragons`` state: the dragons' positions, wounds and tails (D5-D6, D25-D26)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engine.errors import Rejection
from engine.rulesets.dragons.config import IN, DragonsConfig
from engine.rulesets.dragons.sheet import CharacterSpec, build_stats

if TYPE_CHECKING:
    from collections.abc import Mapping

    from engine.rulesets.dragons.sheet import Stats


# --------------------------------------------------------------------------- state


@dataclass(frozen=True, slots=True)
class Dragon:
    """A participant's dynamic state. ``index`` is the GM's listing order (D8 among NPCs);
    ``tail_of`` names the victim this dragon is pursuing (D25-D26); ``status`` is ``in`` or
    how it left (``left``, ``out``, ``dead``, ``fell``)."""

    pid: str
    side: str
    name: str
    npc: bool
    index: int
    wild_card: bool
    speed: int
    altitude: int
    wounds: int = 0
    shaken: bool = False
    falling: bool = False
    fall_turns: int = 0
    status: str = IN
    tail_of: str | None = None
    broken: tuple[str, ...] = ()
    consumed: bool = False

    @property
    def in_battle(self) -> bool:
        return self.status == IN

    @property
    def team(self) -> str:
        """The side that counts for friend/foe and victory; a consumed dragon is its own
        side, hostile to all (D34)."""
        return f"dragon:{self.pid}" if self.consumed else self.side


@dataclass(frozen=True, slots=True)
class DragonsState:
    config: DragonsConfig
    stats: Mapping[str, Stats]
    dragons: tuple[Dragon, ...]
    turn: int = 1
    # D31 DEFAULT (``all_falling_floor``): while every dragon in the battle is falling, the
    # Altitude D31 measures from (where the last steady dragon was); None while one is steady.
    floor: int | None = None

    def dragon(self, pid: str) -> Dragon:
        for d in self.dragons:
            if d.pid == pid:
                return d
        raise Rejection("no_such_participant", pid=pid)


def _dump_dragon(d: Dragon) -> dict[str, Any]:
    return {
        "pid": d.pid,
        "side": d.side,
        "name": d.name,
        "npc": d.npc,
        "index": d.index,
        "wild_card": d.wild_card,
        "speed": d.speed,
        "altitude": d.altitude,
        "wounds": d.wounds,
        "shaken": d.shaken,
        "falling": d.falling,
        "fall_turns": d.fall_turns,
        "status": d.status,
        "tail_of": d.tail_of,
        "broken": list(d.broken),
        "consumed": d.consumed,
    }


def dump_state(state: DragonsState) -> dict[str, Any]:
    return {
        "turn": state.turn,
        "config": state.config.model_dump(mode="json"),
        "characters": {pid: s.spec.model_dump(mode="json") for pid, s in state.stats.items()},
        "dragons": [_dump_dragon(d) for d in state.dragons],
        "floor": state.floor,
    }


def load_state(raw: Mapping[str, Any]) -> DragonsState:
    config = DragonsConfig.model_validate(raw["config"])
    stats = {
        pid: build_stats(CharacterSpec.model_validate(c)) for pid, c in raw["characters"].items()
    }
    dragons = tuple(Dragon(**{**d, "broken": tuple(d["broken"])}) for d in raw["dragons"])
    floor = raw.get("floor")  # absent from states saved before D31's DEFAULT
    return DragonsState(config, stats, dragons, int(raw["turn"]), floor)
