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

_GM = 100  # the scripted play's GM (tests.support.docpack_dictionary)

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
    """v1 streams name their dictionary by its Adler-32 in the zlib header (RFC 1950
    ``DICTID``); v2 ones by their first byte, then raw deflate (9 bytes less: no header, no
    trailer). ``unpack`` reads each, and plain zlib."""
    text = json.dumps({"schema": 1, "turn": 2, "events": [{"kind": "roll"}]})
    v1, v2 = docpack.pack(text, 1), docpack.pack(text, 2)
    assert int.from_bytes(v1[2:6], "big") == zlib.adler32(docpack.dictionary(1))
    assert v2[0] == 2 and len(v2) < len(v1)
    for data in (v1, v2, docpack.pack(text), zlib.compress(text.encode())):
        assert docpack.unpack(data) == text
    for version in docpack.SHA256:  # a version byte is never a zlib header (CM would be 8)
        assert version & 0x0F != 8


@pytest.mark.parametrize(
    "data",
    [b"", b"\x00", b"\x07abc", b"\x03\x00", docpack.pack('{"a": 1}')[:-2],
     docpack.pack('{"a": 1}') + b"\x00"],
    ids=["empty", "version 0", "unknown version", "unknown v3", "truncated", "trailing bytes"],
)  # fmt: skip
def test_what_is_not_a_packed_document_is_refused_never_misread(data: bytes) -> None:
    with pytest.raises(zlib.error):
        docpack.unpack(data)


def _repack(value: dict[str, Any], version: int) -> dict[str, Any]:
    return {"B": docpack.pack(docpack.unpack(bytes(value["B"])), version)}


def test_items_packed_with_v1_still_load(dynamo_repo: DynamoRepository) -> None:
    """A match item (the whole document, and sealed orders) and turn records packed with v1,
    as every item written before v2 was, load exactly as the same items packed with v2."""
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
        if item["SK"]["S"] == "CUR#MATCH":  # the whole document, as packed before v2
            whole = codec.match_to_doc(loaded.match) | {"version": loaded.match.version}
            item["docz"] = {"B": docpack.pack(json.dumps(whole), 1)}
        elif "docz" in item:
            item["docz"] = _repack(item["docz"], 1)
        client.put_item(TableName=table, Item=item)
    assert DynamoRepository(client, table).history(mid) == history
    assert DynamoRepository(client, table).load(mid) == loaded
    assert [m.id for m in DynamoRepository(client, table).active_for_user(_GM)] == [mid]
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


@pytest.fixture
def packing_restored() -> Any:
    """Whatever a test tells new items to be packed with is undone after it."""
    yield
    docpack.write_with(docpack.CURRENT)


def _dictid(value: dict[str, Any]) -> bytes:
    return bytes(value["B"])[2:6]


def test_a_stack_told_to_pack_with_v1_writes_what_an_older_version_reads(
    dynamo_repo: DynamoRepository, packing_restored: None
) -> None:
    """``SEKUNDANT_PACK_VERSION=1`` (docs/deploy.md, "Upgrading a stack that packs with v1"):
    the repository the settings make packs the match document and the sealed orders with
    v1, as a version before v2 reads them; and it still reads what v2 packed."""
    from infra.settings import Settings
    from infra.store import make_repository

    repo = make_repository(
        Settings(store="dynamodb", pack_version=1),
        client=dynamo_repo.client,
        table=dynamo_repo.table,
    )
    assert isinstance(repo, DynamoRepository)
    sealed: dict[str, Any] = {}
    turns = played(
        "pistol", 2, repo=repo, at_lock=lambda mid: sealed.update(item=_match_item(repo, mid))
    )
    v1 = zlib.adler32(docpack.dictionary(1)).to_bytes(4, "big")
    item = sealed["item"]
    assert _dictid(item["docz"]) == v1
    assert item["ord"]["M"] and all(_dictid(v) == v1 for v in item["ord"]["M"].values())
    mid = turns[0].match.id
    written = repo.load(mid)
    assert DynamoRepository(repo.client, repo.table).load(mid) == written
    docpack.write_with(2)  # the second deploy: the next save packs with v2, still read
    saved = repo.save(written.match, expected_version=written.match.version)
    assert bytes(_match_item(repo, mid)["docz"]["B"])[0] == 2
    assert DynamoRepository(repo.client, repo.table).load(mid).match == saved


def test_only_a_dictionary_there_is_can_be_the_one_items_are_packed_with() -> None:
    with pytest.raises(ValueError, match="no docpack dictionary v9"):
        docpack.write_with(9)
