"""The load run's meter and bill (tests/bench/load): DynamoDB's item-size and request-unit
rules, the index writes of template.yaml's two indexes, the Bot API waits (calls in flight
together wait once), and a bill from counted usage."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from tests.bench.load.cost import (
    BOT_API_LATENCY,
    PRICES,
    TARGET_UTILIZATION,
    Usage,
    dollars,
    per_thousand,
    provisioned_dynamodb,
)
from tests.bench.load.meter import (
    Meter,
    MeteredClient,
    Waits,
    index_units,
    item_size,
    read_units,
    value_size,
    write_units,
)


def test_item_size_counts_names_and_values_as_dynamodb_does() -> None:
    assert value_size({"S": "héllo"}) == 6  # UTF-8 bytes
    assert value_size({"N": "12345"}) == 4  # 5 significant digits: 3 bytes + 1
    assert value_size({"B": b"\x00\x01\x02"}) == 3
    assert value_size({"BOOL": True}) == value_size({"NULL": True}) == 1
    assert value_size({"L": [{"S": "ab"}, {"N": "1"}]}) == 3 + (1 + 2) + (1 + 2)
    assert value_size({"M": {"k": {"S": "v"}}}) == 3 + 1 + 1 + 1
    assert item_size({"PK": {"S": "MATCH#m1"}, "v": {"N": "7"}}) == 2 + 8 + 1 + 2
    assert item_size(None) == 0


def test_units_round_up_per_kb_written_and_per_4kb_read() -> None:
    assert write_units(0) == write_units(1024) == 1
    assert write_units(1025) == 2
    assert read_units(4096, consistent=True) == 1.0
    assert read_units(4097, consistent=True) == 2.0
    assert read_units(100, consistent=False) == 0.5


def _match(gsi1: str | None, gsi2: str | None, doc: str = "x") -> dict[str, dict[str, str]]:
    item = {"PK": {"S": "MATCH#m"}, "SK": {"S": "CUR#MATCH"}, "doc": {"S": doc}}
    if gsi1:
        item |= {"GSI1PK": {"S": "DUE"}, "GSI1SK": {"S": gsi1}}
    if gsi2:
        item |= {"GSI2PK": {"S": "CHAT#1"}, "GSI2SK": {"S": gsi2}}
    return item


def test_index_writes_follow_the_projections() -> None:
    # Both indexes project keys only: a change that keeps the keys writes nothing there.
    assert index_units(_match("t1", "c"), _match("t1", "c", doc="y")) == 0
    assert index_units(_match("t1", "c"), _match("t1", "c")) == 0  # nothing changed
    assert index_units(_match(None, None), _match("t1", None)) == 1  # into GSI1
    assert index_units(_match("t1", None), _match("t2", None)) == 2  # moved in GSI1
    assert index_units(_match(None, "c"), _match(None, None)) == 1  # out of the chat index
    assert index_units(_match(None, "c"), _match(None, "d")) == 2  # moved in the chat index
    assert index_units({}, {"PK": {"S": "USER#1"}, "SK": {"S": "PREFS"}}) == 0


def test_a_bill_prices_every_line_from_the_counted_usage() -> None:
    u = Usage()
    report = {
        "cpu": 0.1,
        "dynamo": {"requests": {"GetItem": 2}, "rru": 1.0, "wru": 4.0},
        "bot": {"sendMessage": 1},
        "log_bytes": 1000,
    }
    u.add(report)
    u.add(report, http=False)  # a scheduled sweeper run: no API Gateway request
    bill = dollars(u)
    assert bill["api"] == pytest.approx(PRICES["http_api_request"])
    assert bill["dynamodb"] == pytest.approx(
        8 * PRICES["dynamodb_write_unit"] + 2 * PRICES["dynamodb_read_unit"]
    )
    assert bill["logs"] == pytest.approx(2000 / 1024**3 * PRICES["log_gb"])
    assert bill["lambda"] > 2 * PRICES["lambda_request"]  # requests plus GB-seconds
    assert per_thousand(u, 2)["api"] == pytest.approx(bill["api"] * 500)


def test_provisioned_capacity_prices_the_same_units_by_the_capacity_they_hold() -> None:
    # 3,600 write units spread over an hour hold one unit of write capacity at 100%
    # utilization; at the target utilization auto scaling holds 1/target of that.
    u = Usage(wru=3600.0, rru=7200.0)
    held_hours = 1 / TARGET_UTILIZATION
    expected = held_hours * (PRICES["dynamodb_wcu_hour"] + 2 * PRICES["dynamodb_rcu_hour"])
    assert provisioned_dynamodb(u) == pytest.approx(expected)
    # cheaper than on demand at this utilization, for writes and for reads
    assert provisioned_dynamodb(Usage(wru=1.0)) < dollars(Usage(wru=1.0))["dynamodb"]
    assert provisioned_dynamodb(Usage(rru=1.0)) < dollars(Usage(rru=1.0))["dynamodb"]


def test_calls_at_once_are_one_round_trip_and_calls_one_after_another_one_each() -> None:
    waits = Waits()

    async def call(seconds: float = 0.01) -> None:
        started = waits.start()
        try:
            await asyncio.sleep(seconds)
        finally:
            waits.end(started)

    async def chain() -> None:  # e.g. the status closed, then the reveal and its text
        for _ in range(3):
            await call()

    async def invocation() -> None:
        await call()
        await call()  # after the first ended: a round trip of its own
        await asyncio.gather(call(), call(), call())  # at once: one
        # A chain of three while four slower calls are in flight: as long as the chain (the
        # four do not make the chain's calls one round trip, nor add their own).
        await asyncio.gather(chain(), *(call(0.025) for _ in range(4)))

    asyncio.run(invocation())
    assert waits.take() == 2 + 1 + 3
    assert waits.take() == 0  # taken


def test_the_bill_prices_the_waits_not_the_calls() -> None:
    def bill(waits: int) -> float:
        u = Usage()
        report = {
            "cpu": 0.0,
            "dynamo": {"requests": {}, "rru": 0.0, "wru": 0.0},
            "bot": {"editMessageReplyMarkup": 4},
            "bot_waits": waits,
            "log_bytes": 0,
        }
        u.add(report)
        assert u.bot_calls == 4
        return u.billed_seconds()

    assert bill(1) == pytest.approx(BOT_API_LATENCY)  # four calls at once
    assert bill(4) == pytest.approx(4 * BOT_API_LATENCY)  # four one after another


def test_a_write_is_billed_alone_while_another_worker_writes_the_same_item(tmp_path: Any) -> None:
    """Two workers write one match item at once (two players seal in the same instant): with
    the workers' lock, the second waits until the first's item is read after its write, so
    its deadline-index move is billed to it once, not to the first write too."""
    key = {"PK": {"S": "MATCH#m"}, "SK": {"S": "CUR#MATCH"}}
    stored: dict[str, Any] = {**key, "v": {"N": "1"}, "GSI1PK": {"S": "DUE"}, "GSI1SK": {"S": "1"}}
    other_wrote = threading.Event()

    class Table:
        def __init__(self, write: Any) -> None:
            self.write = write

        def get_item(self, **_kw: Any) -> dict[str, Any]:
            return {"Item": dict(stored)}

        def update_item(self, **_kw: Any) -> dict[str, Any]:
            self.write()
            return {}

    def first_write() -> None:
        stored["v"] = {"N": "2"}
        other.start()  # the other worker's write, while this one is still in flight
        other_wrote.wait(0.5)  # with the lock it cannot happen now

    def second_write() -> None:
        stored["GSI1SK"] = {"S": "2"}  # the lock moves the match in the deadline index
        other_wrote.set()

    lock = str(tmp_path / "writes.lock")
    first_meter, second_meter = Meter(), Meter()
    first = MeteredClient(Table(first_write), Table(None), first_meter, "t", lock)
    second = MeteredClient(Table(second_write), Table(None), second_meter, "t", lock)
    other = threading.Thread(target=lambda: second.update_item(Key=key))
    first.update_item(Key=key)
    other.join(5)
    assert first_meter.wru == 1  # the item alone: no index move of the other's
    assert second_meter.wru == 1 + 2  # the item and its index entry moved (out and in)
