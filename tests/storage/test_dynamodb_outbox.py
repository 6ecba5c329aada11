"""The outbox on DynamoDB (docs/storage.md, "The outbox"): owed messages are entries of the
match item (``ow``), written by the save that owes them in its own UpdateItem, claimed,
journaled and removed by 1-unit updates of their entry that never touch the match's version;
the sweeper finds a match with pending entries through the sparse ``OwedKeys`` index; items
of the older layout (``OWED#<key>``) still deliver and are cleaned up."""

from __future__ import annotations

import json
import logging
from dataclasses import replace
from typing import Any

import pytest

from engine import usecases
from engine.ports import Owed
from infra import docpack
from infra.dynamo_outbox import OWE, OWED_AT, OWED_INDEX, OWED_PK, entry_value
from infra.dynamodb import DynamoRepository
from tests.bench.load.meter import item_size
from tests.storage.aws import ClientSpy
from tests.storage.helpers import CHAT, P1, P2, make_deps, started


def _item(repo: DynamoRepository, match_id: str, sk: str = "CUR#MATCH") -> dict[str, Any]:
    got = repo.client.get_item(
        TableName=repo.table,
        Key={"PK": {"S": f"MATCH#{match_id}"}, "SK": {"S": sk}},
        ConsistentRead=True,
    )
    item: dict[str, Any] = got.get("Item", {})
    return item


def _indexed(repo: DynamoRepository) -> list[str]:
    """The match ids the owed index holds, whatever their time."""
    got = repo.client.query(
        TableName=repo.table,
        IndexName=OWED_INDEX,
        KeyConditionExpression="#q = :o",
        ExpressionAttributeNames={"#q": OWED_PK},
        ExpressionAttributeValues={":o": {"S": "O"}},
    )
    return [i["PK"]["S"].removeprefix("MATCH#") for i in got["Items"]]


def _delivered(repo: DynamoRepository, match_id: str, now: float = 10.0) -> None:
    for item in repo.owed(match_id):
        claimed = repo.claim_owed(match_id, item.key, now, 60.0)
        assert claimed is not None and repo.update_owed(replace(claimed, done=True))


def test_owed_entries_ride_on_the_save_and_each_delivery_write_is_one_update(
    dynamo_repo: DynamoRepository, dynamo_spy: ClientSpy, caplog: pytest.LogCaptureFixture
) -> None:
    m = started(make_deps(dynamo_repo))
    _delivered(dynamo_repo, m.id)  # the start's announcement
    assert _indexed(dynamo_repo) == [] and _item(dynamo_repo, m.id)[OWE]["M"] == {}
    owe = [Owed(m.id, k, "note", CHAT, 1, i, 5.0, data={"n": i}) for i, k in enumerate("abc")]
    dynamo_spy.calls.clear()
    saved = dynamo_repo.save(m, expected_version=m.version, owe=owe)
    assert dynamo_spy.calls == ["update_item"]  # no transaction, no item of their own
    stored = _item(dynamo_repo, m.id)
    assert set(stored[OWE]["M"]) == {"a", "b", "c"} and _indexed(dynamo_repo) == [m.id]
    assert _item(dynamo_repo, m.id, "OWED#a") == {}
    assert dynamo_repo.owed(m.id) == owe

    dynamo_spy.calls.clear()
    a = dynamo_repo.claim_owed(m.id, "a", 10.0, 60.0)
    assert a is not None and a.token and a.lease == 70.0 and a.data == {"n": 0}
    assert dynamo_repo.update_owed(replace(a, sent={"x@1#0": [CHAT, 7, 9]}))  # the journal
    assert not dynamo_repo.update_owed(replace(a, token="not-mine", done=True))
    assert dynamo_repo.update_owed(replace(a, done=True))
    assert dynamo_spy.calls == ["update_item"] * 4  # claim, journal, refused, done: no reads
    b = dynamo_repo.claim_owed(m.id, "b", 10.0, 60.0)
    assert b is not None
    with caplog.at_level(logging.ERROR, "sekundant.storage"):
        assert dynamo_repo.update_owed(replace(b, done=True, error="Forbidden: blocked"))
    assert "given up" in caplog.text and "Forbidden: blocked" in caplog.text  # the operator's
    stored = _item(dynamo_repo, m.id)
    assert set(stored[OWE]["M"]) == {"c"} and _indexed(dynamo_repo) == [m.id]
    assert int(stored["version"]["N"]) == saved.version  # deliveries leave the version be
    assert [o.key for o in dynamo_repo.owed(m.id)] == ["c"]
    _delivered(dynamo_repo, m.id)
    stored = _item(dynamo_repo, m.id)
    assert stored[OWE]["M"] == {} and OWED_PK not in stored and OWED_AT not in stored
    assert _indexed(dynamo_repo) == [] and dynamo_repo.owed_due(10**10) == []
    assert dynamo_repo.load(m.id).match == saved


