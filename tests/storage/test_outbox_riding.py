"""A delivery's outbox write riding on a write it makes anyway, on every store (memory, SQLite,
DynamoDB): ``save(entry=...)`` writes the owed item being delivered with the match (its
journal, or its end), both or nothing - a moved version is a ``ConflictError``, a lost lease
a ``LeaseLostError``; ``update_owed(remember=...)`` remembers message ids in the journal's
own write, only when that write is made (docs/deploy.md, "The outbox's writes")."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine.errors import ConflictError, LeaseLostError
from engine.match import Match, remembered_items
from engine.ports import MatchRepository, Owed, Remember
from infra.dynamodb import DynamoRepository
from tests.storage.helpers import P1, P2, make_deps
from tests.storage.test_outbox_contract import T0, announced, owed
from tests.storage.test_remembered import twin

LIVE = "live"


def claimed(repo: MatchRepository, m: Match, key: str = "a", kind: str = "resolved") -> Owed:
    """Owe ``key`` with a save and claim it; the item as its deliverer holds it."""
    repo.save(m, expected_version=m.version, owe=[replace(owed(m.id, key, 1), kind=kind)])
    got = repo.claim_owed(m.id, key, T0, 60.0)
    assert got is not None
    return got


def test_a_save_writes_the_journal_of_the_item_being_delivered_in_the_same_write(
    repo: MatchRepository,
) -> None:
    m = announced(make_deps(repo))
    item = claimed(repo, m)
    m = repo.load(m.id).match
    sent = replace(item, sent={"reveal:1@-1001#0": [-1001, 70, 5]})
    saved = repo.save(replace(m, lang="en"), expected_version=m.version, entry=sent)
    assert saved.version == m.version + 1 and repo.load(m.id).match.lang == "en"
    (stored,) = repo.owed(m.id)
    assert stored.sent == sent.sent and stored.token == item.token  # still ours
    assert repo.update_owed(replace(sent, done=True, lease=0.0))  # the delivery goes on
    assert repo.owed(m.id) == []


def test_a_save_that_ends_the_item_leaves_nothing_owed(repo: MatchRepository) -> None:
    m = announced(make_deps(repo))
    item = claimed(repo, m, "lock:1", "lock")
    m = repo.load(m.id).match
    end = replace(item, sent={"lock:1@-1001#0": [-1001, 71, 6]}, done=True, lease=0.0)
    repo.save(m, expected_version=m.version, entry=end)
    assert repo.owed(m.id) == []
    assert repo.claim_owed(m.id, "lock:1", T0 + 120, 60.0) is None  # done: never again


def test_a_lost_lease_writes_neither_the_match_nor_the_item(repo: MatchRepository) -> None:
    m = announced(make_deps(repo))
    first = claimed(repo, m)
    second = repo.claim_owed(m.id, "a", T0 + 60, 60.0)  # the first one's lease ran out
    assert second is not None
    m = repo.load(m.id).match
    late = replace(first, sent={"reveal:1@-1001#0": [-1001, 70, 5]})
    with pytest.raises(LeaseLostError):
        repo.save(replace(m, lang="en"), expected_version=m.version, entry=late)
    with pytest.raises(LeaseLostError):
        repo.save(m, expected_version=m.version, entry=replace(late, done=True))
    assert repo.load(m.id).match == m  # the same version, the same document
    (stored,) = repo.owed(m.id)
    assert stored.sent == {} and stored.token == second.token


def test_a_moved_version_is_a_conflict_and_writes_no_journal(repo: MatchRepository) -> None:
    m = announced(make_deps(repo))
    item = claimed(repo, m)
    stale = repo.load(m.id).match
    repo.save(stale, expected_version=stale.version)  # someone else saved meanwhile
    sent = replace(item, sent={"reveal:1@-1001#0": [-1001, 70, 5]})
    with pytest.raises(ConflictError):
        repo.save(replace(stale, lang="en"), expected_version=stale.version, entry=sent)
    (stored,) = repo.owed(m.id)
    assert stored.sent == {}
    fresh = repo.load(m.id).match  # the retry, from a fresh read: both written
    repo.save(replace(fresh, lang="en"), expected_version=fresh.version, entry=sent)
    assert repo.owed(m.id)[0].sent == sent.sent and repo.load(m.id).match.lang == "en"


def test_ids_remembered_with_a_journal_write_follow_remember_messages(
    repo: MatchRepository,
) -> None:
    m = announced(make_deps(repo))
    item = claimed(repo, m)
    repo.remember_messages(m.id, LIVE, 1, [[P1, 10]])
    version = repo.load(m.id).match.version
    # The same turn's: kept beside (the journal written too).
    sent = replace(item, sent={"b@21#0": [P1, 11, 5]})
    assert repo.update_owed(sent, remember=Remember(LIVE, 1, ((P1, 11), (P2, 12))))
    loaded = repo.load(m.id).match
    assert remembered_items(loaded, LIVE, 1) == [[P1, 10], [P1, 11], [P2, 12]]
    assert loaded.version == version and repo.owed(m.id)[0].sent == sent.sent
    # A later turn's: they replace the older turn's, with the item's end.
    assert repo.update_owed(replace(sent, done=True), remember=Remember(LIVE, 2, ((P1, 20),)))
    assert repo.load(m.id).match.remembered[LIVE] == {"turn": 2, "items": [[P1, 20]]}
    assert repo.owed(m.id) == []


def test_ids_of_a_stale_turn_are_left_out_and_the_journal_still_written(
    repo: MatchRepository,
) -> None:
    m = announced(make_deps(repo))
    item = claimed(repo, m)
    repo.remember_messages(m.id, LIVE, 3, [[P1, 30]])
    assert repo.update_owed(
        replace(item, sent={"x@1#0": [1, 2, 3]}), remember=Remember(LIVE, 2, ((P1, 20),))
    )
    assert repo.load(m.id).match.remembered[LIVE] == {"turn": 3, "items": [[P1, 30]]}
    assert repo.owed(m.id)[0].sent == {"x@1#0": [1, 2, 3]}


def test_ids_are_not_remembered_by_a_journal_write_that_is_refused(
    repo: MatchRepository,
) -> None:
    m = announced(make_deps(repo))
    first = claimed(repo, m)
    assert repo.claim_owed(m.id, "a", T0 + 60, 60.0) is not None  # taken over
    assert not repo.update_owed(replace(first, done=True), remember=Remember(LIVE, 1, ((P1, 9),)))
    assert remembered_items(repo.load(m.id).match, LIVE, 1) == []


def test_dynamodb_a_save_that_ends_the_only_entry_takes_the_match_out_of_the_index(
    dynamo_repo: DynamoRepository,
) -> None:
    repo = dynamo_repo
    m = announced(make_deps(repo))
    item = claimed(repo, m)  # not a lock: nothing is owed next
    m = repo.load(m.id).match
    assert repo.owed_due(T0 + 1) == [m.id]
    repo.save(m, expected_version=m.version, entry=replace(item, done=True, lease=0.0))
    assert repo.owed_due(T0 + 1) == []
    # A locked match's lock message (its date saved with the entry's end): kept indexed, for
    # the reveal its resolution owes within seconds and for the sweeper (infra.dynamo_outbox
    # LOCKED).
    m = repo.load(m.id).match
    lock = claimed(repo, replace(m, locked_at=T0, frozen_at=T0), "lock:1", "lock")
    m = repo.load(m.id).match
    repo.save(m, expected_version=m.version, entry=replace(lock, done=True, lease=0.0))
    assert repo.owed(m.id) == [] and repo.owed_due(T0 + 1) == [m.id]


def test_dynamodb_a_resent_save_with_an_entry_is_its_own_write_not_a_conflict(
    dynamo_repo: DynamoRepository,
) -> None:
    """botocore resends an UpdateItem whose answer was lost: the resend finds the version
    moved and the entry written by the first attempt - its own write."""
    repo = dynamo_repo
    m = announced(make_deps(repo))
    item = claimed(repo, m)
    m = repo.load(m.id).match
    client = repo.client
    real = client.update_item
    calls = []

    def twice(**request: object) -> object:
        calls.append(request)
        real(**request)  # the write lands; its answer is lost, botocore resends
        return real(**request)

    client.update_item = twice
    try:
        sent = replace(item, sent={"reveal:1@-1001#0": [-1001, 70, 5]})
        repo.save(replace(m, lang="en"), expected_version=m.version, entry=sent)
    finally:
        client.update_item = real
    assert len(calls) == 1 and repo.owed(m.id)[0].sent == sent.sent


def test_ids_remembered_by_another_instance_meanwhile_are_kept_beside(
    repo: MatchRepository,
) -> None:
    """This instance last saw turn 1's ids; another one remembered turn 2's meanwhile: the
    journal write with turn 2's ids adds them to those, not over them."""
    m = announced(make_deps(repo))
    item = claimed(repo, m)
    repo.remember_messages(m.id, LIVE, 1, [[P1, 10]])
    twin(repo).remember_messages(m.id, LIVE, 2, [[P2, 21]])
    assert repo.update_owed(replace(item, done=True), remember=Remember(LIVE, 2, ((P1, 20),)))
    kept = repo.load(m.id).match.remembered[LIVE]
    assert kept["turn"] == 2 and sorted(kept["items"]) == [[P1, 20], [P2, 21]]
    assert repo.owed(m.id) == []
