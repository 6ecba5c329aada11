"""Remembered message ids beside the match's document (``MatchRepository.remember_messages``,
docs/storage.md "Remembered message ids"), over memory, SQLite and DynamoDB (moto): a
remember never changes the version, so a seal made from a read before it does not conflict,
and the seal does not lose it; two at once are both kept; a stale turn's are ignored."""

from __future__ import annotations

import threading
from dataclasses import replace

import pytest

from engine import usecases
from engine.errors import NotFoundError
from engine.match import remembered_items
from engine.ports import MatchRepository
from infra.dynamodb import DynamoRepository
from infra.memory import MemoryRepository
from infra.sqlite import SqliteRepository
from tests.storage.helpers import CHAT, P1, P2, make_deps, order, started

LIVE = "live"


def twin(repo: MatchRepository) -> MatchRepository:
    """Another instance over the same store (another process or Lambda container)."""
    if isinstance(repo, SqliteRepository):
        return SqliteRepository(repo.path)
    if isinstance(repo, DynamoRepository):
        return DynamoRepository(repo.client, repo.table)
    assert isinstance(repo, MemoryRepository)
    return repo


def test_a_remember_changes_no_version_and_a_seal_from_an_earlier_read_keeps_it(
    repo: MatchRepository,
) -> None:
    m = started(make_deps(repo))
    read = repo.load(m.id).match
    repo.remember_messages(m.id, LIVE, m.turn, [[P1, 501]])
    assert repo.load(m.id).match.version == read.version
    # P2's seal, made from the read before P1's receipt was remembered: no conflict
    saved = repo.save(
        replace(read, sealed=("p2",)), expected_version=read.version, seal=order(read, "p2")
    )
    assert saved.version == read.version + 1
    repo.remember_messages(m.id, LIVE, m.turn, [[P2, 502]])
    loaded = repo.load(m.id)
    assert remembered_items(loaded.match, LIVE, m.turn) == [[P1, 501], [P2, 502]]
    assert set(loaded.orders) == {"p2"}  # and the seal is there


def test_two_remembers_with_a_seal_between_them_lose_nothing_and_listings_show_them(
    repo: MatchRepository,
) -> None:
    deps = make_deps(repo)
    m = started(deps)
    other = twin(repo)
    repo.remember_messages(m.id, LIVE, m.turn, [[P1, 10], [P2, 11]])  # the turn's builders
    read = other.load(m.id).match
    repo.remember_messages(m.id, LIVE, m.turn, [[P1, 12]])
    other.save(read, expected_version=read.version, seal=order(read, "p1"))
    other.remember_messages(m.id, LIVE, m.turn, [[P2, 13], [P2, 11]])
    want = [[P1, 10], [P1, 12], [P2, 11], [P2, 13]]
    assert sorted(remembered_items(repo.load(m.id).match, LIVE, m.turn)) == want
    for listed in (repo.active_for_user(P1), repo.active_in_chat(CHAT)):
        (match,) = listed
        assert sorted(remembered_items(match, LIVE, m.turn)) == want


def test_a_new_turn_replaces_and_a_stale_turn_is_ignored(repo: MatchRepository) -> None:
    m = started(make_deps(repo))
    other = twin(repo)
    repo.remember_messages(m.id, LIVE, 1, [[P1, 10]])
    other.load(m.id)  # this instance saw turn 1's
    repo.remember_messages(m.id, LIVE, 2, [[P1, 20]])
    other.remember_messages(m.id, LIVE, 2, [[P2, 21]])  # saw turn 1: tries to replace first
    other.remember_messages(m.id, LIVE, 1, [[P2, 11]])  # a late receipt of turn 1
    stored = repo.load(m.id).match.remembered[LIVE]
    assert stored["turn"] == 2
    assert sorted(stored["items"]) == [[P1, 20], [P2, 21]]


def test_two_remembers_at_once_are_both_kept(repo: MatchRepository) -> None:
    m = started(make_deps(repo))
    others = [twin(repo), twin(repo)]
    for turn in (1, 2, 3):  # the first of each turn replaces the previous turn's
        gate = threading.Barrier(2)

        def remember(i: int, turn: int = turn, gate: threading.Barrier = gate) -> None:
            gate.wait()
            others[i].remember_messages(m.id, LIVE, turn, [[P1 + i, 100 * turn + i]])

        threads = [threading.Thread(target=remember, args=(i,)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        got = repo.load(m.id).match
        assert sorted(remembered_items(got, LIVE, turn)) == [[P1, 100 * turn], [P2, 100 * turn + 1]]


def test_ids_an_older_version_kept_in_the_document_are_still_read_and_merged(
    repo: MatchRepository,
) -> None:
    deps = make_deps(repo)
    m = started(deps)
    old = replace(m, ui={**m.ui, LIVE: {"turn": m.turn, "items": [[P1, 7]]}})
    m = repo.save(old, expected_version=m.version)  # as the document of an older version
    assert remembered_items(repo.load(m.id).match, LIVE, m.turn) == [[P1, 7]]
    after = usecases.remember_messages(deps, m.id, LIVE, m.turn, [[P2, 8]], known=m)
    assert remembered_items(after, LIVE, m.turn) == [[P1, 7], [P2, 8]]
    assert remembered_items(repo.load(m.id).match, LIVE, m.turn) == [[P1, 7], [P2, 8]]
    assert remembered_items(repo.load(m.id).match, LIVE, m.turn + 1) == []


def test_remembering_for_an_unknown_match_raises_not_found(repo: MatchRepository) -> None:
    with pytest.raises(NotFoundError):
        repo.remember_messages("nope", LIVE, 1, [[P1, 1]])
