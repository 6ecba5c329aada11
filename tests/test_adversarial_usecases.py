"""Adversarial sequences of use cases (the test ruleset ``coin``, the memory store): what a
seat's next holder can see and what a resolution uses must follow what the group was shown."""

from __future__ import annotations

import pytest

from engine import usecases as uc
from engine.errors import Rejection

GM, ANN, BOB, EVE, DAVE = 100, 1, 2, 3, 4


def _three_seats(deps: uc.Deps) -> str:
    match = uc.create_match(deps, chat_id=-500, gm_user_id=GM, ruleset_id="coin")
    for user, name, pid in ((ANN, "Ann", "p1"), (BOB, "Bob", "p2"), (EVE, "Eve", "p3")):
        uc.join(deps, match.id, user, name)
        uc.set_character(deps, match.id, user, pid, {})
    uc.start(deps, match.id, GM)
    return match.id


def test_a_forfeited_seats_sealed_order_is_gone_not_inherited_by_its_next_holder(
    deps: uc.Deps,
) -> None:
    """Bob seals, then forfeits; the GM gives his seat to Dave in the same turn. The group sees
    p2 waiting (not sealed), yet Bob's order stayed in the store: Dave saw it as his own in
    /status, and the resolution played it (revealed as a real order, not p2's default)."""
    mid = _three_seats(deps)
    uc.seal_order(deps, mid, BOB, "p2", {"call": 6})
    uc.forfeit(deps, mid, BOB, "p2", reason="own")
    uc.replace_player(deps, mid, GM, "p2", DAVE, "Dave")
    assert "p2" not in deps.repo.load(mid).match.sealed
    assert uc.my_orders(deps, mid, DAVE) == []
    record = uc.force_resolve(deps, mid, GM, turn=1).record
    (p2,) = [o for o in record.orders if o.pid == "p2"]
    assert p2.default and p2.by_user is None


def test_a_withdraw_bound_to_a_resolved_turn_leaves_the_next_turns_order(
    deps: uc.Deps,
) -> None:
    """Ann's receipt of turn 1 is pressed late ("Withdraw"): turn 1 has resolved meanwhile and
    she has already sealed turn 2. The press is for turn 1, so it must not take back turn 2's
    order."""
    mid = _three_seats(deps)
    for user, pid in ((ANN, "p1"), (BOB, "p2"), (EVE, "p3")):
        uc.seal_order(deps, mid, user, pid, {"call": 1})
    assert deps.repo.load(mid).match.turn == 2
    uc.seal_order(deps, mid, ANN, "p1", {"call": 6})
    with pytest.raises(Rejection) as refused:
        uc.withdraw_order(deps, mid, ANN, "p1", turn=1)
    assert refused.value.code == "stale_turn"
    assert "p1" in deps.repo.load(mid).match.sealed
    uc.withdraw_order(deps, mid, ANN, "p1", turn=2)  # the current receipt still works
    assert "p1" not in deps.repo.load(mid).match.sealed
