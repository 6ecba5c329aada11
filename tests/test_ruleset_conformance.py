"""One test over every registered ruleset (in the spirit of open_spiel's and pgx's API tests
over all games): what the match lifecycle, the stores, the bot and the simulator rely on,
checked the same way for each. A new ruleset in ``engine/rulesets/_MODULES`` (or a plug-in
registered at run time, as the toy ``coin`` is by ``tests/conftest.py``) is covered with no
change here (``docs/rulesets.md``).

Matches are played with random orders from seeded dice (hypothesis draws the seed and the
number of participants; few examples, so the whole file stays fast). Each ruleset's own
properties (rule by rule) live in ``tests/rules/``.
"""

from __future__ import annotations

import inspect
import json
import random
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import match as lifecycle
from engine import rulesets as registry
from engine import usecases
from engine.dice import RandomDice, TurnLog
from engine.errors import Rejection
from engine.ruleset import Entrant, Ruleset, Sealed

ROOT = Path(__file__).resolve().parents[1]
RULESETS = registry.available()
MAX_TURNS = 60  # a random match that runs longer is cut here (the checks hold at every turn)
EXAMPLES = settings(max_examples=15, deadline=None)


def _keys(value: Any) -> set[str]:
    """Every key of every mapping inside ``value``."""
    if isinstance(value, Mapping):
        return {str(k) for k in value} | {k for v in value.values() for k in _keys(v)}
    if isinstance(value, list | tuple):
        return {k for v in value for k in _keys(v)}
    return set()


def _json(value: Any) -> Any:
    return json.loads(json.dumps(value))


def entrants(rules: Ruleset[Any, Any, Any], n: int) -> list[Entrant]:
    """``n`` participants on two alternating sides, each with a preset (or an empty sheet)."""
    presets = list(rules.presets(rules.config({})).values()) or [{}]
    return [
        Entrant(f"p{i + 1}", "ab"[i % 2], presets[i % len(presets)], name=f"P{i + 1}")
        for i in range(n)
    ]


@dataclass
class Turn:
    state: Any  # before the turn
    orders: dict[str, Any]  # the random orders played
    events: list[dict[str, Any]]


@dataclass
class Played:
    states: list[Any]  # the setup's state, then the state after each turn
    turns: list[Turn]


def play(rules: Ruleset[Any, Any, Any], n: int, seed: int) -> Played:
    """A match of random orders (the simulator's ``"random"``) with dice from ``seed``."""
    dice = RandomDice(seed)
    rng = random.Random(f"orders:{seed}")
    state = rules.setup(rules.config({}), entrants(rules, n), TurnLog(dice))
    played = Played([state], [])
    while not rules.outcome(state).finished and len(played.turns) < MAX_TURNS:
        orders = {pid: rules.random_order(state, pid, rng) for pid in sorted(rules.acting(state))}
        log = TurnLog(dice)
        after = rules.resolve(state, {pid: Sealed(o) for pid, o in orders.items()}, log)
        played.turns.append(Turn(state, orders, [e.to_json() for e in log.events]))
        played.states.append(after)
        state = after
    return played


def rules_doc(rid: str) -> Path:
    """The rules as implemented: ``docs/rules/<id>.md`` for a built-in, ``rules.md`` in its
    package for a plug-in."""
    builtin = ROOT / "docs" / "rules" / f"{rid}.md"
    if builtin.exists():
        return builtin
    return Path(inspect.getfile(type(registry.get(rid)))).parent / "rules.md"


def sizes(rid: str) -> st.SearchStrategy[int]:
    rules = registry.get(rid)
    return st.integers(rules.min_participants, min(rules.max_participants, 4))


SEEDS = st.integers(0, 2**32 - 1)


@pytest.mark.parametrize("rid", RULESETS)
def test_there_are_rulesets_and_each_plays(rid: str) -> None:
    assert {"pistol", "plans", "dragons"} <= set(RULESETS)
    played = play(registry.get(rid), registry.get(rid).min_participants, 1)
    assert played.turns, f"{rid}: a match of random orders played no turn"


@pytest.mark.parametrize("rid", RULESETS)
@EXAMPLES
@given(data=st.data(), seed=SEEDS)
def test_no_view_shows_an_order(rid: str, data: st.DataObject, seed: int) -> None:
    """Secrecy: whoever asks (a participant or everyone), a view names no field of any order
    played in the match, and it is plain JSON."""
    rules = registry.get(rid)
    n = data.draw(sizes(rid))
    played = play(rules, n, seed)
    order_keys = {k for t in played.turns for o in t.orders.values() for k in rules.dump_order(o)}
    assert order_keys
    for state in played.states:
        for viewer in (None, *(e.pid for e in entrants(rules, n))):
            view = rules.view(state, viewer)
            assert _json(view) == view
            assert not _keys(view) & order_keys, f"{rid}: a view shows {_keys(view) & order_keys}"


@pytest.mark.parametrize("rid", RULESETS)
@EXAMPLES
@given(data=st.data(), seed=SEEDS)
def test_states_and_orders_round_trip_through_json(
    rid: str, data: st.DataObject, seed: int
) -> None:
    """What the stores keep: ``load_state(dump_state(s)) == s`` through JSON, and an order's
    dumped form parses back to the same order (what the lifecycle seals and resolves)."""
    rules = registry.get(rid)
    played = play(rules, data.draw(sizes(rid)), seed)
    for state in played.states:
        dumped = _json(rules.dump_state(state))
        assert rules.load_state(dumped) == state
        assert rules.dump_state(rules.load_state(dumped)) == dumped
    for turn in played.turns:
        for pid, order in turn.orders.items():
            assert rules.parse_order(turn.state, pid, _json(rules.dump_order(order))) == order


