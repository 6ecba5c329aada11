"""The repository contract (``engine/ports.MatchRepository``), run unchanged against the
in-memory fake, SQLite and DynamoDB (moto) through the parametrized ``repo`` fixture."""

from __future__ import annotations

import inspect
from dataclasses import replace
from typing import Any

import pytest

from engine import usecases
from engine.errors import ConflictError, NotFoundError
from engine.match import Match, Phase
from engine.ports import UPDATE_TTL_SECONDS, MatchRepository, PrefsRepository, UpdateClaim
from engine.ruleset import Outcome
from infra.dynamodb import DynamoRepository
from tests.storage.conftest import Backdoor
from tests.storage.helpers import (
    CHAT,
    GM,
    P1,
    P2,
    fake_record,
    lobby,
    make_deps,
    order,
    started,
    with_deadline,
)


def fields(m: Match) -> Match:
    return replace(m, version=0)


# --------------------------------------------------------------------------- create / load


def test_create_then_load_roundtrips_the_match_at_version_1(repo: MatchRepository) -> None:
    deps = make_deps(repo)
    created = lobby(deps)
    loaded = repo.load(created.id)
    assert created.version == 1
    assert loaded.match == created
    assert loaded.orders == {}


def test_create_twice_with_one_id_conflicts_and_keeps_the_first(repo: MatchRepository) -> None:
    first = lobby(make_deps(repo))
    with pytest.raises(ConflictError):
        repo.create(replace(first, chat_id=999, version=0))
    assert repo.load(first.id).match.chat_id == CHAT


def test_load_and_save_of_an_unknown_match_raise_not_found(repo: MatchRepository) -> None:
    m = lobby(make_deps(repo))
    with pytest.raises(NotFoundError):
        repo.load("nope")
    with pytest.raises(NotFoundError):
        repo.save(replace(m, id="nope"), expected_version=1)


def test_save_bumps_the_version_and_a_stale_save_conflicts_writing_nothing(
    repo: MatchRepository,
) -> None:
    m = lobby(make_deps(repo))
    saved = repo.save(replace(m, lang="en"), expected_version=1)
    assert saved.version == 2
    with pytest.raises(ConflictError):
        repo.save(replace(m, lang="de"), expected_version=1, seal=order(m, "p1"))
    loaded = repo.load(m.id)
    assert loaded.match.lang == "en"
    assert loaded.match.version == 2
    assert loaded.orders == {}


# --------------------------------------------------------------------------- orders


def test_seal_replace_and_withdraw_an_order(repo: MatchRepository) -> None:
    m = started(make_deps(repo))
    m = repo.save(m, expected_version=m.version, seal=order(m, "p1", move="a"))
    assert repo.load(m.id).orders["p1"].order["note"] == "a"
    m = repo.save(m, expected_version=m.version, seal=order(m, "p1", move="b"))
    m = repo.save(m, expected_version=m.version, seal=order(m, "p2", move="c"))
    orders = repo.load(m.id).orders
    assert {p: o.order["note"] for p, o in orders.items()} == {"p1": "b", "p2": "c"}
    m = repo.save(m, expected_version=m.version, withdraw="p1")
    assert set(repo.load(m.id).orders) == {"p2"}


def test_orders_of_another_turn_are_not_loaded(repo: MatchRepository) -> None:
    m = started(make_deps(repo))
    m = repo.save(m, expected_version=m.version, seal=order(m, "p1", turn=m.turn + 1))
    assert repo.load(m.id).orders == {}


def test_a_record_is_appended_and_removes_the_turn_s_sealed_orders(repo: MatchRepository) -> None:
    m = started(make_deps(repo))
    m = repo.save(m, expected_version=m.version, seal=order(m, "p1"))
    nxt = replace(m, turn=m.turn + 1)
    saved = repo.save(
        nxt, expected_version=m.version, seal=order(m, "p2"), record=fake_record(m, 1)
    )
    loaded = repo.load(m.id)
    assert loaded.orders == {}
    assert loaded.match.turn == 2 == saved.turn
    assert [r.turn for r in repo.history(m.id)] == [0, 1]


def test_discard_orders_drops_the_current_turn_s_orders(repo: MatchRepository) -> None:
    m = started(make_deps(repo))
    m = repo.save(m, expected_version=m.version, seal=order(m, "p1"))
    m = repo.save(m, expected_version=m.version, discard_orders=True)
    assert repo.load(m.id).orders == {}


