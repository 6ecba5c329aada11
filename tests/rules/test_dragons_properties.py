"""Property tests for ``dragons`` (hypothesis) and one whole 2v2 match through the use cases."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import match as lifecycle
from engine import usecases
from engine.dice import RandomDice, TurnLog
from engine.events import Event
from engine.match import Phase
from engine.ruleset import Entrant, Sealed
from engine.rulesets.dragons import RULESET, DragonsState, parse_typed, sky_chart

R = RULESET
PRESETS = R.presets(R.config({}))

battles = st.fixed_dictionaries(
    {
        "seed": st.integers(0, 2**32),
        "kinds": st.lists(st.sampled_from(sorted(PRESETS)), min_size=2, max_size=6),
        "sides": st.integers(2, 3),
        "altitudes": st.lists(st.integers(0, 4), min_size=6, max_size=6),
        "config": st.sampled_from(
            [{}, {"edition": "SWD2011"}, {"melee_requires_range_5": True, "terrain": "ground"}]
        ),
    }
)


def setup(spec: dict[str, Any]) -> DragonsState:
    cfg = R.config(spec["config"])
    entrants = [
        Entrant(
            f"d{i}",
            f"s{i % spec['sides']}",
            {**PRESETS[kind], "altitude": spec["altitudes"][i]},
            npc=i % 2 == 1,
        )
        for i, kind in enumerate(spec["kinds"])
    ]
    return R.setup(cfg, entrants, TurnLog(RandomDice(0)))


def play(spec: dict[str, Any], turns: int = 12) -> tuple[DragonsState, list[Event]]:
    state = setup(spec)
    rng = random.Random(spec["seed"])
    dice = RandomDice(spec["seed"])
    events: list[Event] = []
    for _ in range(turns):
        if R.outcome(state).finished:
            break
        orders = {}
        for seq, pid in enumerate(sorted(R.acting(state))):
            order = R.random_order(state, pid, rng)
            assert R.validate(state, pid, order) is None, (pid, order)
            # The JSON form round-trips through parsing (what the bot stores and reveals).
            dumped = R.dump_order(order)
            assert R.parse_order(state, pid, json.loads(json.dumps(dumped))) == order
            orders[pid] = Sealed(order, seq=seq)
        log = TurnLog(dice)
        state = R.resolve(state, orders, log)
        events += log.events
    return state, events


@settings(max_examples=40, deadline=None)
@given(battles)
def test_random_legal_orders_for_2_to_6_dragons_resolve(spec: dict[str, Any]) -> None:
    state, events = play(spec)
    assert state.turn >= 2 or R.outcome(state).finished
    assert all(e.kind for e in events)
    sky_chart(state)


@settings(max_examples=15, deadline=None)
@given(battles)
def test_same_seed_same_result(spec: dict[str, Any]) -> None:
    first = play(spec)
    second = play(spec)
    assert first[0] == second[0]
    assert [e.to_json() for e in first[1]] == [e.to_json() for e in second[1]]


@settings(max_examples=25, deadline=None)
@given(battles)
def test_state_serialization_round_trips(spec: dict[str, Any]) -> None:
    state, _ = play(spec, turns=6)
    dumped = json.loads(json.dumps(R.dump_state(state)))
    assert R.load_state(dumped) == state
    assert R.dump_state(R.load_state(dumped)) == dumped


@settings(max_examples=25, deadline=None)
@given(battles)
def test_view_has_no_orders(spec: dict[str, Any]) -> None:
    state, _ = play(spec, turns=4)
    text = json.dumps(R.view(state))
    assert '"actions"' not in text and '"order' not in text
    assert R.view(state, "d0") == R.view(state)


falling = st.lists(  # (Speed, Altitude, turns already falling, Wild Card)
    st.tuples(st.integers(0, 12), st.integers(-20, 30), st.integers(0, 8), st.booleans()),
    min_size=2,
    max_size=4,
)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32), falling, st.one_of(st.none(), st.integers(-20, 30)))
def test_D31_with_every_dragon_falling_the_falls_end(
    seed: int, dragons: list[tuple[int, int, int, bool]], floor: int | None
) -> None:
    # DEFAULT all_falling_floor: the floor D31 measures from stays put while every dragon
    # falls, and falls lose 1 Altitude a turn or more (D30), so within (Altitude - floor + 10)
    # turns each faller has regained control (D32) or left; the battle never stalls. (With
    # no floor remembered, the highest faller stands in: at most 3 below the highest start.)
    entrants = [Entrant(f"d{i}", f"s{i % 2}", PRESETS["young"]) for i in range(len(dragons))]
    state = R.setup(R.config({}), entrants, TurnLog(RandomDice(0)))
    lives = tuple(
        replace(d, speed=s, altitude=a, falling=True, fall_turns=t, wild_card=w)
        for d, (s, a, t, w) in zip(state.dragons, dragons, strict=True)
    )
    state = replace(state, dragons=lives, floor=floor)
    top = max(a for _, a, _, _ in dragons)
    lowest_floor = floor if floor is not None else min(a for _, a, _, _ in dragons) - 3
    dice = RandomDice(seed)
    for _ in range(max(top - lowest_floor + 10, 1)):
        if R.outcome(state).finished or any(d.in_battle and not d.falling for d in state.dragons):
            return
        orders = {p: Sealed(R.default_order(state, p), seq=i) for i, p in
                  enumerate(sorted(R.acting(state)))}  # fmt: skip
        state = R.resolve(state, orders, TurnLog(dice))
    assert R.outcome(state).finished or any(d.in_battle and not d.falling for d in state.dragons)


def test_whole_2v2_match_through_the_use_cases(deps: usecases.Deps) -> None:
    gm = 100
    m = usecases.create_match(deps, 1, gm, "dragons", config={"turn_limit": 40})
    usecases.join(deps, m.id, 1, "Ann")  # p1, side "p1"
    usecases.join(deps, m.id, 2, "Bob")  # p2, side "p2"
    # Each player gets a GM wingman on their side: a 2v2.
    usecases.add_npc(deps, m.id, gm, "Raider", "p1", PRESETS["raider"])
    usecases.add_npc(deps, m.id, gm, "Brute", "p2", {**PRESETS["war"], "wild_card": False})
    usecases.set_character(deps, m.id, 1, "p1", PRESETS["young"])
    usecases.set_character(deps, m.id, 2, "p2", {**PRESETS["war"], "altitude": 12})
    m, _ = usecases.start(deps, m.id, gm)
    owner = {"p1": 1, "p2": 2, "n1": gm, "n2": gm}
    rng = random.Random(7)
    records = 0
    for _ in range(60):
        match = deps.repo.load(m.id).match
        if match.phase is Phase.FINISHED:
            break
        state = R.load_state(match.state or {})
        for pid in lifecycle.missing(match):
            if records == 0 and pid == "p1":
                raw = parse_typed("/order level +1")  # the typed syntax, as a player would
            else:
                raw = R.dump_order(R.random_order(state, pid, rng))
            result = usecases.seal_order(deps, m.id, owner[pid], pid, raw)
            if result.record is not None:
                records += 1
                kinds = [e.kind for e in result.record.events]
                assert kinds[0] == "initiative" and kinds[-1] == "status"
    final = deps.repo.load(m.id).match
    assert final.phase is Phase.FINISHED
    assert final.outcome is not None and final.outcome["status"] in ("win", "draw")
    history = deps.repo.history(m.id)
    assert len([r for r in history if r.turn >= 1]) == records
    assert lifecycle.public_view(final)["state"]["chart"]
