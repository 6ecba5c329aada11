"""Sides in the lobby (``set_side``) and the ``Ruleset.controller`` hook that hands a seat's
orders to the GM (D34 takeover), through the use cases and the memory store."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine import match as lifecycle
from engine import usecases as uc
from engine.errors import Rejection
from engine.match import Match
from engine.rulesets.dragons import RULESET as DRAGONS
from engine.rulesets.dragons import presets

GM, ANN, BOB = 100, 1, 2


def _dragons_lobby(deps: uc.Deps, config: dict[str, object] | None = None) -> str:
    m = uc.create_match(deps, chat_id=-7, gm_user_id=GM, ruleset_id="dragons", config=config)
    uc.join(deps, m.id, ANN, "Ann")
    uc.join(deps, m.id, BOB, "Bob")
    cfg = DRAGONS.config(config or {})
    uc.set_character(deps, m.id, ANN, "p1", presets(cfg)["young"])
    uc.set_character(deps, m.id, BOB, "p2", presets(cfg)["war"])
    return m.id


def test_join_puts_each_player_on_their_own_side_by_default(deps: uc.Deps) -> None:
    mid = _dragons_lobby(deps)
    m = deps.repo.load(mid).match
    assert [s.side for s in m.seats] == ["p1", "p2"]


def test_player_sets_own_side_and_gm_sets_anyones(deps: uc.Deps) -> None:
    mid = _dragons_lobby(deps)
    uc.set_side(deps, mid, ANN, "p1", "A")
    uc.set_side(deps, mid, GM, "p2", "A")
    uc.add_npc(deps, mid, GM, "Raider", "B", presets(DRAGONS.config())["raider"])
    uc.set_side(deps, mid, GM, "n1", "C")
    m = deps.repo.load(mid).match
    assert [s.side for s in m.seats] == ["A", "A", "C"]


def test_player_cannot_move_another_seat_or_an_npc(deps: uc.Deps) -> None:
    mid = _dragons_lobby(deps)
    uc.add_npc(deps, mid, GM, "Raider", "B", presets(DRAGONS.config())["raider"])
    for pid in ("p2", "n1"):
        with pytest.raises(Rejection) as exc:
            uc.set_side(deps, mid, ANN, pid, "A")
        assert exc.value.code == "not_your_seat"


@pytest.mark.parametrize("side", ["", "   ", "x" * 21, "a:b"])
def test_bad_side_is_refused_naming_the_field(deps: uc.Deps, side: str) -> None:
    mid = _dragons_lobby(deps)
    with pytest.raises(Rejection) as exc:
        uc.set_side(deps, mid, ANN, "p1", side)
    assert exc.value.code == "invalid_field" and exc.value.params["field"] == "side"
    assert deps.repo.load(mid).match.seats[0].side == "p1"


def test_side_is_fixed_once_the_match_runs(deps: uc.Deps) -> None:
    mid = _dragons_lobby(deps)
    uc.start(deps, mid, GM)
    with pytest.raises(Rejection) as exc:
        uc.set_side(deps, mid, GM, "p1", "A")
    assert exc.value.code == "not_lobby"


def _consume(m: Match, pid: str) -> Match:
    state = DRAGONS.load_state(m.state or {})
    dragons = tuple(replace(d, consumed=True) if d.pid == pid else d for d in state.dragons)
    return replace(m, state=DRAGONS.dump_state(replace(state, dragons=dragons)))


def test_controller_defaults_to_the_player() -> None:
    from engine.ruleset import Ruleset

    assert Ruleset.controller is not type(DRAGONS).controller


def test_D34_takeover_hands_the_seat_to_the_gm(deps: uc.Deps) -> None:
    mid = _dragons_lobby(deps, {"consumed_attacks_nearest": False})
    uc.start(deps, mid, GM)
    m = deps.repo.load(mid).match
    assert [s.pid for s in m.controlled_by(ANN)] == ["p1"]
    assert m.controlled_by(GM) == ()
    taken = _consume(m, "p1")
    assert lifecycle.gm_controlled(taken) == {"p1"}
    assert taken.controlled_by(ANN) == ()
    assert [s.pid for s in taken.controlled_by(GM)] == ["p1"]
    # The player's seal is refused; the GM's goes through (GM-run: consumed_attacks_nearest off).
    assert "p1" in lifecycle.acting(taken)
    with pytest.raises(Rejection) as exc:
        lifecycle.seal(taken, ANN, "p1", {"move": "level"}, 0.0, "s")
    assert exc.value.code == "not_your_seat"
    sealed, order = lifecycle.seal(taken, GM, "p1", {"move": "level"}, 0.0, "s")
    assert sealed.sealed == ("p1",) and order.by_user == GM


def test_D34_default_consumed_dragon_gives_its_own_orders(deps: uc.Deps) -> None:
    mid = _dragons_lobby(deps)
    uc.start(deps, mid, GM)
    taken = _consume(deps.repo.load(mid).match, "p1")
    assert "p1" not in lifecycle.acting(taken)  # nobody seals: it attacks the nearest


def test_rulesets_without_the_hook_never_load_state(deps: uc.Deps) -> None:
    m = uc.create_match(deps, chat_id=-7, gm_user_id=GM, ruleset_id="coin")
    assert lifecycle.gm_controlled(replace(m, state={"garbage": True})) == frozenset()


def test_gm_removes_an_npc_and_a_new_one_gets_a_fresh_id(deps: uc.Deps) -> None:
    mid = _dragons_lobby(deps)
    raider = presets(DRAGONS.config())["raider"]
    uc.add_npc(deps, mid, GM, "One", "B", raider)
    uc.add_npc(deps, mid, GM, "Two", "B", raider)
    uc.remove_npc(deps, mid, GM, "n1")
    uc.add_npc(deps, mid, GM, "Three", "B", raider)
    m = deps.repo.load(mid).match
    assert [(s.pid, s.name) for s in m.seats] == [
        ("p1", "Ann"),
        ("p2", "Bob"),
        ("n2", "Two"),
        ("n3", "Three"),
    ]


@pytest.mark.parametrize(
    ("who", "pid", "code"),
    [(ANN, "n1", "gm_only"), (GM, "p1", "not_an_npc"), (GM, "n9", "no_such_participant")],
)
def test_removing_an_npc_is_refused_with_a_reason_and_changes_nothing(
    deps: uc.Deps, who: int, pid: str, code: str
) -> None:
    mid = _dragons_lobby(deps)
    uc.add_npc(deps, mid, GM, "Raider", "B", presets(DRAGONS.config())["raider"])
    before = deps.repo.load(mid).match
    with pytest.raises(Rejection) as exc:
        uc.remove_npc(deps, mid, who, pid)
    assert exc.value.code == code
    assert deps.repo.load(mid).match == before


def test_an_npc_cannot_be_removed_once_the_battle_started(deps: uc.Deps) -> None:
    mid = _dragons_lobby(deps)
    uc.add_npc(deps, mid, GM, "Raider", "B", presets(DRAGONS.config())["raider"])
    uc.start(deps, mid, GM)
    with pytest.raises(Rejection):
        uc.remove_npc(deps, mid, GM, "n1")
    assert [s.pid for s in deps.repo.load(mid).match.seats] == ["p1", "p2", "n1"]


def test_a_player_joining_after_another_left_gets_an_unused_id(deps: uc.Deps) -> None:
    m = uc.create_match(deps, chat_id=-7, gm_user_id=GM, ruleset_id="dragons")
    uc.join(deps, m.id, ANN, "Ann")
    uc.join(deps, m.id, BOB, "Bob")
    uc.leave(deps, m.id, ANN)
    uc.join(deps, m.id, 3, "Cy")
    seats = deps.repo.load(m.id).match.seats
    assert [(s.pid, s.name) for s in seats] == [("p2", "Bob"), ("p3", "Cy")]