def test_a_delivery_and_a_save_of_the_match_never_conflict(
    dynamo_repo: DynamoRepository,
) -> None:
    """A save SETs only the entries it owes: a delivery under way keeps its lease and journal
    (and is replaced only by an entry of its own key, as before)."""
    deps = make_deps(dynamo_repo)
    m = started(deps)
    _delivered(dynamo_repo, m.id)
    m = dynamo_repo.save(
        m, expected_version=m.version, owe=[Owed(m.id, "a", "note", CHAT, 1, 1, 0)]
    )
    loaded = dynamo_repo.load(m.id).match
    a = dynamo_repo.claim_owed(m.id, "a", 10.0, 60.0)
    assert a is not None and dynamo_repo.update_owed(replace(a, sent={"1": [CHAT, 1, 2]}))
    usecases.seal_order(deps, m.id, P1, "p1", {"call": 1})  # the match moves on meanwhile
    later = Owed(m.id, "b", "note", CHAT, 1, 2, 0)
    m = dynamo_repo.load(m.id).match
    m = dynamo_repo.save(m, expected_version=m.version, owe=[later])
    assert m.version == loaded.version + 2
    (first, second) = dynamo_repo.owed(m.id)
    assert first.token == a.token and first.sent == {"1": [CHAT, 1, 2]} and second == later
    assert dynamo_repo.update_owed(replace(a, sent={"1": [CHAT, 1, 2], "2": [CHAT, 3, 4]}))
    again = Owed(m.id, "a", "note", CHAT, 2, 3, 0)  # owed again: replaces it, lease and all
    m = dynamo_repo.save(m, expected_version=m.version, owe=[again])
    assert not dynamo_repo.update_owed(replace(a, done=True))
    assert dynamo_repo.owed(m.id) == [later, again]


def test_the_sweeper_finds_what_a_killed_invocation_left_and_what_backs_off(
    dynamo_repo: DynamoRepository,
) -> None:
    deps = make_deps(dynamo_repo)
    m = started(deps)
    _delivered(dynamo_repo, m.id)
    usecases.seal_order(deps, m.id, P1, "p1", {"call": 1})
    assert dynamo_repo.owed_due(10**10) == []
    usecases.seal_order(deps, m.id, P2, "p2", {"call": 2})  # resolves; the Lambda dies here
    other = DynamoRepository(dynamo_repo.client, dynamo_repo.table)  # the sweeper's container
    assert other.owed_due(20.0) == [m.id]
    (item,) = other.owed(m.id)
    assert item.kind == "resolved"
    claimed = other.claim_owed(m.id, item.key, 20.0, 60.0)
    assert claimed is not None
    # Telegram answers 429: backing off until 50, the match's only entry, so the index too.
    assert other.update_owed(replace(claimed, attempts=1, next_at=50.0, lease=0.0, error="429"))
    assert other.owed_due(49.0) == [] and other.owed_due(50.0) == [m.id]
    assert other.claim_owed(m.id, item.key, 49.0, 60.0) is None
    again = other.claim_owed(m.id, item.key, 50.0, 60.0)
    assert again is not None and again.attempts == 1 and again.error == "429"
    assert other.update_owed(replace(again, done=True))
    assert other.owed_due(10**10) == [] and _indexed(other) == []


def test_the_last_entry_delivered_by_a_deliverer_that_saw_others_still_leaves_the_index(
    dynamo_repo: DynamoRepository,
) -> None:
    m = started(make_deps(dynamo_repo))
    _delivered(dynamo_repo, m.id)
    owe = [Owed(m.id, k, "note", CHAT, 1, i, 0) for i, k in enumerate("ab")]
    dynamo_repo.save(m, expected_version=m.version, owe=owe)
    a = dynamo_repo.claim_owed(m.id, "a", 10.0, 60.0)
    b = dynamo_repo.claim_owed(m.id, "b", 10.0, 60.0)
    assert a is not None and b is not None
    assert dynamo_repo.update_owed(replace(b, done=True))
    assert dynamo_repo.update_owed(replace(a, done=True))
    assert _indexed(dynamo_repo) == [] and OWED_PK not in _item(dynamo_repo, m.id)