# --------------------------------------------------------------------------- lookups


def test_active_in_chat_lists_unfinished_matches_oldest_first(repo: MatchRepository) -> None:
    deps = make_deps(repo)
    a = lobby(deps)
    b = started(deps)
    c = lobby(deps)
    other = lobby(deps, chat_id=CHAT - 1)
    usecases.end_match(deps, c.id, GM, Outcome("draw"))
    assert [m.id for m in repo.active_in_chat(CHAT)] == [a.id, b.id]
    assert [m.id for m in repo.active_in_chat(CHAT - 1)] == [other.id]
    assert repo.active_in_chat(12345) == []
    listed = repo.active_in_chat(CHAT)[1]
    assert listed == repo.load(b.id).match


def test_active_for_user_finds_gm_and_seated_players_only(repo: MatchRepository) -> None:
    deps = make_deps(repo)
    a = started(deps)
    b = lobby(deps, gm=P1)
    usecases.join(deps, b.id, P2, "two")
    c = started(deps, users=(P2, 33))
    assert [m.id for m in repo.active_for_user(GM)] == [a.id, c.id]
    assert [m.id for m in repo.active_for_user(P1)] == [a.id, b.id]
    assert [m.id for m in repo.active_for_user(P2)] == [a.id, b.id, c.id]
    usecases.leave(deps, b.id, P2)
    usecases.end_match(deps, c.id, GM, Outcome("draw"))
    assert [m.id for m in repo.active_for_user(P2)] == [a.id]
    assert repo.active_for_user(33) == []
    usecases.hand_gm(deps, b.id, 44, 44, as_admin=True)
    assert [m.id for m in repo.active_for_user(44)] == [b.id]
    assert [m.id for m in repo.active_for_user(P1)] == [a.id]  # P1 is no longer b's GM


def test_due_lists_matches_to_wake_up_earliest_first(repo: MatchRepository) -> None:
    """``due`` follows what the core says the next wake-up is (``wake_at``: a reminder, the
    deadline or the end of a pause); running matches with a deadline have one, others not."""
    deps = make_deps(repo)
    late = started(deps)
    early = started(deps)
    future = started(deps)
    idle_lobby = lobby(deps)
    saved = {}
    for m, seconds in ((late, 5000.0), (early, 1000.0), (future, 90_000.0), (idle_lobby, 10.0)):
        opened = m.turn_opened_at or m.created_at
        saved[m.id] = repo.save(with_deadline(m, opened + seconds), expected_version=m.version)
    wakes = {mid: m.wake_at for mid, m in saved.items()}
    assert wakes[idle_lobby.id] is None
    assert all(wakes[m.id] is not None for m in (late, early, future))
    now = max(w for w in (wakes[late.id], wakes[early.id]) if w is not None)
    assert repo.due(now) == [early.id, late.id]  # "at or before", earliest first
    assert repo.due(now, limit=1) == [early.id]
    assert repo.due(min(w for w in wakes.values() if w is not None) - 1) == []
    # Clearing the deadline or finishing the match takes it off the index.
    m = repo.load(early.id).match
    repo.save(with_deadline(m, None), expected_version=m.version)
    usecases.end_match(deps, late.id, GM, Outcome("draw"))
    assert repo.due(now) == []


# --------------------------------------------------------------------------- history


def test_history_is_in_turn_order_and_an_undo_drops_the_last_record(
    repo: MatchRepository,
) -> None:
    m = started(make_deps(repo))
    for turn in (1, 2, 3):
        nxt = replace(m, turn=turn + 1)
        m = repo.save(nxt, expected_version=m.version, record=fake_record(m, turn))
    assert [r.turn for r in repo.history(m.id)] == [0, 1, 2, 3]
    m = repo.save(replace(m, turn=3), expected_version=m.version, drop_record=3)
    assert [r.turn for r in repo.history(m.id)] == [0, 1, 2]
    assert repo.history("nope") == []


