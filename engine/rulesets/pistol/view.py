"""The ``pistol`` text view: the silhouette grid."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Mapping

    from engine.rulesets.pistol.config import PistolConfig
    from engine.rulesets.pistol.state import PistolState


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


def view(state: PistolState, pid: str | None = None) -> dict[str, Any]:
    """Public: the turn counter, each duelist's weapon, zone, perks and condition, and the
    silhouette (orders never live in the state)."""
    cfg = state.rules.config
    return {
        "turn": state.turn,
        "turn_limit": cfg.turn_limit,
        "duelists": [
            {
                "pid": d.pid,
                "weapon": d.weapon,
                "zone": d.zone,
                "speed": d.speed,
                "perks": list(d.perks),
                "shrugs_left": d.shrugs_left,
                "status": d.status,
                "part": d.part,
            }
            for d in state.duelists
        ],
        "silhouette": {p: [list(c) for c in cs] for p, cs in cfg.silhouette.items()},
        "aim_window": [cfg.aim_min, cfg.aim_max],
        "move_max": cfg.move_max,
    }