def _legacy(repo: DynamoRepository, item: Owed) -> None:
    """An owed item as the layout before stored it (its own item, GSI1 ``OWED``)."""
    repo.client.put_item(
        TableName=repo.table,
        Item={
            "PK": {"S": f"MATCH#{item.match_id}"},
            "SK": {"S": f"OWED#{item.key}"},
            "type": {"S": "owed"},
            "doc": {"S": json.dumps(item.to_doc())},
            "token": {"S": item.token},
            "GSI1PK": {"S": "OWED"},
            "GSI1SK": {"S": f"{item.next_at:017.6f}#{item.match_id}#{item.key}"},
        },
    )


def test_items_of_the_older_layout_still_deliver_and_are_cleaned_up(
    dynamo_repo: DynamoRepository,
) -> None:
    """A match in flight at deploy time: its OWED# items are listed with the new entries (in
    ``seq`` order), found by the sweeper, claimed, journaled and deleted once delivered; one
    owed again since (its key now an entry) is deleted unsent."""
    m = started(make_deps(dynamo_repo))
    _delivered(dynamo_repo, m.id)
    old = Owed(m.id, "resolved:1", "resolved", CHAT, 1, 1, 3.0, data={"status": 5})
    shadowed = Owed(m.id, "reminder:1", "reminder", CHAT, 1, 2, 3.0)
    _legacy(dynamo_repo, old)
    _legacy(dynamo_repo, shadowed)
    fresh = DynamoRepository(dynamo_repo.client, dynamo_repo.table)  # the new code's container
    assert fresh.owed_due(10.0) == [m.id]
    new = Owed(m.id, "reminder:1", "reminder", CHAT, 1, 3, 4.0)
    mine = replace(new, key="lock:2", seq=4)
    m = fresh.save(fresh.load(m.id).match, expected_version=m.version, owe=[new, mine])
    assert fresh.owed(m.id) == [old, new, mine]
    assert _item(fresh, m.id, "OWED#reminder:1") == {}  # the older copy of a key owed again
    claimed = fresh.claim_owed(m.id, "resolved:1", 10.0, 60.0)
    assert claimed is not None and claimed.token
    assert fresh.claim_owed(m.id, "resolved:1", 20.0, 60.0) is None  # leased
    assert fresh.update_owed(replace(claimed, sent={"status:1@-1001#0": [CHAT, 8, 9]}))
    assert json.loads(_item(fresh, m.id, "OWED#resolved:1")["doc"]["S"])["sent"]
    assert fresh.update_owed(replace(claimed, done=True))
    assert _item(fresh, m.id, "OWED#resolved:1") == {}
    assert [o.key for o in fresh.owed(m.id)] == ["reminder:1", "lock:2"]
    _delivered(fresh, m.id)
    assert fresh.owed_due(10**10) == [] and fresh.owed(m.id) == []


def test_entries_are_small_and_a_journal_is_packed_when_that_is_shorter() -> None:
    """Every write of the match item is billed by its size, a pending entry's too: a lock's
    entry is a few dozen bytes (in the shorter of plain JSON and packed), a journal of four
    messages packs to under half its JSON."""
    lock = Owed("m1234567", "lock:2", "lock", -1009000000, 2, 48, 1796190662.123456)
    value = entry_value(lock)
    assert item_size({"lock:2": value}) < 70
    fields = [lock.kind, lock.chat_id, lock.turn, lock.seq, lock.created_at, {}]
    text = json.dumps(fields, separators=(",", ":"))
    d = value["M"]["d"]
    stored = len(d["B"]) if "B" in d else len(d["S"].encode())
    assert stored == min(len(text.encode()), len(docpack.pack(text)))
    sent = {
        f"{what}@{chat}#0": [chat, 1040 + i, 1796190663]
        for i, (what, chat) in enumerate(
            [("reveal:2", -1009000000), ("status:3", -1009000000), ("builder:3", 40000010),
             ("builder:3", 40000000)]
        )
    }  # fmt: skip
    journal = entry_value(replace(lock, sent=sent))["M"]["s"]
    assert "B" in journal and len(journal["B"]) * 2 < len(json.dumps(sent, separators=(",", ":")))
    assert json.loads(docpack.unpack(journal["B"])) == sent


