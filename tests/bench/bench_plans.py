"""Plans: secret-plan duels (fencer vs pyromancer, random legal plans, to the end) per second
through the simulator, on one core. Target: >= 5,000 duels/s. Prints figures; asserts nothing.

Also prints the cost of the parts of a turn (random plan, resolution) so a regression can be
traced, and the CPU time beside the wall time (the machine is shared)."""

from __future__ import annotations

import random
import time
from typing import Any

from engine.dice import RandomDice, TurnLog
from engine.ruleset import Sealed
from engine.rulesets.plans import RULESET
from engine.simulate import parse_setup, prepare, simulate

TARGET = 5000
DUELS = 5000


def setup_doc(a: str = "fencer", b: str = "pyromancer") -> dict[str, Any]:
    presets = RULESET.presets(RULESET.config({}))
    return {
        "ruleset": "plans",
        "participants": [
            {"id": "p1", "character": presets[a]},
            {"id": "p2", "character": presets[b]},
        ],
    }


def _parts(prepared: Any, n: int = 20000) -> tuple[float, float]:
    """Microseconds per random plan and per resolution, on the initial state."""
    state = RULESET.setup(prepared.config, prepared.entrants, TurnLog(RandomDice(0)))
    rng = random.Random(0)
    started = time.process_time()
    for _ in range(n):
        RULESET.random_order(state, "p1", rng)
    per_order = (time.process_time() - started) / n * 1e6
    orders = {pid: Sealed(RULESET.random_order(state, pid, rng)) for pid in ("p1", "p2")}
    dice = RandomDice(1)
    started = time.process_time()
    for _ in range(n):
        RULESET.resolve(state, orders, TurnLog(dice))
    per_turn = (time.process_time() - started) / n * 1e6
    return per_order, per_turn


def main() -> None:
    prepared = prepare(parse_setup(setup_doc()))
    simulate(prepared, 200, seed="warm-up")
    wall, cpu = time.perf_counter(), time.process_time()
    result = simulate(prepared, DUELS, seed=1)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    rate = DUELS / cpu
    flag = "ok" if rate >= TARGET else "BELOW TARGET"
    print(f"   plans duels/s (CPU):  {rate:8.1f}  (target >= {TARGET}: {flag})")
    print(f"   plans duels/s (wall): {DUELS / wall:8.1f}")
    print(f"   turns per duel:       {result.turns_total / DUELS:8.2f}  (max {result.turns_max})")
    print(f"   turns/s (CPU):        {result.turns_total / cpu:8.0f}")
    per_order, per_turn = _parts(prepared)
    print(f"   random plan: {per_order:6.1f} us   resolution: {per_turn:6.1f} us")
    keys = ("damage", "healed", "soaked", "tie", "tie:damage", "group_empty", "no_damage")
    counts = "  ".join(f"{k}={result.events.get(k, 0) / DUELS:.2f}" for k in keys)
    print(f"   per duel: {counts}")
    print(f"   outcomes: {dict(sorted(result.outcomes.items()))}")
    print(f"   reasons:  {dict(sorted(result.reasons.items()))}")


if __name__ == "__main__":
    main()
