"""The outbox, the parking of failing matches and the chats' creation lock, on every store
(memory, SQLite, DynamoDB): owed items are written with the save that owes them, replaced by
key, leased to one deliverer, found by the sweeper, and never pending once done."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine import usecases
from engine.errors import ChatBusyError, ConflictError
from engine.match import Match
from engine.ports import MatchRepository, Owed
from engine.ruleset import Outcome
from tests.storage.helpers import make_deps, started

T0 = 1_800_000_000.0


def announced(deps: usecases.Deps) -> Match:
    """A started match whose start announcement (owed by ``start``) was delivered."""
    m = started(deps)
    (start,) = deps.repo.owed(m.id)
    assert start.kind == "started"
    claimed = deps.repo.claim_owed(m.id, start.key, T0, 60.0)
    assert claimed is not None and deps.repo.update_owed(replace(claimed, done=True))
    return m


def owed(match_id: str, key: str, seq: int, **changes: object) -> Owed:
    item = Owed(match_id, key, "resolved", -1001, 1, seq, T0, data={"status": 5})
    return replace(item, **changes)  # type: ignore[arg-type]


def test_owed_items_are_saved_with_the_match_and_listed_in_order(repo: MatchRepository) -> None:
    m = announced(make_deps(repo))
    b, a = owed(m.id, "b", 2), owed(m.id, "a", 1)
    saved = repo.save(m, expected_version=m.version, owe=[b, a])
    assert repo.owed(m.id) == [a, b]
    with pytest.raises(ConflictError):  # a lost race writes no owed item either
        repo.save(m, expected_version=m.version, owe=[owed(m.id, "c", 3)])
    assert [o.key for o in repo.owed(m.id)] == ["a", "b"]
    repo.save(saved, expected_version=saved.version, owe=[owed(m.id, "a", 9, turn=2)])
    assert [(o.key, o.seq, o.turn) for o in repo.owed(m.id)] == [("b", 2, 1), ("a", 9, 2)]


def test_a_use_case_owes_the_announcement_of_a_resolution_in_its_save(
    repo: MatchRepository,
) -> None:
    deps = make_deps(repo)
    m = announced(deps)
    usecases.seal_order(deps, m.id, 21, "p1", {"call": 1})
    assert repo.owed(m.id) == []  # a seal that resolves nothing owes nothing
    res = usecases.seal_order(deps, m.id, 22, "p2", {"call": 2})
    assert res.record is not None
    (item,) = repo.owed(m.id)
    assert (item.kind, item.key, item.turn, item.chat_id) == ("resolved", "resolved:1", 1, -1001)
    assert item.data["reason"] == "all_sealed"


def test_one_deliverer_holds_an_item_until_its_lease_runs_out(repo: MatchRepository) -> None:
    m = announced(make_deps(repo))
    repo.save(m, expected_version=m.version, owe=[owed(m.id, "a", 1)])
    first = repo.claim_owed(m.id, "a", T0, 60.0)
    assert first is not None and first.token and first.lease == T0 + 60.0
    assert repo.claim_owed(m.id, "a", T0 + 59, 60.0) is None
    second = repo.claim_owed(m.id, "a", T0 + 60, 60.0)
    assert second is not None and second.token != first.token
    # The first deliverer, late, can no longer write (its sends are not recorded twice).
    assert not repo.update_owed(replace(first, sent={"1": [-1001, 7]}))
    assert repo.update_owed(replace(second, sent={"1": [-1001, 7]}))
    assert repo.owed(m.id)[0].sent == {"1": [-1001, 7]}
    assert repo.claim_owed(m.id, "nope", T0, 60.0) is None


def test_a_delivered_item_is_no_longer_owed_and_a_deferred_one_waits(
    repo: MatchRepository,
) -> None:
    m = announced(make_deps(repo))
    repo.save(m, expected_version=m.version, owe=[owed(m.id, "a", 1), owed(m.id, "b", 2)])
    assert repo.owed_due(T0) == [m.id]
    a = repo.claim_owed(m.id, "a", T0, 60.0)
    b = repo.claim_owed(m.id, "b", T0, 60.0)
    assert a is not None and b is not None
    assert repo.update_owed(replace(a, done=True, lease=0.0))
    assert repo.update_owed(replace(b, attempts=1, next_at=T0 + 30, lease=0.0, error="429"))
    assert [o.key for o in repo.owed(m.id)] == ["b"]
    assert repo.owed_due(T0 + 29) == []
    assert repo.claim_owed(m.id, "b", T0 + 29, 60.0) is None  # backing off
    assert repo.owed_due(T0 + 30) == [m.id]
    again = repo.claim_owed(m.id, "b", T0 + 30, 60.0)
    assert again is not None and again.attempts == 1 and again.error == "429"
    assert repo.claim_owed(m.id, "a", T0 + 30, 60.0) is None  # done: never again


def test_a_match_that_keeps_failing_is_parked_out_of_due_until_its_next_save(
    repo: MatchRepository,
) -> None:
    deps = make_deps(repo)
    m = announced(deps)
    m = repo.save(replace(m, deadline=T0), expected_version=m.version)
    far = T0 + 3600
    assert repo.due(far) == [m.id]
    assert not repo.note_failure(m.id, "parked: KeyError: x", 3)
    assert not repo.note_failure(m.id, "parked: KeyError: x", 3)
    assert repo.note_failure(m.id, "parked: KeyError: x", 3)
    assert repo.due(far) == []
    parked = repo.load(m.id).match
    assert parked.attention == "parked: KeyError: x" and parked.version == m.version + 1
    resumed = usecases.pause(deps, m.id, 11)  # the GM acts: back in the index
    assert resumed.attention is None and repo.due(far * 2) == [m.id]
    assert not repo.note_failure(m.id, "parked: again", 3)  # the count started over


def test_the_chat_lock_lets_one_unfinished_match_be_created_per_chat(
    repo: MatchRepository,
) -> None:
    deps = make_deps(repo)
    a = usecases.create_match(deps, -1001, 11, "coin", lock_chat=True)
    with pytest.raises(ChatBusyError) as busy:
        usecases.create_match(deps, -1001, 12, "coin", lock_chat=True)
    assert busy.value.match_id == a.id
    assert [m.id for m in repo.active_in_chat(-1001)] == [a.id]  # nothing else written
    with pytest.raises(ConflictError) as same:  # the same picker twice: its own id exists
        usecases.create_match(deps, -1001, 11, "coin", lock_chat=True, match_id=a.id)
    assert not isinstance(same.value, ChatBusyError)
    usecases.create_match(deps, -1002, 11, "coin", lock_chat=True)  # another chat: free
    usecases.end_match(deps, a.id, 11, Outcome("draw"))
    b = usecases.create_match(deps, -1001, 12, "coin", lock_chat=True)  # a finished holder
    assert [m.id for m in repo.active_in_chat(-1001)] == [b.id]
