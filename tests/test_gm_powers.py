"""GM powers: undo, replace, forfeit, state rulings, handing over the GM role."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from engine import codec
from engine import usecases as uc
from engine.errors import Rejection
from engine.match import Phase

GM, ANN, BOB, CAT = 100, 1, 2, 3


def running(deps: uc.Deps) -> str:
    match = uc.create_match(
        deps, chat_id=-9, gm_user_id=GM, ruleset_id="coin", config={"target": 5}
    )
    uc.join(deps, match.id, ANN, "Ann")
    uc.join(deps, match.id, BOB, "Bob")
    uc.set_character(deps, match.id, ANN, "p1", {})
    uc.set_character(deps, match.id, BOB, "p2", {})
    uc.start(deps, match.id, GM)
    return match.id


def test_undo_restores_a_byte_identical_state_and_reopens_the_turn(deps: uc.Deps) -> None:
    mid = running(deps)
    uc.seal_order(deps, mid, ANN, "p1", {"call": 1})
    uc.seal_order(deps, mid, BOB, "p2", {"call": 2})
    before = deps.repo.load(mid).match
    uc.seal_order(deps, mid, ANN, "p1", {"call": 3})
    result = uc.seal_order(deps, mid, BOB, "p2", {"call": 4})
    assert result.record is not None and result.record.turn == 2
    match, undone = uc.undo(deps, mid, GM, reason="misclick")
    assert undone.turn == 2 and match.turn == 2 and match.sealed == ()
    assert json.dumps(match.state, sort_keys=True) == json.dumps(before.state, sort_keys=True)
    assert match.commitment not in (before.commitment, None)  # a new committed seed
    assert [r.turn for r in deps.repo.history(mid)] == [0, 1]
    assert deps.repo.load(mid).orders == {}
    assert match.audit[-1]["action"] == "undo" and match.audit[-1]["reason"] == "misclick"
    again = uc.seal_order(deps, mid, ANN, "p1", {"call": 5})
    assert again.match.turn == 2


def test_undo_of_a_finished_match_reopens_it(deps: uc.Deps) -> None:
    mid = running(deps)
    while deps.repo.load(mid).match.phase is Phase.RUNNING:
        uc.seal_order(deps, mid, ANN, "p1", {"call": 1})
        uc.seal_order(deps, mid, BOB, "p2", {"call": 1})
    match, _ = uc.undo(deps, mid, GM)
    assert match.phase is Phase.RUNNING and match.outcome is None


def test_nothing_to_undo_before_the_first_turn(deps: uc.Deps) -> None:
    mid = running(deps)
    with pytest.raises(Rejection) as err:
        uc.undo(deps, mid, GM)
    assert err.value.code == "nothing_to_undo"


def test_replace_player_hands_the_seat_over(deps: uc.Deps) -> None:
    mid = running(deps)
    match = uc.replace_player(deps, mid, GM, "p2", CAT, "Cat")
    assert match.seat("p2").user_id == CAT
    uc.seal_order(deps, mid, CAT, "p2", {"call": 2})
    with pytest.raises(Rejection) as err:
        uc.seal_order(deps, mid, BOB, "p2", {"call": 2})
    assert err.value.code == "not_your_seat"
    with pytest.raises(Rejection) as err:
        uc.replace_player(deps, mid, GM, "p1", CAT, "Cat")
    assert err.value.code == "already_joined"


def test_forfeit_leaves_the_other_side_the_winner(deps: uc.Deps) -> None:
    mid = running(deps)
    match, record = uc.forfeit(deps, mid, BOB, "p2")
    assert record is None and match.phase is Phase.FINISHED
    assert match.outcome == {"status": "win", "winners": ["p1"], "reason": "forfeit"}


def test_only_the_gm_removes_someone_else(deps: uc.Deps) -> None:
    mid = running(deps)
    with pytest.raises(Rejection) as err:
        uc.forfeit(deps, mid, ANN, "p2")
    assert err.value.code == "gm_only"
    match, _ = uc.forfeit(deps, mid, GM, "p2", reason="vanished")
    assert match.audit[-1]["action"] == "forfeit" and match.audit[-1]["reason"] == "vanished"


def test_gm_ruling_on_state_is_audited(deps: uc.Deps) -> None:
    mid = running(deps)
    match = uc.edit_state(deps, mid, GM, "p1", "score", 3, reason="house rule")
    assert match.state is not None and match.state["scores"] == [3, 0]
    entry = match.audit[-1]
    assert (entry["action"], entry["old"], entry["new"], entry["reason"]) == (
        "edit",
        0,
        3,
        "house rule",
    )


@pytest.mark.parametrize(
    ("field", "value", "reason", "code"),
    [
        ("score", -1, "why", "edit_bad_value"),
        ("hp", 1, "why", "edit_unknown_field"),
        ("score", 1, " ", "reason_required"),
    ],
)
def test_bad_rulings_change_nothing(
    deps: uc.Deps, field: str, value: int, reason: str, code: str
) -> None:
    mid = running(deps)
    before = codec.match_to_doc(deps.repo.load(mid).match)
    with pytest.raises(Rejection) as err:
        uc.edit_state(deps, mid, GM, "p1", field, value, reason)
    assert err.value.code == code
    assert codec.match_to_doc(deps.repo.load(mid).match) == before


def test_every_gm_power_is_refused_to_others(deps: uc.Deps) -> None:
    mid = running(deps)
    uc.seal_order(deps, mid, ANN, "p1", {"call": 1})
    uc.seal_order(deps, mid, BOB, "p2", {"call": 1})
    before = codec.match_to_doc(deps.repo.load(mid).match)
    attempts: list[Callable[[], object]] = [
        lambda: uc.pause(deps, mid, ANN),
        lambda: uc.extend(deps, mid, ANN, 60),
        lambda: uc.undo(deps, mid, ANN),
        lambda: uc.replace_player(deps, mid, ANN, "p2", CAT, "Cat"),
        lambda: uc.edit_state(deps, mid, ANN, "p2", "score", 4, "x"),
        lambda: uc.hand_gm(deps, mid, ANN, ANN),
        lambda: uc.force_resolve(deps, mid, ANN, turn=2),
        lambda: uc.configure_clock(deps, mid, ANN, turn_seconds=3600),
    ]
    for attempt in attempts:
        with pytest.raises(Rejection) as err:
            attempt()
        assert err.value.code == "gm_only"
    assert codec.match_to_doc(deps.repo.load(mid).match) == before


def test_hand_gm_and_admin_takeover(deps: uc.Deps) -> None:
    mid = running(deps)
    assert uc.hand_gm(deps, mid, GM, CAT).gm_user_id == CAT
    taken = uc.hand_gm(deps, mid, ANN, ANN, as_admin=True)
    assert taken.gm_user_id == ANN
    assert taken.audit[-1] | {"at": 0} == {
        "at": 0,
        "by": ANN,
        "action": "hand_gm",
        "turn": 1,
        "reason": "",
        "old": CAT,
        "new": ANN,
    }


def test_a_match_won_by_forfeit_cannot_be_reopened_by_undo(deps: uc.Deps) -> None:
    mid = running(deps)
    uc.seal_order(deps, mid, ANN, "p1", {"call": 1})
    uc.seal_order(deps, mid, BOB, "p2", {"call": 1})
    uc.forfeit(deps, mid, BOB, "p2")
    with pytest.raises(Rejection) as err:
        uc.undo(deps, mid, GM)
    assert err.value.code == "nothing_to_undo"
    assert deps.repo.load(mid).match.phase is Phase.FINISHED
