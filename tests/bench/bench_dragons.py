"""Dragons: four-dragon battles (two per side, random orders, to the end) per second through
the simulator, on one core. Target: >= 500 battles/s. Prints figures; asserts nothing."""

from __future__ import annotations

import time
from typing import Any

from engine.rulesets.dragons import RULESET
from engine.simulate import parse_setup, prepare, simulate

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
    started = time.perf_counter()
    result = simulate(prepared, BATTLES, seed=1)
    seconds = time.perf_counter() - started
    rate = BATTLES / seconds
    turns = result.turns_total / BATTLES
    flag = "ok" if rate >= TARGET else "BELOW TARGET"
    print(f"   four-dragon battles/s: {rate:8.1f}  (target >= {TARGET}: {flag})")
    print(f"   turns per battle:      {turns:8.1f}  (max {result.turns_max}, cap {TURN_CAP})")
    print(f"   turns/s:               {result.turns_total / seconds:8.0f}")
    keys = ("hit", "shaken", "wound", "fall", "tail", "takeover", "out")
    counts = "  ".join(f"{k}={result.events.get(k, 0) / BATTLES:.2f}" for k in keys)
    print(f"   per battle: {counts}")
    print(f"   outcomes: {dict(sorted(result.reasons.items()))}")


if __name__ == "__main__":
    main()