@pytest.mark.parametrize("rid", RULESETS)
@EXAMPLES
@given(data=st.data(), seed=SEEDS)
def test_same_seed_and_orders_give_the_same_result(
    rid: str, data: st.DataObject, seed: int
) -> None:
    """Determinism (the dossier's verifier replays every turn): the same seed gives the same
    match, and a turn resolved again from its stored state with the same dice and orders gives
    the same events and state."""
    rules = registry.get(rid)
    n = data.draw(sizes(rid))
    first, second = play(rules, n, seed), play(rules, n, seed)
    assert [rules.dump_state(s) for s in first.states] == [
        rules.dump_state(s) for s in second.states
    ]
    assert [t.events for t in first.turns] == [t.events for t in second.turns]
    for k, turn in enumerate(first.turns):
        stored = rules.load_state(_json(rules.dump_state(turn.state)))
        dice = RandomDice(f"replay:{seed}:{k}")
        orders = {pid: Sealed(o) for pid, o in turn.orders.items()}
        log_a, log_b = TurnLog(dice), TurnLog(RandomDice(f"replay:{seed}:{k}"))
        a = rules.resolve(turn.state, orders, log_a)
        b = rules.resolve(stored, orders, log_b)
        assert rules.dump_state(a) == rules.dump_state(b)
        assert [e.to_json() for e in log_a.events] == [e.to_json() for e in log_b.events]


@pytest.mark.parametrize("rid", RULESETS)
@EXAMPLES
@given(data=st.data(), seed=SEEDS)
def test_random_and_default_orders_are_always_legal(
    rid: str, data: st.DataObject, seed: int
) -> None:
    """The simulator's random order and the deadline's default order pass ``validate`` for
    every participant who must act, in every state a match reaches, and a random order's
    dumped form is accepted back by ``check_order`` (what a player or the bot would send)."""
    rules = registry.get(rid)
    rng = random.Random(seed)
    for state in play(rules, data.draw(sizes(rid)), seed).states:
        if rules.outcome(state).finished:
            continue
        for pid in sorted(rules.acting(state)):
            order = rules.random_order(state, pid, rng)
            assert rules.validate(state, pid, order) is None
            assert rules.check_order(state, pid, _json(rules.dump_order(order))) == order
            assert rules.validate(state, pid, rules.default_order(state, pid)) is None


@pytest.mark.parametrize("rid", RULESETS)
def test_no_order_is_accepted_after_the_end(rid: str, deps: usecases.Deps) -> None:
    """A whole match through the use cases (random orders until it ends, as players would
    seal them); then nobody must act and every seal is refused, changing nothing."""
    rules = registry.get(rid)
    gm, users = 10, {f"p{i + 1}": 21 + i for i in range(rules.min_participants)}
    match = usecases.create_match(deps, -100, gm, rid)
    for e in entrants(rules, rules.min_participants):
        usecases.join(deps, match.id, users[e.pid], e.name)
        usecases.set_character(deps, match.id, users[e.pid], e.pid, e.character)
    match, _ = usecases.start(deps, match.id, gm)
    rng = random.Random(7)
    last: dict[str, dict[str, Any]] = {}  # each participant's last order, to send once more
    for _ in range(MAX_TURNS * 4):
        if match.phase is lifecycle.Phase.FINISHED:
            break
        state = rules.load_state(match.state or {})
        pid = sorted(lifecycle.acting(match) - set(usecases.sealed_fingerprints(deps, match.id)))[0]
        last[pid] = raw = rules.dump_order(rules.random_order(state, pid, rng))
        match = usecases.seal_order(deps, match.id, users[pid], pid, raw).match
    assert match.phase is lifecycle.Phase.FINISHED, f"{rid}: no end in {MAX_TURNS * 4} seals"
    assert lifecycle.acting(match) == frozenset()
    for pid, user in users.items():
        with pytest.raises(Rejection):
            usecases.seal_order(deps, match.id, user, pid, last[pid])
    assert deps.repo.load(match.id).match == match
    assert deps.repo.load(match.id).orders == {}


@pytest.mark.parametrize("rid", RULESETS)
def test_every_default_is_configuration_data(rid: str) -> None:
    """Every DEFAULT of the rules is a configuration key: the configuration is complete with
    no input, is plain data (a JSON round trip gives it back, as a GM's options and the
    simulator's ``"config"`` arrive), and the rules doc's configuration table lists exactly
    its keys."""
    rules = registry.get(rid)
    config = rules.config({})
    dumped = _json(config.model_dump(mode="json"))
    assert rules.config(dumped) == config
    doc = rules_doc(rid)
    text = doc.read_text(encoding="utf-8")
    section = re.search(r"^## [^\n]*[Cc]onfiguration[^\n]*\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    assert section, f"{doc} has no configuration section"
    documented = {
        name.split(".")[0]
        for line in section.group(1).splitlines()
        if line.startswith("| `")
        for name in re.findall(r"`([a-z0-9_.]+)`", line.split("|")[1])
    }
    assert documented == set(type(config).model_fields)
