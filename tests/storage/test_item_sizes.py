"""Item sizes on DynamoDB (docs/storage.md, "Item sizes"): a write is billed per started KB of
the item (a transaction's twice), so a played turn's record and a crowded match item while
every order is sealed each stay under 1 KB, packed with the current preset dictionary
(``infra/docpack_v2.txt``); items packed with the older one (v1) still load."""

from __future__ import annotations

import hashlib
import json
import zlib
from dataclasses import replace
from typing import Any

import pytest

from engine import codec
from engine.beacon import QUICKNET
from engine.dice import seed_commitment
from engine.match import TurnRecord
from infra import docpack
from infra.dynamodb import DynamoRepository, _match_stored, _order_stored
from tests.bench.load.meter import item_size
from tests.support.docpack_dictionary import played

KB = 1024
PLAYS = [("pistol", 2), ("plans", 2), ("dragons", 2), ("dragons", 3), ("dragons", 4)]


def _as_production(record: TurnRecord) -> TurnRecord:
    """The record as production's would be: its beacon round is quicknet's (the tests'
    local network has another name; its signature is as long and as random)."""
    assert record.beacon is not None
    return replace(record, beacon=replace(record.beacon, network=QUICKNET.name))


def _match_item(dynamo_repo: DynamoRepository, match_id: str) -> dict[str, Any]:
    got = dynamo_repo.client.get_item(
        TableName=dynamo_repo.table,
        Key={"PK": {"S": f"MATCH#{match_id}"}, "SK": {"S": "CUR#MATCH"}},
        ConsistentRead=True,
    )
    item: dict[str, Any] = got["Item"]
    return item


@pytest.mark.parametrize(("ruleset", "players"), PLAYS)
def test_a_played_turns_record_is_one_write_unit_a_side(ruleset: str, players: int) -> None:
    """Each turn record of a played match (real orders, a beacon round, the lock message),
    as its item is put in the resolution's transaction - keys, attributes and the packed
    record - is under 1 KB: 2 write units in the transaction, not 4."""
    repo = DynamoRepository(client=None, table="t")
    turns = played(ruleset, players)
    assert len(turns) >= 1
    for turn in turns:
        record = _as_production(turn.record)
        items, _ = repo._record_items(record)
        (item,) = [i for i in items if i["type"]["S"] == "turn"]
        assert item_size(item) < KB, (turn.record.turn, item_size(item))
        stored = json.loads(docpack.unpack(bytes(item["docz"]["B"])))
        assert codec.record_from_stored(stored, {**_configs(items)}) == record


def _configs(items: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        i["SK"]["S"].removeprefix("TURN#CONF#"): json.loads(docpack.unpack(i["docz"]["B"]))
        for i in items
        if i["type"]["S"] == "config"
    }


def test_a_four_rider_match_item_with_every_order_sealed_fits_one_kb(
    dynamo_repo: DynamoRepository,
) -> None:
    """The largest match item of a turn: a 4-rider battle at its lock, all four orders in
    ``ord``, as the DynamoDB adapter wrote it (each write of it one unit)."""
    sizes: list[int] = []
    turns = played(
        "dragons",
        4,
        repo=dynamo_repo,
        at_lock=lambda mid: sizes.append(item_size(_match_item(dynamo_repo, mid))),
    )
    assert len(turns) == len(sizes) >= 2
    assert all(len(t.orders) == 4 for t in turns)
    assert max(sizes) < KB, sizes


@pytest.mark.parametrize(("ruleset", "players"), PLAYS)
def test_stored_documents_pack_to_a_fraction_of_plain_zlib(ruleset: str, players: int) -> None:
    """What keeps each write at one unit: a match document packs to under 40% of what plain
    zlib makes of it, a turn record to under 60%, a sealed order to less than plain zlib
    (their own ids, seeds, salts and signatures: nothing of them is in the dictionary)."""
    for turn in played(ruleset, players):
        match = turn.match
        texts = [
            (0.4, json.dumps(_match_stored(codec.match_to_doc(match)), separators=(",", ":"))),
            (0.6, json.dumps(codec.record_to_stored(turn.record)[0], separators=(",", ":"))),
            *((1.0, json.dumps(_order_stored(match.id, o))) for o in turn.orders),
        ]
        for share, text in texts:
            plain, packed = len(zlib.compress(text.encode(), 9)), len(docpack.pack(text))
            assert packed < share * plain, (packed, plain, text[:60])