def test_a_delivered_lock_leaves_the_match_in_the_index_for_the_reveal_owed_next(
    dynamo_repo: DynamoRepository, dynamo_spy: ClientSpy
) -> None:
    """The lock message's delivery is followed within seconds by the resolution, whose save
    owes the reveal: the locked match stays in the index between them instead of being removed
    and written again (two index writes a turn), and no write tries to take it out (a refused
    conditional write is billed too)."""
    m = started(make_deps(dynamo_repo))
    _delivered(dynamo_repo, m.id)
    lock = Owed(m.id, "lock:1", "lock", CHAT, 1, 100, 5.0)
    m = dynamo_repo.save(replace(m, locked_at=6.0, frozen_at=6.0), expected_version=m.version,
                         owe=[lock])  # fmt: skip
    dynamo_spy.calls.clear()
    _delivered(dynamo_repo, m.id)
    assert dynamo_spy.calls.count("update_item") == 2  # the claim and the end, no other write
    before = _item(dynamo_repo, m.id)
    assert before[OWE]["M"] == {} and _indexed(dynamo_repo) == [m.id]
    dynamo_spy.calls.clear()
    assert DynamoRepository(dynamo_repo.client, dynamo_repo.table).owed(m.id) == []
    assert dynamo_spy.calls == ["query"] and _indexed(dynamo_repo) == [m.id]  # a sweep's read
    reveal = Owed(m.id, "resolved:1", "resolved", CHAT, 1, 101, 6.0)
    m = dynamo_repo.save(replace(m, turn=2, locked_at=None, frozen_at=None),
                         expected_version=m.version, owe=[reveal])  # fmt: skip
    after = _item(dynamo_repo, m.id)
    assert (after[OWED_PK], after[OWED_AT]) == (before[OWED_PK], before[OWED_AT])  # unmoved
    _delivered(dynamo_repo, m.id)
    assert _indexed(dynamo_repo) == []


def test_a_locked_match_is_found_through_the_outbox_index_and_leaves_the_deadline_index_alone(
    dynamo_repo: DynamoRepository,
) -> None:
    """A locked turn waits seconds for its beacon round. Its saves leave the deadline index's
    keys as they are (two index writes a turn fewer: the lock's entry, then its removal at the
    resolution); the sweeper finds it through the outbox's index instead, where the lock's save
    put it and where nothing takes it out while it is locked: not another container's read
    that finds no pending entry, not the end of its last entry, not a save that owes nothing.
    Parked, it is not listed; unlocked, it is due by its deadline alone (none here)."""
    deps = make_deps(dynamo_repo)
    m = started(deps)
    _delivered(dynamo_repo, m.id)
    due_keys = {k: v for k, v in _item(dynamo_repo, m.id).items() if k.startswith("GSI1")}
    assert due_keys == {}  # no deadline: the deadline index never lists it
    far = 10.0**9
    assert dynamo_repo.due(far) == [] and _indexed(dynamo_repo) == []
    lock = Owed(m.id, "lock:1", "lock", CHAT, 1, 100, 5.0)
    locked = replace(m, locked_at=6.0, frozen_at=6.0, lock_reason="all_sealed")
    m = dynamo_repo.save(locked, expected_version=m.version, owe=[lock])
    item = _item(dynamo_repo, m.id)
    assert {k: v for k, v in item.items() if k.startswith("GSI1")} == due_keys
    assert dynamo_repo.due(far) == [m.id]
    _delivered(dynamo_repo, m.id)  # the lock message: its entry goes, the match stays
    sweeper = DynamoRepository(dynamo_repo.client, dynamo_repo.table)
    assert sweeper.owed(m.id) == [] and _indexed(dynamo_repo) == [m.id]
    assert sweeper.due(far) == [m.id]
    # A save that owes nothing (the lock message's date) keeps it there; one of a match taken
    # out meanwhile (an item written before this layout) puts it back.
    m = dynamo_repo.save(replace(m, lock_message=77), expected_version=m.version)
    assert _indexed(dynamo_repo) == [m.id]
    dynamo_repo.client.update_item(
        TableName=dynamo_repo.table,
        Key={"PK": {"S": f"MATCH#{m.id}"}, "SK": {"S": "CUR#MATCH"}},
        UpdateExpression="REMOVE #q, #a",
        ExpressionAttributeNames={"#q": OWED_PK, "#a": OWED_AT},
    )
    m = dynamo_repo.save(replace(m, lock_message=78), expected_version=m.version)
    assert _indexed(dynamo_repo) == [m.id] and sweeper.due(far) == [m.id]
    # A receipt owed and delivered while locked, the match's only entry: still listed.
    receipt = Owed(m.id, "receipt:1", "receipt", P1, 1, 101, 7.0)
    m = dynamo_repo.save(m, expected_version=m.version, owe=[receipt])
    _delivered(dynamo_repo, m.id)
    assert _indexed(dynamo_repo) == [m.id] and sweeper.due(far) == [m.id]
    # Resolved: no longer locked, due by its deadline alone; the reveal's end takes it out.
    reveal = Owed(m.id, "resolved:1", "resolved", CHAT, 1, 102, 8.0)
    opened = replace(m, turn=2, locked_at=None, frozen_at=None, lock_reason=None, lock_message=None)
    m = dynamo_repo.save(opened, expected_version=m.version, owe=[reveal])
    assert "lk" not in _item(dynamo_repo, m.id) and sweeper.due(far) == []
    _delivered(dynamo_repo, m.id)
    assert _indexed(dynamo_repo) == []
    # Parked while locked (its resolution keeps failing): not listed.
    m = dynamo_repo.save(replace(m, locked_at=9.0, frozen_at=9.0), expected_version=m.version)
    assert sweeper.due(far) == [m.id]
    assert dynamo_repo.note_failure(m.id, "parked: ValueError", park_after=1)
    assert m.id not in sweeper.due(far)


