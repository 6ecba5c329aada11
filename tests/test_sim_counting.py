"""The simulator's counting mode (``CountingLog``) against recording every event as live play
does: same rules code, same dice stream, so the same figures for every seed and setup."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine.dice import CountingLog, RandomDice, TurnLog
from engine.ruleset import Sealed
from engine.rulesets.pistol import RULESET as PISTOL
from engine.simulate import Result, parse_setup, prepare, simulate

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
SETUPS = sorted(p.name for p in EXAMPLES.glob("*.json"))  # simulator setups (turns/ apart)
SEEDS = range(20)


def _figures(result: Result) -> dict[str, Any]:
    """Everything a run reports except its timing."""
    out = result.to_json()
    del out["seconds"], out["matches_per_second"]
    return {**out, "turns_total": result.turns_total, "sides": result.sides}


def test_every_example_is_a_simulator_setup() -> None:
    assert len(SETUPS) >= 7  # the turn inputs live in examples/turns/
    assert (EXAMPLES / "turns" / "pistol-worked-example.json").exists()


@pytest.mark.parametrize("name", SETUPS)
def test_counting_run_equals_recording_run_for_many_seeds(name: str) -> None:
    prepared = prepare(parse_setup(json.loads((EXAMPLES / name).read_text())))
    n = 5 if prepared.rules.id == "dragons" else 40
    for seed in SEEDS:
        counted = simulate(prepared, n, seed, counting=True)
        recorded = simulate(prepared, n, seed, counting=False)
        assert _figures(counted) == _figures(recorded), (name, seed)
        assert counted.events.get("roll", 0) > 0  # the dice were counted, not skipped


def test_counting_log_draws_the_same_faces_and_records_only_markers() -> None:
    state = PISTOL.setup(
        PISTOL.config({}),
        prepare(parse_setup(json.loads((EXAMPLES / "pistol-random.json").read_text()))).entrants,
        TurnLog(RandomDice(0)),
    )
    orders = {
        "a": Sealed(PISTOL.parse_order(state, "a", {"move": 0, "aim": [0, 1]})),
        "b": Sealed(PISTOL.parse_order(state, "b", {"move": 1, "aim": [0, 1]})),
    }
    for seed in range(50):
        full, counted = TurnLog(RandomDice(seed)), CountingLog(RandomDice(seed))
        assert PISTOL.resolve(state, orders, full) == PISTOL.resolve(state, orders, counted)
        assert [e.kind for e in full.events] == [e.kind for e in counted.events]
        # The markers carry only what the simulator counts by (P11: the part of a hit).
        for rec, mark in zip(full.events, counted.events, strict=True):
            assert set(mark.data) <= {"part"}
            assert mark.data.get("part") == (rec.data.get("part") if rec.kind == "hit" else None)
        assert full.source._rand.random() == counted.source._rand.random()  # type: ignore[attr-defined]
