"""The ``pistol`` text view: the silhouette grid."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.rulesets.pistol.config import PistolConfig


def render_grid(
    config: PistolConfig, marks: Mapping[tuple[int, int], str] | None = None
) -> list[str]:
    """The silhouette grid over the aim window as text rows (top row first), with x labels on
    the last row and y labels on the left: ``H`` head, ``T`` torso, ``A`` arm, ``L`` leg, ``.``
    empty; ``marks`` overrides cells (e.g. ``X`` where a shot landed). For docs and the bot."""
    letter = {"head": "H", "torso": "T", "arm": "A", "leg": "L"}
    cells = {cell: letter[part] for part, cs in config.silhouette.items() for cell in cs}
    cells.update(marks or {})
    xs = range(config.aim_min, config.aim_max + 1)
    rows = []
    for y in range(config.aim_max, config.aim_min - 1, -1):
        rows.append(f"{y:>3} " + " ".join(f"{cells.get((x, y), '.'):>2}" for x in xs))
    rows.append("    " + " ".join(f"{x:>2}" for x in xs))
    return rows