def test_the_delivery_right_after_an_owing_save_lists_what_it_wrote_without_a_read(
    dynamo_repo: DynamoRepository, dynamo_spy: ClientSpy
) -> None:
    """The save's caller delivers at once: when the outbox was empty before the save (and the
    match has no item of the older layout, which one read showed), what the save wrote is the
    list, as a read would give it; else ``owed`` reads."""
    m = started(make_deps(dynamo_repo))
    _delivered(dynamo_repo, m.id)  # (its read shows no older-layout item)
    m = dynamo_repo.load(m.id).match  # what a use case saves it loaded: its outbox is empty
    owe = [
        Owed(m.id, k, "note", CHAT, 1, 9 - i, 5.0, data={"t": (1, 2)}) for i, k in enumerate("ab")
    ]
    m = dynamo_repo.save(m, expected_version=m.version, owe=owe)
    dynamo_spy.calls.clear()
    listed = dynamo_repo.owed(m.id)
    assert dynamo_spy.calls == []
    other = DynamoRepository(dynamo_repo.client, dynamo_repo.table)
    assert listed == other.owed(m.id) == sorted(dynamo_repo.owed(m.id), key=lambda o: o.seq)
    assert [o.key for o in listed] == ["b", "a"] and listed[0].data == {"t": [1, 2]}
    dynamo_spy.calls.clear()
    m = dynamo_repo.save(
        m, expected_version=m.version, owe=[Owed(m.id, "c", "note", CHAT, 1, 10, 6)]
    )
    assert [o.key for o in dynamo_repo.owed(m.id)] == ["b", "a", "c"]  # others pending: read
    assert dynamo_spy.calls == ["update_item", "query"]
    # A save that owes nothing between the owing save and its delivery leaves the list as is.
    _delivered(dynamo_repo, m.id)
    m = dynamo_repo.load(m.id).match
    m = dynamo_repo.save(
        m, expected_version=m.version, owe=[Owed(m.id, "d", "note", CHAT, 1, 11, 7)]
    )
    m = dynamo_repo.save(m, expected_version=m.version)
    dynamo_spy.calls.clear()
    assert [o.key for o in dynamo_repo.owed(m.id)] == ["d"] and dynamo_spy.calls == []


def test_a_match_item_written_before_the_outbox_moved_in_gets_its_map_with_the_first_owing_save(
    dynamo_repo: DynamoRepository,
) -> None:
    m = started(make_deps(dynamo_repo))
    _delivered(dynamo_repo, m.id)
    dynamo_repo.client.update_item(  # as stored before: no ``ow`` at all
        TableName=dynamo_repo.table,
        Key={"PK": {"S": f"MATCH#{m.id}"}, "SK": {"S": "CUR#MATCH"}},
        UpdateExpression="REMOVE ow",
    )
    fresh = DynamoRepository(dynamo_repo.client, dynamo_repo.table)  # a container of the new code
    assert fresh.owed(m.id) == [] and fresh.claim_owed(m.id, "a", 10.0, 60.0) is None
    loaded = fresh.load(m.id).match
    owed = Owed(m.id, "a", "note", CHAT, 1, 1, 0)
    fresh.save(loaded, expected_version=loaded.version, owe=[owed])
    assert set(_item(fresh, m.id)[OWE]["M"]) == {"a"} and fresh.owed(m.id) == [owed]
    _delivered(fresh, m.id)
    assert fresh.owed(m.id) == [] and _indexed(fresh) == []
