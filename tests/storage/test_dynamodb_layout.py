"""The DynamoDB match item as stored (docs/storage.md, "Items" and "Item sizes"): sealed orders
inside it (``ord``), the document packed with a preset dictionary (``infra.docpack``), and
matches written in the older layout (order items, plain zlib) still read, sealed and resolved."""

from __future__ import annotations

import json
import zlib
from dataclasses import replace
from typing import Any

import pytest

from engine import codec, usecases
from infra import docpack
from infra.dynamodb import DynamoRepository
from tests.bench.load.meter import item_size
from tests.storage.aws import ClientSpy
from tests.storage.helpers import CHAT, P1, P2, make_deps, order, started


def _item(repo: DynamoRepository, match_id: str, sk: str = "CUR#MATCH") -> dict[str, Any] | None:
    got = repo.client.get_item(
        TableName=repo.table,
        Key={"PK": {"S": f"MATCH#{match_id}"}, "SK": {"S": sk}},
        ConsistentRead=True,
    )
    item: dict[str, Any] | None = got.get("Item")
    return item


def test_sealed_orders_live_in_the_match_item_and_leave_it_with_the_resolution(
    dynamo_repo: DynamoRepository,
) -> None:
    deps = make_deps(dynamo_repo)
    m = started(deps)
    usecases.seal_order(deps, m.id, P1, "p1", {"call": 6})
    item = _item(dynamo_repo, m.id)
    assert item is not None and set(item["ord"]["M"]) == {"p1"}
    assert _item(dynamo_repo, m.id, "CUR#ORDER#p1") is None  # no order item of its own
    record = usecases.seal_order(deps, m.id, P2, "p2", {"call": 1}).record
    assert record is not None and {o.pid for o in record.orders} == {"p1", "p2"}
    item = _item(dynamo_repo, m.id)
    assert item is not None and item["ord"]["M"] == {}
    assert dynamo_repo.load(m.id).orders == {}


def test_a_packed_match_item_is_one_write_unit(dynamo_repo: DynamoRepository) -> None:
    """The match document packed with the dictionary: a running match with a sealed order
    stays under 1 KB, where plain zlib made it about 1.05 KB for a pistol match (two units a
    save). The coin match here is small either way; the pistol figure is in make bench."""
    deps = make_deps(dynamo_repo)
    m = started(deps)
    usecases.seal_order(deps, m.id, P1, "p1", {"call": 6})
    item = _item(dynamo_repo, m.id)
    assert item is not None
    text = docpack.unpack(bytes(item["docz"]["B"]))
    assert json.loads(text)["id"] == m.id
    assert len(item["docz"]["B"]) < len(zlib.compress(text.encode(), 9))
    assert item_size(item) <= 1024


def test_listings_never_read_the_sealed_orders(
    dynamo_repo: DynamoRepository, dynamo_spy: ClientSpy
) -> None:
    """Only ``load`` reads ``ord``: the chat's and the user's listings project it away."""
    deps = make_deps(dynamo_repo)
    m = started(deps)
    usecases.seal_order(deps, m.id, P1, "p1", {"call": 6, "note": "secret-4711"})
    seen: list[dict[str, Any]] = []
    real = dynamo_spy.batch_get_item

    def spy(**kw: Any) -> Any:
        out = real(**kw)
        seen.extend(i for items in out.get("Responses", {}).values() for i in items)
        return out

    dynamo_spy.batch_get_item = spy  # type: ignore[method-assign]
    assert [x.id for x in dynamo_repo.active_in_chat(CHAT)] == [m.id]
    assert [x.id for x in dynamo_repo.active_for_user(P2)] == [m.id]
    assert len(seen) == 2 and all("ord" not in i for i in seen)


def _to_old_layout(repo: DynamoRepository, match_id: str) -> None:
    """Rewrite a match as stored before orders moved into its item: the orders as items of
    their own, the document in plain zlib, no ``ord``."""
    item = _item(repo, match_id)
    assert item is not None
    orders = repo.load(match_id).orders
    for packed in item["ord"]["M"].values():
        doc = json.loads(docpack.unpack(bytes(packed["B"])))
        doc["fingerprint"] = orders[doc["pid"]].fingerprint  # order items always had it
        repo.client.put_item(
            TableName=repo.table,
            Item={
                "PK": item["PK"],
                "SK": {"S": f"CUR#ORDER#{doc['pid']}"},
                "type": {"S": "order"},
                "turn": {"N": str(doc["turn"])},
                "doc": {"S": json.dumps(doc)},
            },
        )
    del item["ord"]
    item["docz"] = {"B": zlib.compress(docpack.unpack(bytes(item["docz"]["B"])).encode(), 6)}
    repo.client.put_item(TableName=repo.table, Item=item)


