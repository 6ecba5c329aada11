"""Property tests of the ``plans`` ruleset (hypothesis), a whole match through the use cases,
and the hot-path roll helper against the core's ``TurnLog.pool``."""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import usecases as uc
from engine.dice import RandomDice, TurnLog
from engine.dossier import build_dossier
from engine.match import Phase
from engine.ruleset import Entrant, Sealed
from engine.rulesets.plans import PlansState, format_typed, parse_typed
from engine.rulesets.plans.sheet import PRESETS
from engine.verify import verify
from tests.fairness.posting import post
from tests.rules.test_plans_helpers import R

CONFIGS = st.fixed_dictionaries(
    {},
    optional={
        "end_condition": st.sampled_from(["incapacitation", "first_blood"]),
        "wound_limit": st.integers(1, 6),
        "toughness_pool": st.sampled_from(["temporary", "permanent"]),
        "soak_choice": st.sampled_from(["plan", "auto", "never"]),
        "tie_action_effects": st.booleans(),
        "guess_bonuses_stack": st.booleans(),
        "skill_guess_matches": st.sampled_from(["primary", "either"]),
        "lethality_mode": st.sampled_from(["dice", "flat"]),
        "strong_reroll_target": st.sampled_from(["lowest_failed", "first_failed"]),
        "restore_fallback": st.sampled_from(["largest_missing", "none"]),
        "modifier_order": st.permutations(["cunning", "guess", "defensive"]),
        "turn_cap": st.integers(1, 25),
    },
)
PRESET = st.sampled_from(sorted(PRESETS))


def duel(
    config: dict[str, Any], a: str, b: str, seed: int, text: str = ""
) -> tuple[PlansState, list[list[dict[str, Any]]], list[PlansState]]:
    """A whole duel with random legal plans; returns the end state, each turn's events as JSON
    and every state along the way."""
    rng = random.Random(seed)
    dice = RandomDice(seed)
    state = R.setup(
        R.config(config),
        [Entrant("p1", "p1", PRESETS[a]), Entrant("p2", "p2", PRESETS[b])],
        TurnLog(dice),
    )
    turns: list[list[dict[str, Any]]] = []
    states = [state]
    while not R.outcome(state).finished:
        orders = {}
        for pid in ("p1", "p2"):
            order = R.random_order(state, pid, rng)
            if text:
                order = order._replace(text=text, auto=False)
            assert R.validate(state, pid, order) is None
            orders[pid] = Sealed(order)
        log = TurnLog(dice)
        state = R.resolve(state, orders, log)
        turns.append([e.to_json() for e in log.events])
        states.append(state)
        assert len(turns) <= 25
    return state, turns, states


@settings(max_examples=60, deadline=None)
@given(CONFIGS, PRESET, PRESET, st.integers(0, 2**32))
def test_any_legal_plans_resolve_and_keep_the_invariants(
    config: dict[str, Any], a: str, b: str, seed: int
) -> None:
    end, turns, states = duel(config, a, b, seed)
    cfg = R.config(config)
    assert len(turns) <= cfg.turn_cap
    for state in states:
        for f in state.fighters:
            permanent = (f.sheet.attrs[2], f.sheet.attrs[5], f.sheet.attrs[8])
            assert all(0 <= r <= p for r, p in zip(f.reserves, permanent, strict=True))  # C5
            assert f.wounds >= 0
    assert turns[-1][-1]["kind"] == "end"
    assert R.outcome(end).finished and R.acting(end) == frozenset()


@settings(max_examples=25, deadline=None)
@given(CONFIGS, PRESET, PRESET, st.integers(0, 2**32))
def test_same_seed_same_duel(config: dict[str, Any], a: str, b: str, seed: int) -> None:
    first = duel(config, a, b, seed)
    second = duel(config, a, b, seed)
    assert first[0] == second[0] and first[1] == second[1]


@settings(max_examples=25, deadline=None)
@given(CONFIGS, PRESET, PRESET, st.integers(0, 2**32))
def test_state_serialization_round_trips(config: dict[str, Any], a: str, b: str, seed: int) -> None:
    _, _, states = duel(config, a, b, seed)
    for state in states:
        doc = json.loads(json.dumps(R.dump_state(state)))
        assert R.load_state(doc) == state


