"""Exact hit chances of a ``pistol`` aim (P9-P11), for the order page's heat map.

A shot aimed at the corner (A, B) with zone side N lands on C = A + E + (F - 1),
D = B - (H - 1) with F, H independent uniform dN and E = -(target's move) (P9, P10); the cell's
part is the hit location (P11). So for one target move the chance of each part is the number
of zone cells (shifted by E) on that part over N². Over the target's possible moves the page
shows the average with every legal move equally likely (an assumption, said on the page: the
opponent's choice is secret). Fractions, never sampling; pure.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction

from engine.rulesets.pistol.config import PistolConfig

Cell = tuple[int, int]


def part_chances(
    cells: Mapping[Cell, str], zone: int, aim: Cell, target_move: int
) -> dict[str, Fraction]:
    """``{part: P(hit there)}`` of one shot at ``aim`` (top-left corner) with zone ``zone``
    when the target moves ``target_move`` (P9, P10): only parts with a chance above 0."""
    a, b = aim
    shift = -target_move
    counts: dict[str, int] = {}
    for f in range(zone):
        for h in range(zone):
            part = cells.get((a + shift + f, b - h))
            if part is not None:
                counts[part] = counts.get(part, 0) + 1
    total = zone * zone
    return {part: Fraction(n, total) for part, n in counts.items()}


def averaged(
    cells: Mapping[Cell, str], zone: int, aim: Cell, moves: Iterable[int]
) -> dict[str, Fraction]:
    """:func:`part_chances` averaged over ``moves``, each equally likely."""
    moves = tuple(moves)
    out: dict[str, Fraction] = {}
    for m in moves:
        for part, p in part_chances(cells, zone, aim, m).items():
            out[part] = out.get(part, Fraction(0)) + p / len(moves)
    return out


@dataclass(frozen=True, slots=True)
class AimOdds:
    """One aim corner's chances: ``still`` (the target stays) and ``moving`` (averaged over
    every legal move, P6), each ``{part: chance}``, and their totals."""

    aim: Cell
    still: dict[str, Fraction]
    still_hit: Fraction
    moving: dict[str, Fraction]
    moving_hit: Fraction


def heat_map(config: PistolConfig, zone: int) -> list[AimOdds]:
    """Every legal aim corner of the P8 window (top row first) with its exact chances."""
    cells = {cell: part for part, cs in config.silhouette.items() for cell in cs}
    moves = range(-config.move_max, config.move_max + 1)
    window = range(config.aim_min, config.aim_max + 1)
    out: list[AimOdds] = []
    for b in reversed(window):
        for a in window:
            still = part_chances(cells, zone, (a, b), 0)
            moving = averaged(cells, zone, (a, b), moves)
            total = sum(still.values(), Fraction(0))
            out.append(AimOdds((a, b), still, total, moving, sum(moving.values(), Fraction(0))))
    return out
