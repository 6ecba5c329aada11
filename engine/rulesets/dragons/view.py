"""The ``dragons`` text view: the sky chart (D36)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.rulesets.dragons.state import _dump_dragon

if TYPE_CHECKING:
    from engine.rulesets.dragons.state import DragonsState


# --------------------------------------------------------------------------- sky chart (D36)


def sky_chart(state: DragonsState) -> str:
    """A monospace chart of Altitude (rows, high first) against Speed (columns) for every dragon
    still in the battle (D36). Only occupied values are shown, so distances are not to scale;
    the legend gives the exact numbers."""
    shown = [d for d in state.dragons if d.in_battle]
    if not shown:
        return "(no dragons in the battle)"
    letters = {d.pid: chr(ord("A") + i % 26) for i, d in enumerate(state.dragons)}
    speeds = sorted({d.speed for d in shown})
    alts = sorted({d.altitude for d in shown}, reverse=True)
    cells: dict[tuple[int, int], str] = {}
    for d in shown:
        cells[(d.altitude, d.speed)] = cells.get((d.altitude, d.speed), "") + letters[d.pid]
    width = max(3, *(len(c) + 1 for c in cells.values()), *(len(str(s)) + 1 for s in speeds))
    label = max(len(str(a)) for a in alts)
    lines = [f"{'H':>{label}} │" + "".join(f"{'':>{width}}" for _ in speeds)]
    for a in alts:
        row = "".join(f"{cells.get((a, s), '·'):>{width}}" for s in speeds)
        lines.append(f"{a:>{label}} │{row}")
    lines.append(" " * label + " └" + "─" * (width * len(speeds)))
    lines.append(" " * label + "  " + "".join(f"{s:>{width}}" for s in speeds) + "  S")
    for d in shown:
        marks = [f"W{d.wounds}"] if d.wounds else []
        if d.shaken:
            marks.append("shaken")
        if d.falling:
            marks.append("falling")
        if d.tail_of:
            marks.append(f"tail→{letters.get(d.tail_of, '?')}")
        if d.consumed:
            marks.append("dragon")
        extra = f" {' '.join(marks)}" if marks else ""
        lines.append(f"{letters[d.pid]} {d.pid} [{d.side}] S{d.speed} H{d.altitude}{extra}")
    return "\n".join(lines)


def view(state: DragonsState, pid: str | None = None) -> dict[str, Any]:
    return {
        "turn": state.turn,
        "dragons": [
            {
                **_dump_dragon(d),
                "top_speed": state.stats[d.pid].spec.top_speed,
                "parry": state.stats[d.pid].parry,
                "weapons": [w.name for w in state.stats[d.pid].weapons],
            }
            for d in state.dragons
        ],
        "chart": sky_chart(state),
    }
