"""The ``plans`` text view: what every participant may see (never a plan)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.rulesets.plans.resolve import fighter_view

if TYPE_CHECKING:
    from engine.rulesets.plans.state import PlansState


def view(state: PlansState, pid: str | None = None) -> dict[str, Any]:
    cfg = state.config
    return {
        "turn": state.turn,
        "turn_cap": cfg.turn_cap,
        "attacker": state.attacker,
        "defender": state.defender,
        "end_condition": cfg.end_condition,
        "wound_limit": cfg.wound_limit,
        "initiative": dict(state.initiative),
        "fighters": [fighter_view(f) for f in state.fighters],
        "you": pid,
    }