@pytest.mark.parametrize("end", ["resolve", "withdraw"])
def test_a_match_stored_in_the_old_layout_is_read_sealed_and_resolved(
    dynamo_repo: DynamoRepository, end: str
) -> None:
    deps = make_deps(dynamo_repo)
    m = started(deps)
    first = usecases.seal_order(deps, m.id, P1, "p1", {"call": 6}).order
    _to_old_layout(dynamo_repo, m.id)
    fresh = DynamoRepository(dynamo_repo.client, dynamo_repo.table)  # another container
    deps = make_deps(fresh)
    assert fresh.load(m.id).orders == {"p1": first}
    if end == "withdraw":
        usecases.withdraw_order(deps, m.id, P1, "p1")
        assert fresh.load(m.id).orders == {}
        assert _item(fresh, m.id, "CUR#ORDER#p1") is None
        return
    record = usecases.seal_order(deps, m.id, P2, "p2", {"call": 1}).record
    assert record is not None
    assert {o.pid: o for o in record.orders}["p1"] == first
    assert _item(fresh, m.id, "CUR#ORDER#p1") is None  # the old item went with it
    assert fresh.load(m.id).orders == {}
    after = _item(fresh, m.id)
    assert after is not None and after["ord"]["M"] == {}
    assert codec.match_from_doc(json.loads(docpack.unpack(bytes(after["docz"]["B"])))).turn == 2


def test_an_order_resealed_in_the_old_layout_replaces_its_item(
    dynamo_repo: DynamoRepository,
) -> None:
    deps = make_deps(dynamo_repo)
    m = started(deps)
    usecases.seal_order(deps, m.id, P1, "p1", {"call": 6})
    _to_old_layout(dynamo_repo, m.id)
    loaded = dynamo_repo.load(m.id).match
    new = order(loaded, "p1", move="charge")
    dynamo_repo.save(loaded, expected_version=loaded.version, seal=new)
    assert _item(dynamo_repo, m.id, "CUR#ORDER#p1") is None
    assert dynamo_repo.load(m.id).orders == {"p1": new}


def test_the_dictionary_is_frozen_and_plain_zlib_still_reads() -> None:
    assert docpack.unpack(zlib.compress(b'{"a": 1}')) == '{"a": 1}'
    assert docpack.unpack(docpack.pack('{"b": 2}')) == '{"b": 2}'
    foreign = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS, 9, zlib.Z_DEFAULT_STRATEGY, b"x")
    data = foreign.compress(b"{}") + foreign.flush()
    with pytest.raises(zlib.error):
        docpack.unpack(data)  # a dictionary we do not have: unreadable, never misread
    docpack.dictionary.cache_clear()
    assert docpack.dictionary(1)  # its bytes are the pinned ones (it raises otherwise)


def test_a_sealed_orders_fingerprint_is_not_stored_when_its_fields_make_it(
    dynamo_repo: DynamoRepository,
) -> None:
    """Every write of the match item is billed per started KB: a sealed order in ``ord``
    leaves out the fingerprint its own fields make (~35 bytes packed each), and a load gives
    back exactly the order sealed; a fingerprint made otherwise is kept as it is."""
    deps = make_deps(dynamo_repo)
    m = started(deps)
    sealed = usecases.seal_order(deps, m.id, P1, "p1", {"call": 6}).order
    item = _item(dynamo_repo, m.id)
    assert item is not None
    doc = json.loads(docpack.unpack(bytes(item["ord"]["M"]["p1"]["B"])))
    assert "fingerprint" not in doc and doc["salt"] == sealed.salt
    assert dynamo_repo.load(m.id).orders == {"p1": sealed}
    loaded = dynamo_repo.load(m.id).match
    odd = replace(order(loaded, "p2"), fingerprint="f" * 64)
    dynamo_repo.save(loaded, expected_version=loaded.version, seal=odd)
    assert dynamo_repo.load(m.id).orders["p2"] == odd