@settings(max_examples=100, deadline=None)
@given(
    PRESET, PRESET, st.integers(0, 2**32), st.integers(0, 3), st.integers(0, 3), st.integers(0, 3)
)
def test_order_serialization_round_trips(
    a: str, b: str, seed: int, r0: int, r1: int, r2: int
) -> None:
    state = R.setup(
        R.config(),
        [Entrant("p1", "p1", PRESETS[a]), Entrant("p2", "p2", PRESETS[b])],
        TurnLog(RandomDice(seed)),
    )
    f = state.fighters[0]
    reserves = tuple(min(r, p) for r, p in zip((r0, r1, r2), f.reserves, strict=True))
    state = state._replace(fighters=(f._replace(reserves=reserves), state.fighters[1]))
    order = R.random_order(state, "p1", random.Random(seed))
    assert R.validate(state, "p1", order) is None
    dumped = json.loads(json.dumps(R.dump_order(order)))
    assert R.parse_order(state, "p1", dumped) == order
    typed = order._replace(text="a plan, described", auto=False)
    assert R.parse_order(state, "p1", parse_typed(format_typed(R.dump_order(typed)))) == typed


@settings(max_examples=25, deadline=None)
@given(CONFIGS, PRESET, PRESET, st.integers(0, 2**32))
def test_view_never_contains_an_order(config: dict[str, Any], a: str, b: str, seed: int) -> None:
    marker = "SECRET-PLAN-TEXT-7f3a"
    _, _, states = duel(config, a, b, seed, text=marker)
    for state in states:
        for pid in (None, "p1", "p2"):
            view = json.dumps(R.view(state, pid))
            assert marker not in view
            assert '"guess' not in view and '"plan' not in view and '"soak"' not in view


def test_default_and_random_orders_are_always_legal() -> None:
    rng = random.Random(5)
    for seed in range(30):
        _, _, states = duel({}, "fencer", "spellblade", seed)
        for state in states[:-1]:
            for pid in ("p1", "p2"):
                assert R.validate(state, pid, R.default_order(state, pid)) is None
                assert R.validate(state, pid, R.random_order(state, pid, rng)) is None


# --------------------------------------------------------------------------- use cases

GM, ANN, BOB = 100, 1, 2


def test_a_whole_plans_match_through_the_use_cases(deps: uc.Deps) -> None:
    match = uc.create_match(deps, chat_id=-700, gm_user_id=GM, ruleset_id="plans")
    post(deps, match.id)
    uc.join(deps, match.id, ANN, "Ann")
    uc.join(deps, match.id, BOB, "Bob")
    uc.set_character(deps, match.id, ANN, "p1", PRESETS["fencer"])
    uc.set_character(deps, match.id, BOB, "p2", PRESETS["pyromancer"])
    started, setup_events = uc.start(deps, match.id, GM)
    post(deps, match.id)
    assert started.phase is Phase.RUNNING
    assert any(e.kind == "initiative" for e in setup_events)
    rng = random.Random(3)
    users = {"p1": ANN, "p2": BOB}
    for _ in range(R.config().turn_cap):
        current = deps.repo.load(match.id).match
        if current.phase is Phase.FINISHED:
            break
        state = R.load_state(current.state or {})
        result = None
        for pid, user in users.items():
            order = R.random_order(state, pid, rng)._replace(
                text="steel and fire, described", auto=False
            )
            result = uc.seal_order(deps, match.id, user, pid, R.dump_order(order))
            post(deps, match.id)
        assert result is not None and result.record is not None
        kinds = [e.kind for e in result.record.events]
        assert kinds[0] == "reveal" and "contest" in kinds and kinds.count("status") == 2
    final = deps.repo.load(match.id).match
    assert final.phase is Phase.FINISHED and final.outcome is not None
    history = deps.repo.history(match.id)
    assert history[-1].turn == final.turn - 1
    assert R.outcome(R.load_state(final.state or {})).status == final.outcome["status"]
    # The dossier replays every turn (seeds, orders, dice, events, states) and verifies.
    dossier = build_dossier(final, history, generated_at=deps.clock())
    assert verify(json.loads(json.dumps(dossier))) == []
