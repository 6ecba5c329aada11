"""The balance simulator (``engine/simulate.py``): generic over rulesets, deterministic by
seed, counting outcomes and events through the live ruleset code."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import pytest
from pydantic import BaseModel

from engine import rulesets
from engine.dice import TurnLog
from engine.errors import Rejection
from engine.ruleset import RUNNING, Entrant, Outcome, Ruleset, Sealed
from engine.simulate import Result, SetupError, parse_setup, prepare, run, simulate


def pistol_setup(**over: Any) -> dict[str, Any]:
    setup: dict[str, Any] = {
        "ruleset": "pistol",
        "config": {},
        "participants": [
            {"id": "a", "character": {"weapon": "rifle", "perks": []}, "orders": "random"},
            {"id": "b", "character": {"weapon": "pistol", "perks": []}, "orders": "random"},
        ],
    }
    setup.update(over)
    return setup


def stable(result: Result) -> dict[str, Any]:
    out = result.to_json()
    del out["seconds"], out["matches_per_second"]
    return out


def test_pistol_random_orders_counts_add_up() -> None:
    result = run(pistol_setup(), 1500, seed=5)
    assert result.n == 1500
    assert set(result.outcomes) == {"a", "b", "draw", "mutual"}
    assert sum(result.outcomes.values()) == 1500
    ev = result.events
    for key in ("hit:head", "hit:torso", "hit:arm", "hit:leg", "miss", "death"):
        assert ev[key] > 0, key
    assert ev["hit"] == sum(ev[f"hit:{p}"] for p in ("head", "torso", "arm", "leg"))
    assert 1 <= result.turns_mean <= 6 and result.turns_max <= 6
    assert result.outcomes["draw"] == result.reasons["turn_limit"]
    assert ev["outcome"] == 1500  # one outcome event per finished match
    assert result.matches_per_second > 0


def test_same_seed_same_result_and_other_seed_differs() -> None:
    assert stable(run(pistol_setup(), 300, seed=11)) == stable(run(pistol_setup(), 300, seed=11))
    assert stable(run(pistol_setup(), 300, seed=11)) != stable(run(pistol_setup(), 300, seed=12))


def test_fixed_orders_are_played_every_turn() -> None:
    setup = pistol_setup()
    # a always aims far off the silhouette: a can never hit, so never wins.
    setup["participants"][0]["orders"] = {"move": 0, "aim": [5, 5]}
    result = run(setup, 400, seed=1)
    assert result.outcomes["a"] == 0 and result.outcomes["mutual"] == 0
    assert result.outcomes["b"] > 0


def test_turn_cap_ends_undecided_matches_as_draws() -> None:
    result = run(pistol_setup(turns=1), 300, seed=3)
    assert result.turns_max == 1
    assert result.reasons.get("turn_cap", 0) == result.outcomes["draw"] > 0


def test_config_overrides_the_ruleset_defaults() -> None:
    result = run(pistol_setup(config={"turn_limit": 2}), 300, seed=3)
    assert result.turns_max == 2


def test_n_must_be_positive() -> None:
    prepared = prepare(parse_setup(pistol_setup()))
    with pytest.raises(SetupError) as exc:
        simulate(prepared, 0)
    assert exc.value.where == "n"


@pytest.mark.parametrize(
    ("change", "where", "code"),
    [
        ({"ruleset": "chess"}, "ruleset", "unknown_ruleset"),
        ({"config": {"turn_limit": 0}}, "config.turn_limit", "invalid_field"),
        ({"participants": []}, "participants", "invalid_field"),
        ({"turns": 0}, "turns", "invalid_field"),
        ({"extra": 1}, "extra", "invalid_field"),
    ],
)
def test_bad_setup_names_the_field(change: dict[str, Any], where: str, code: str) -> None:
    with pytest.raises(SetupError) as exc:
        prepare(parse_setup(pistol_setup(**change)))
    assert (exc.value.where, exc.value.reason.code) == (where, code)


RIFLE = {"weapon": "rifle"}
P0 = "participants[0]"


@pytest.mark.parametrize(
    ("index", "participant", "where", "code"),
    [
        (0, {"id": "a", "character": {"weapon": "laser"}}, f"{P0}.character", "unknown_weapon"),
        (
            1,
            {"id": "b", "character": {"weapon": "rifle", "perks": ["x"]}},
            "participants[1].character",
            "unknown_perk",
        ),
        (
            0,
            {"id": "a", "character": RIFLE, "orders": {"move": 3, "aim": [0, 0]}},
            f"{P0}.orders",
            "move_out_of_range",
        ),
        (
            0,
            {"id": "a", "character": RIFLE, "orders": {"move": 0, "aim": [0, 6]}},
            f"{P0}.orders",
            "aim_out_of_window",
        ),
        (0, {"id": "a", "character": RIFLE, "orders": "often"}, f"{P0}.orders", "invalid_field"),
        (1, {"id": "a", "character": RIFLE}, "participants[1].id", "invalid_field"),
        (0, {"character": RIFLE}, f"{P0}.id", "invalid_field"),
    ],
)
def test_bad_participant_names_the_field(
    index: int, participant: dict[str, Any], where: str, code: str
) -> None:
    setup = pistol_setup()
    setup["participants"][index] = participant
    with pytest.raises(SetupError) as exc:
        prepare(parse_setup(setup))
    assert (exc.value.where, exc.value.reason.code) == (where, code)


def test_wrong_participant_count() -> None:
    setup = pistol_setup()
    setup["participants"] = setup["participants"][:1]
    with pytest.raises(SetupError) as exc:
        prepare(parse_setup(setup))
    assert exc.value.reason == Rejection("wrong_participant_count", min=2, max=2, got=1)


# --------------------------------------------------------------------------- generic rulesets


class _Config(BaseModel):
    rounds: int = 3


class _Sheet(BaseModel):
    sides: int = 6


@dataclass(frozen=True, slots=True)
class _State:
    turn: int
    scores: tuple[tuple[str, int], ...]
    sides: str
    rounds: int


class RaceRuleset(Ruleset[_Config, _State, int]):
    """A test-only ruleset for three or more racers on sides: setup rolls dice (so it cannot
    be reused between matches), orders are bonuses 0-2, the side with the best total wins."""

    id: ClassVar[str] = "test_race"
    version: ClassVar[str] = "1"
    config_model: ClassVar[type[BaseModel]] = _Config
    character_model: ClassVar[type[BaseModel]] = _Sheet
    min_participants: ClassVar[int] = 2
    max_participants: ClassVar[int] = 4
    count_detail: ClassVar[Mapping[str, str]] = {"step": "size"}

    def setup(self, config: _Config, entrants: Sequence[Entrant], log: TurnLog) -> _State:
        scores = tuple((e.pid, log.die(2, "head_start", e.pid)) for e in entrants)
        sides = ",".join(f"{e.pid}={e.side}" for e in entrants)
        return _State(1, scores, sides, config.rounds)

    def acting(self, state: _State) -> frozenset[str]:
        return frozenset(p for p, _ in state.scores) if state.turn <= state.rounds else frozenset()

    def parse_order(self, state: _State, pid: str, raw: Mapping[str, Any]) -> int:
        return int(raw["bonus"])

    def validate(self, state: _State, pid: str, order: int) -> Rejection | None:
        return None if 0 <= order <= 2 else Rejection("bonus_out_of_range", min=0, max=2, got=order)

    def dump_order(self, order: int) -> dict[str, Any]:
        return {"bonus": order}

    def default_order(self, state: _State, pid: str) -> int:
        return 0

    def random_order(self, state: _State, pid: str, rng: random.Random) -> int:
        return int(rng.random() * 3)

    def resolve(self, state: _State, orders: Mapping[str, Sealed[int]], log: TurnLog) -> _State:
        new = []
        for pid, score in state.scores:
            step = log.die(6, "step", pid) + orders[pid].order
            log.emit("step", pid, size="big" if step >= 6 else "small")
            new.append((pid, score + step))
        return _State(state.turn + 1, tuple(new), state.sides, state.rounds)

    def outcome(self, state: _State) -> Outcome:
        if state.turn <= state.rounds:
            return RUNNING
        side_of = dict(kv.split("=") for kv in state.sides.split(","))
        totals: dict[str, int] = {}
        for pid, score in state.scores:
            totals[side_of[pid]] = totals.get(side_of[pid], 0) + score
        best = max(totals.values())
        top = [s for s, t in totals.items() if t == best]
        if len(top) > 1:
            return Outcome("draw", (), "tie")
        return Outcome("win", tuple(p for p, _ in state.scores if side_of[p] == top[0]), "score")

    def view(self, state: _State, pid: str | None = None) -> dict[str, Any]:
        return {"turn": state.turn}

    def dump_state(self, state: _State) -> dict[str, Any]:
        return {"turn": state.turn}

    def load_state(self, raw: Mapping[str, Any]) -> _State:
        raise NotImplementedError


rulesets.register(RaceRuleset())


def race_setup() -> dict[str, Any]:
    return {
        "ruleset": "test_race",
        "config": {"rounds": 4},
        "participants": [
            {"id": "x", "character": {}, "side": "red", "orders": "random"},
            {"id": "y", "character": {}, "side": "red", "npc": True, "orders": {"bonus": 2}},
            {"id": "z", "character": {"sides": 6}, "side": "blue", "orders": "random"},
        ],
    }


def test_generic_ruleset_with_sides_npcs_and_setup_rolls() -> None:
    result = run(race_setup(), 200, seed=9)
    assert result.ruleset == "test_race"
    assert result.turns_max == 4 and result.turns_mean == 4
    # A side win counts every winner of the side; every match ends one way.
    assert result.outcomes["x"] == result.outcomes["y"]
    assert result.outcomes["x"] + result.outcomes["z"] + result.outcomes["draw"] == 200
    # Setup rolled dice in every match (not reused), and detail keys come from count_detail.
    assert result.events["roll"] == 200 * 3 + 200 * 4 * 3
    assert result.events["step:big"] + result.events["step:small"] == result.events["step"]
    assert stable(run(race_setup(), 200, seed=9)) == stable(result)


def test_generic_fixed_order_validated_by_the_ruleset() -> None:
    setup = race_setup()
    setup["participants"][1]["orders"] = {"bonus": 5}
    with pytest.raises(SetupError) as exc:
        prepare(parse_setup(setup))
    assert exc.value.where == "participants[1].orders"
    assert exc.value.reason == Rejection("bonus_out_of_range", min=0, max=2, got=5)


def test_pistol_keys_are_reported_even_when_zero() -> None:
    setup = pistol_setup()
    for p in setup["participants"]:
        p["orders"] = {"move": 0, "aim": [5, 5]}  # nobody can ever hit
    events = run(setup, 20, seed=1).events
    for key in ("hit:head", "hit:torso", "hit:arm", "hit:leg", "hit", "death", "wound"):
        assert events[key] == 0
    assert events["miss"] == 20 * 6 * 2


def test_generic_malformed_fixed_order_is_a_setup_error() -> None:
    setup = race_setup()
    setup["participants"][1]["orders"] = {"speed": 1}  # the test ruleset's parser: KeyError
    with pytest.raises(SetupError) as exc:
        prepare(parse_setup(setup))
    assert exc.value.where == "participants[1].orders"
    assert exc.value.reason.code == "invalid_field"
    assert "KeyError" in exc.value.reason.params["expected"]
