"""The match lifecycle and use cases, through the in-memory store and the test ruleset."""

from __future__ import annotations

import json

import pytest

from engine import codec
from engine import usecases as uc
from engine.errors import Rejection
from engine.match import Phase, public_view
from engine.ruleset import Outcome
from tests.support.clock import FakeClock

GM, ANN, BOB, EVE = 100, 1, 2, 3


def lobby(deps: uc.Deps) -> str:
    match = uc.create_match(deps, chat_id=-500, gm_user_id=GM, ruleset_id="coin")
    uc.join(deps, match.id, ANN, "Ann")
    uc.join(deps, match.id, BOB, "Bob")
    uc.set_character(deps, match.id, ANN, "p1", {})
    uc.set_character(deps, match.id, BOB, "p2", {"lucky": True})
    return match.id


def started(deps: uc.Deps) -> str:
    mid = lobby(deps)
    uc.start(deps, mid, GM)
    return mid


def test_lobby_commits_to_the_setup_seed_before_start(deps: uc.Deps) -> None:
    match = uc.create_match(deps, chat_id=-500, gm_user_id=GM, ruleset_id="coin")
    assert match.phase is Phase.LOBBY and match.commitment is not None and match.turn == 0


def test_start_records_setup_as_turn_zero_and_opens_turn_one(deps: uc.Deps) -> None:
    mid = lobby(deps)
    lobby_commitment = deps.repo.load(mid).match.commitment
    match, events = uc.start(deps, mid, GM)
    assert match.phase is Phase.RUNNING and match.turn == 1
    assert [e.data["purpose"] for e in events] == ["initiative", "initiative"]
    (setup,) = deps.repo.history(mid)
    assert setup.turn == 0 and setup.commitment == lobby_commitment
    assert match.commitment is not None and match.commitment != lobby_commitment


def test_only_the_gm_starts(deps: uc.Deps) -> None:
    mid = lobby(deps)
    with pytest.raises(Rejection) as err:
        uc.start(deps, mid, ANN)
    assert err.value.code == "gm_only"
    assert deps.repo.load(mid).match.phase is Phase.LOBBY


def test_start_needs_characters(deps: uc.Deps) -> None:
    match = uc.create_match(deps, chat_id=-500, gm_user_id=GM, ruleset_id="coin")
    uc.join(deps, match.id, ANN, "Ann")
    uc.join(deps, match.id, BOB, "Bob")
    with pytest.raises(Rejection) as err:
        uc.start(deps, match.id, GM)
    assert err.value.code == "characters_missing"


def test_join_twice_and_full_lobby_are_refused(deps: uc.Deps) -> None:
    mid = lobby(deps)
    with pytest.raises(Rejection) as err:
        uc.join(deps, mid, ANN, "Ann")
    assert err.value.code == "already_joined"


def test_turn_resolves_when_everyone_has_sealed(deps: uc.Deps) -> None:
    mid = started(deps)
    first = uc.seal_order(deps, mid, ANN, "p1", {"call": 3})
    assert first.record is None and first.match.sealed == ("p1",)
    second = uc.seal_order(deps, mid, BOB, "p2", {"call": 4})
    assert second.record is not None and second.record.turn == 1
    assert {o.pid: o.order for o in second.record.orders} == {
        "p1": {"call": 3},
        "p2": {"call": 4},
    }
    assert second.match.turn == 2 and second.match.sealed == ()
    assert deps.repo.load(mid).orders == {}


def test_an_order_can_be_replaced_until_the_turn_resolves(deps: uc.Deps) -> None:
    mid = started(deps)
    a = uc.seal_order(deps, mid, ANN, "p1", {"call": 3})
    b = uc.seal_order(deps, mid, ANN, "p1", {"call": 5})
    assert b.replaced and b.order.fingerprint != a.order.fingerprint
    result = uc.seal_order(deps, mid, BOB, "p2", {"call": 4})
    assert result.record is not None
    assert {o.pid: o.order["call"] for o in result.record.orders}["p1"] == 5


def test_withdrawn_order_no_longer_counts(deps: uc.Deps) -> None:
    mid = started(deps)
    uc.seal_order(deps, mid, ANN, "p1", {"call": 3})
    match = uc.withdraw_order(deps, mid, ANN, "p1")
    assert match.sealed == () and deps.repo.load(mid).orders == {}
    assert uc.seal_order(deps, mid, BOB, "p2", {"call": 4}).record is None


def test_nobody_seals_for_someone_else(deps: uc.Deps) -> None:
    mid = started(deps)
    for user in (BOB, EVE, GM):
        with pytest.raises(Rejection) as err:
            uc.seal_order(deps, mid, user, "p1", {"call": 3})
        assert err.value.code == "not_your_seat"
    assert deps.repo.load(mid).orders == {}


def test_illegal_order_is_refused_with_a_reason_and_changes_nothing(deps: uc.Deps) -> None:
    mid = started(deps)
    before = deps.repo.load(mid).match
    with pytest.raises(Rejection) as err:
        uc.seal_order(deps, mid, ANN, "p1", {"call": 9})
    assert err.value == Rejection("call_out_of_range", min=1, max=6, got=9)
    with pytest.raises(Rejection) as err:
        uc.seal_order(deps, mid, ANN, "p1", {"cal": 1})
    assert err.value.code == "invalid_field"
    assert deps.repo.load(mid).match == before


