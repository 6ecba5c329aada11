"""Random and default orders of the ``pistol`` ruleset (the simulator's hot path)."""

from __future__ import annotations

from math import floor
from typing import TYPE_CHECKING

from engine.rulesets.pistol.orders import PistolOrder

if TYPE_CHECKING:
    import random

    from engine.rulesets.pistol.state import PistolState


def default_order(state: PistolState, pid: str) -> PistolOrder:
    d = state.rules.config.default_order
    return PistolOrder(d.move, d.aim[0], d.aim[1])


def random_order(state: PistolState, pid: str, rng: random.Random) -> PistolOrder:
    """Uniform over legal (move, A, B); never a P13 pick."""
    rules = state[0]  # state.rules, by index (see _RESULT)
    return rules.legal[floor(rng.random() * rules.legal_count)]