def test_history_since_a_turn_gives_that_turn_and_the_later_ones(repo: MatchRepository) -> None:
    """What a turn's delivery reads: its own record and whether a later one exists, not the
    whole history (which grows with every turn). In DynamoDB it reads only those items (and
    the records' configurations)."""
    m = started(make_deps(repo))
    for turn in (1, 2, 3, 4):
        m = repo.save(replace(m, turn=turn + 1), expected_version=m.version,
                      record=fake_record(m, turn, "x" * 3000))  # fmt: skip
    assert [r.turn for r in repo.history(m.id, since=3)] == [3, 4]
    assert [r.turn for r in repo.history(m.id, since=5)] == []
    assert [r.turn for r in repo.history(m.id, since=0)] == [0, 1, 2, 3, 4]
    assert repo.history(m.id, since=2) == repo.history(m.id)[2:]
    if isinstance(repo, DynamoRepository):  # only those items are read
        queries: list[dict[str, Any]] = []
        real = repo.client

        class Spy:
            def query(self, **kw: Any) -> Any:
                queries.append(kw)
                return real.query(**kw)

        fresh = DynamoRepository(Spy(), repo.table)  # knows no configurations yet
        assert [r.turn for r in fresh.history(m.id, since=4)] == [4]
        (query,) = queries
        assert query["ExpressionAttributeValues"][":from"] == {"S": "TURN#000004#"}


def test_save_can_drop_a_record_in_the_same_write(repo: MatchRepository) -> None:
    if "drop_record" not in inspect.signature(repo.save).parameters:
        pytest.skip("this adapter's save has no drop_record yet")
    m = started(make_deps(repo))
    big = fake_record(m, 1, "z" * 700_000)
    m = repo.save(replace(m, turn=2), expected_version=m.version, record=big)
    m = repo.save(replace(m, turn=1), expected_version=m.version, drop_record=1)
    assert [r.turn for r in repo.history(m.id)] == [0]
    with pytest.raises(ConflictError):
        repo.save(m, expected_version=m.version - 1, drop_record=0)
    assert [r.turn for r in repo.history(m.id)] == [0]


def test_a_record_far_bigger_than_a_dynamodb_item_roundtrips(repo: MatchRepository) -> None:
    m = started(make_deps(repo))
    payload = "ж" * 400_000  # ~800 KB of UTF-8: must be split across items in DynamoDB
    big = fake_record(m, 1, payload)
    m = repo.save(replace(m, turn=2), expected_version=m.version, record=big)
    assert repo.history(m.id)[-1] == big
    repo.save(replace(m, turn=1), expected_version=m.version, drop_record=1)
    assert [r.turn for r in repo.history(m.id)] == [0]


def test_a_resolved_turn_through_the_use_case_is_stored_whole(repo: MatchRepository) -> None:
    deps = make_deps(repo)
    m = started(deps)
    usecases.seal_order(deps, m.id, P1, "p1", {"call": 2, "note": "left"})
    result = usecases.seal_order(deps, m.id, P2, "p2", {"call": 5, "note": "right"})
    assert result.record is not None
    assert repo.history(m.id)[-1] == result.record
    assert repo.load(m.id).match == result.match


# --------------------------------------------------------------------------- updates


LEASE = 60.0
T0 = 1_700_000_000.0


def test_a_claim_is_a_lease_with_its_own_token(repo: MatchRepository) -> None:
    first = repo.claim_update(7, T0, LEASE)
    assert first.status == "claimed" and first.token
    assert repo.claim_update(8, T0, LEASE).status == "claimed"  # ids are independent
    # A redelivery while the first attempt may still be running: not claimed, not "done".
    assert repo.claim_update(7, T0 + 1, LEASE) == UpdateClaim("processing")
    assert repo.claim_update(7, T0 + LEASE - 0.5, LEASE) == UpdateClaim("processing")


def test_a_lease_that_ran_out_is_claimed_again_with_a_new_token(repo: MatchRepository) -> None:
    dead = repo.claim_update(7, T0, LEASE)  # the attempt dies (timeout): never confirmed
    again = repo.claim_update(7, T0 + LEASE, LEASE)
    assert again.status == "claimed" and again.token != dead.token
    assert repo.claim_update(7, T0 + LEASE + 1, LEASE).status == "processing"
    # The dead attempt finishing late cannot confirm (nor release) the new attempt's lease.
    assert repo.confirm_update(7, dead.token, T0 + LEASE + 2) is False
    repo.release_update(7, dead.token)
    assert repo.claim_update(7, T0 + LEASE + 3, LEASE).status == "processing"
    assert repo.confirm_update(7, again.token, T0 + LEASE + 4) is True
    assert repo.claim_update(7, T0 + LEASE + 5, LEASE).status == "done"