def test_public_view_and_match_document_never_hold_a_sealed_order(deps: uc.Deps) -> None:
    mid = started(deps)
    sealed = uc.seal_order(deps, mid, ANN, "p1", {"call": 6})
    match = deps.repo.load(mid).match
    text = json.dumps(public_view(match)) + json.dumps(codec.match_to_doc(match))
    assert sealed.order.salt not in text
    assert '"call"' not in text
    assert sealed.order.fingerprint not in json.dumps(codec.match_to_doc(match))


def test_own_orders_only(deps: uc.Deps) -> None:
    mid = started(deps)
    uc.seal_order(deps, mid, ANN, "p1", {"call": 6})
    assert [o.pid for o in uc.my_orders(deps, mid, ANN)] == ["p1"]
    assert uc.my_orders(deps, mid, BOB) == []
    assert uc.my_orders(deps, mid, GM) == []


def test_force_resolve_uses_default_orders_and_is_audited(deps: uc.Deps) -> None:
    mid = started(deps)
    uc.seal_order(deps, mid, ANN, "p1", {"call": 2})
    res = uc.force_resolve(deps, mid, GM, turn=1)
    assert res.record.reason == "forced" and res.record.defaulted == ("p2",)
    assert {o.pid: o.order for o in res.record.orders}["p2"] == {"call": 1}
    assert res.match.audit[-1]["action"] == "force_resolve"
    assert res.match.audit[-1]["missing"] == ["p2"]


def test_force_resolve_is_gm_only_and_bound_to_the_turn(deps: uc.Deps) -> None:
    mid = started(deps)
    with pytest.raises(Rejection) as err:
        uc.force_resolve(deps, mid, ANN, turn=1)
    assert err.value.code == "gm_only"
    with pytest.raises(Rejection) as err:
        uc.force_resolve(deps, mid, GM, turn=7)
    assert err.value.code == "stale_turn"
    assert deps.repo.history(mid)[-1].turn == 0


def test_a_tick_resolves_only_a_passed_deadline(deps: uc.Deps, clock: FakeClock) -> None:
    mid = started(deps)
    assert uc.tick(deps, mid) is None  # no deadline set
    loaded = deps.repo.load(mid)
    from dataclasses import replace

    deps.repo.save(
        replace(loaded.match, deadline=clock.now + 60), expected_version=loaded.match.version
    )
    assert uc.tick(deps, mid) is None  # not yet
    clock.advance(61)
    res = uc.tick(deps, mid)
    assert isinstance(res, uc.Resolution) and res.record.reason == "deadline"
    assert uc.tick(deps, mid) is None  # the same firing again does nothing


def test_whole_match_to_the_end(deps: uc.Deps) -> None:
    mid = started(deps)
    for _ in range(40):
        match = deps.repo.load(mid).match
        if match.phase is Phase.FINISHED:
            break
        uc.seal_order(deps, mid, ANN, "p1", {"call": 1})
        uc.seal_order(deps, mid, BOB, "p2", {"call": 6})
    match = deps.repo.load(mid).match
    assert match.phase is Phase.FINISHED and match.outcome is not None
    assert [r.turn for r in deps.repo.history(mid)] == list(range(match.turn))
    with pytest.raises(Rejection):
        uc.seal_order(deps, mid, ANN, "p1", {"call": 1})


def test_gm_ends_the_match(deps: uc.Deps) -> None:
    mid = started(deps)
    uc.seal_order(deps, mid, ANN, "p1", {"call": 1})
    match = uc.end_match(deps, mid, GM, Outcome("draw", reason="gm"))
    assert match.phase is Phase.FINISHED and match.outcome == {
        "status": "draw",
        "winners": [],
        "reason": "gm",
        "by_gm": True,
    }
    assert deps.repo.load(mid).orders == {}


def test_an_order_is_bound_to_the_turn_it_was_made_for(deps: uc.Deps) -> None:
    mid = started(deps)
    with pytest.raises(Rejection) as err:
        uc.seal_order(deps, mid, ANN, "p1", {"call": 3}, turn=2)
    assert err.value == Rejection("stale_turn", turn=2)
    assert uc.seal_order(deps, mid, ANN, "p1", {"call": 3}, turn=1).match.sealed == ("p1",)


def test_a_seal_that_loses_a_race_to_the_resolution_is_refused_not_moved(deps: uc.Deps) -> None:
    """Ann's first attempt conflicts because Bob's seal resolved turn 1 in between: her order
    must not land in turn 2."""
    mid = started(deps)
    uc.seal_order(deps, mid, BOB, "p2", {"call": 1})
    repo = deps.repo
    real_load = repo.load
    calls = {"n": 0}

    def racing_load(match_id: str):  # type: ignore[no-untyped-def]
        loaded = real_load(match_id)
        calls["n"] += 1
        if calls["n"] == 1:  # right after Ann's first load, the GM resolves turn 1
            uc.force_resolve(deps, mid, GM, turn=1)
        return loaded

    repo.load = racing_load  # type: ignore[method-assign]
    try:
        with pytest.raises(Rejection) as err:
            uc.seal_order(deps, mid, ANN, "p1", {"call": 3})
    finally:
        repo.load = real_load  # type: ignore[method-assign]
    assert err.value == Rejection("stale_turn", turn=1)
    loaded = deps.repo.load(mid)
    assert loaded.match.turn == 2 and loaded.orders == {}
