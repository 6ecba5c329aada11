"""One ``pistol`` turn: initiative (P14), shots (P9, P5) and hits (P11, P16-P19)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from engine.dice import TurnLog
from engine.events import Event

if TYPE_CHECKING:
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