def test_a_confirmed_update_is_done_for_48_hours(repo: MatchRepository) -> None:
    claim = repo.claim_update(42, T0, LEASE)
    assert repo.confirm_update(42, claim.token, T0 + 10) is True
    assert repo.confirm_update(42, claim.token, T0 + 11) is False  # done: no lease any more
    for later in (T0 + 11, T0 + LEASE + 1, T0 + 24 * 3600, T0 + 10 + UPDATE_TTL_SECONDS - 1):
        assert repo.claim_update(42, later, LEASE) == UpdateClaim("done")
    # Expired but maybe not deleted yet (TTL deletion is lazy): treated as absent.
    assert repo.claim_update(42, T0 + 10 + UPDATE_TTL_SECONDS, LEASE).status == "claimed"


def test_a_lease_past_its_end_is_still_confirmed_by_its_own_token(repo: MatchRepository) -> None:
    claim = repo.claim_update(5, T0, LEASE)  # slow, but nobody claimed it again meanwhile
    assert repo.confirm_update(5, claim.token, T0 + 10 * LEASE) is True
    assert repo.claim_update(5, T0 + 10 * LEASE + 1, LEASE).status == "done"


def test_a_released_lease_is_claimed_again(repo: MatchRepository) -> None:
    claim = repo.claim_update(7, T0, LEASE)
    repo.release_update(7, "someone-else")  # another token: nothing happens
    assert repo.claim_update(7, T0 + 1, LEASE).status == "processing"
    repo.release_update(7, claim.token)
    again = repo.claim_update(7, T0 + 2, LEASE)
    assert again.status == "claimed"
    assert repo.confirm_update(7, claim.token, T0 + 3) is False  # the released token is void
    repo.release_update(999, "x")  # releasing an unknown claim is harmless
    assert repo.confirm_update(999, "x", T0) is False


def test_a_claim_written_before_leases_counts_as_done(
    repo: MatchRepository, backdoor: Backdoor
) -> None:
    backdoor.put_old_claim(11, T0 + UPDATE_TTL_SECONDS)
    assert repo.claim_update(11, T0 + 3600, LEASE) == UpdateClaim("done")
    assert repo.claim_update(11, T0 + UPDATE_TTL_SECONDS, LEASE).status == "claimed"


# --------------------------------------------------------------------------- flag


def test_flag_marks_the_match_and_makes_an_earlier_load_stale(repo: MatchRepository) -> None:
    m = lobby(make_deps(repo))
    repo.flag(m.id, "turn record 3 unreadable")
    flagged = repo.load(m.id).match
    assert flagged.attention == "turn record 3 unreadable"
    with pytest.raises(ConflictError):
        repo.save(replace(m, lang="en"), expected_version=m.version)
    cleared = repo.save(replace(flagged, attention=None), expected_version=flagged.version)
    assert repo.load(m.id).match.attention is None == cleared.attention
    repo.flag("nope", "x")  # unknown match: nothing happens


def test_finished_match_keeps_its_history_and_outcome(repo: MatchRepository) -> None:
    deps = make_deps(repo)
    m = started(deps)
    ended = usecases.end_match(deps, m.id, GM, Outcome("win", ("p1",)))
    loaded = repo.load(m.id).match
    assert loaded == ended
    assert loaded.phase is Phase.FINISHED
    assert [r.turn for r in repo.history(m.id)] == [0]


# --------------------------------------------------------------------------- preferences


def test_user_preferences_roundtrip_and_do_not_show_up_as_matches(repo: MatchRepository) -> None:
    assert isinstance(repo, PrefsRepository)
    assert repo.load_prefs(P1) == {}
    repo.save_prefs(P1, {"lang": "en"})
    repo.save_prefs(P1, {"lang": "ru", "tz": "Europe/Moscow"})
    assert repo.load_prefs(P1) == {"lang": "ru", "tz": "Europe/Moscow"}
    assert repo.load_prefs(P2) == {}
    assert repo.active_for_user(P1) == []