def test_the_dictionaries_are_pinned_and_within_zlibs_window() -> None:
    """A dictionary's bytes may never change once items use it (each packed stream names it
    by its Adler-32); the current one leaves room in zlib's 32 KB window for a 12 KB
    document to reach all of it."""
    assert max(docpack.SHA256) == docpack.CURRENT
    docpack.dictionary.cache_clear()
    for version, digest in docpack.SHA256.items():
        data = docpack.dictionary(version)  # raises unless its bytes are the pinned ones
        assert hashlib.sha256(data).hexdigest() == digest
    assert len(docpack.dictionary(docpack.CURRENT)) <= 32 * KB - 12 * KB
    adlers = {zlib.adler32(docpack.dictionary(v)) for v in docpack.SHA256}
    assert len(adlers) == len(docpack.SHA256)  # a stream's DICTID names one dictionary


def test_a_stream_names_its_dictionary_and_any_of_them_unpacks() -> None:
    text = json.dumps({"schema": 1, "turn": 2, "events": [{"kind": "roll"}]})
    for version in docpack.SHA256:
        data = docpack.pack(text, version)
        assert int.from_bytes(data[2:6], "big") == zlib.adler32(docpack.dictionary(version))
        assert docpack.unpack(data) == text
    assert docpack.unpack(docpack.pack(text)) == text


def _repack(value: dict[str, Any], version: int) -> dict[str, Any]:
    return {"B": docpack.pack(docpack.unpack(bytes(value["B"])), version)}


def test_items_packed_with_v1_still_load(dynamo_repo: DynamoRepository) -> None:
    """A match item (document and sealed orders) and turn records packed with v1, as every
    item written before v2 was, load exactly as the same items packed with v2."""
    sealed: dict[str, Any] = {}
    turns = played(
        "dragons",
        3,
        repo=dynamo_repo,
        at_lock=lambda mid: sealed.update(item=_match_item(dynamo_repo, mid)),
    )
    mid = turns[0].match.id
    fresh = DynamoRepository(dynamo_repo.client, dynamo_repo.table)
    history, loaded = fresh.history(mid), fresh.load(mid)
    client, table = dynamo_repo.client, dynamo_repo.table
    pages = client.query(
        TableName=table,
        KeyConditionExpression="PK = :pk",
        ExpressionAttributeValues={":pk": {"S": f"MATCH#{mid}"}},
    )["Items"]
    for item in pages:
        if "docz" in item:
            item["docz"] = _repack(item["docz"], 1)
            client.put_item(TableName=table, Item=item)
    assert DynamoRepository(client, table).history(mid) == history
    assert DynamoRepository(client, table).load(mid) == loaded
    # The match item at the last lock, every order in ``ord``, packed with v1.
    item = sealed["item"]
    orders = {pid: _repack(v, 1) for pid, v in item["ord"]["M"].items()}
    old = item | {"docz": _repack(item["docz"], 1), "ord": {"M": orders}}
    assert old["docz"]["B"][2:6] == zlib.adler32(docpack.dictionary(1)).to_bytes(4, "big")
    client.put_item(TableName=table, Item=old)
    at_lock = DynamoRepository(client, table).load(mid)
    assert at_lock.match == turns[-1].match
    assert at_lock.orders == {o.pid: o for o in turns[-1].orders}


def test_the_match_items_document_leaves_out_the_commitment_its_seed_makes(
    dynamo_repo: DynamoRepository,
) -> None:
    """The commitment (SHA-256 hex of the turn's seed) is in every write of the match item:
    it is left out when the seed makes it, computed again on load; any other is kept."""
    played("plans", 2, 1, repo=dynamo_repo)
    (mid,) = {m.id for m in dynamo_repo.active_in_chat(-1_009_000_000)}
    doc = json.loads(docpack.unpack(bytes(_match_item(dynamo_repo, mid)["docz"]["B"])))
    assert "commitment" not in doc and doc["turn_seed"]
    fresh = DynamoRepository(dynamo_repo.client, dynamo_repo.table)  # another container
    match = fresh.load(mid).match
    assert match.commitment == seed_commitment(bytes.fromhex(doc["turn_seed"]))
    odd = replace(match, commitment="c" * 64)
    fresh.save(odd, expected_version=match.version)
    doc = json.loads(docpack.unpack(bytes(_match_item(fresh, mid)["docz"]["B"])))
    assert doc["commitment"] == "c" * 64
    assert DynamoRepository(fresh.client, fresh.table).load(mid).match.commitment == "c" * 64
