"""Dragons: four-dragon battles (two per side, random orders, to the end) per second through
the simulator and the live ruleset code, on one core. Target: >= 500 battles/s. Prints
figures; asserts nothing.

CPU time is the headline figure (the machine is shared, so wall time swings with other
work); a machine-speed reference is printed to read the figures against."""

from __future__ import annotations

import time
from typing import Any

from engine.rulesets.dragons import RULESET
from engine.simulate import parse_setup, prepare, simulate
from tests.bench import machine

TARGET = 500
BATTLES = 2000
TURN_CAP = 200  # the simulator's cap; random battles end long before it (D35, D31, D24)


def setup_doc() -> dict[str, Any]:
    presets = RULESET.presets(RULESET.config({}))
    return {
        "ruleset": "dragons",
        "turns": TURN_CAP,
        "participants": [
            {"id": "p1", "side": "red", "character": presets["young"]},
            {"id": "p2", "side": "red", "character": presets["war"]},
            {"id": "n1", "side": "blue", "character": presets["young"], "npc": True},
            {"id": "n2", "side": "blue", "character": presets["war"], "npc": True},
        ],
    }


def main() -> None:
    prepared = prepare(parse_setup(setup_doc()))
    simulate(prepared, 50, seed="warm-up")
    wall, cpu = time.perf_counter(), time.process_time()
    result = simulate(prepared, BATTLES, seed=1)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    rate = BATTLES / cpu
    turns = result.turns_total / BATTLES
    flag = "ok" if rate >= TARGET else "BELOW TARGET"
    print(f"   four-dragon battles/s (CPU):  {rate:8.1f}  (target >= {TARGET}: {flag})")
    print(f"   four-dragon battles/s (wall): {BATTLES / wall:8.1f}")
    cap = f"(max {result.turns_max}, cap {TURN_CAP})"
    print(f"   turns per battle:             {turns:8.1f}  {cap}")
    print(f"   turns/s (CPU):                {result.turns_total / cpu:8.0f}")
    keys = ("hit", "shaken", "wound", "fall", "tail", "takeover", "out")
    counts = "  ".join(f"{k}={result.events.get(k, 0) / BATTLES:.2f}" for k in keys)
    print(f"   per battle: {counts}")
    print(f"   outcomes: {dict(sorted(result.reasons.items()))}")
    print(machine.reference())


if __name__ == "__main__":
    main()
