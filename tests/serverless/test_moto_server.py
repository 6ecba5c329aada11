"""The load run's DynamoDB (moto's server, :mod:`tests.bench.load.moto_serial`) keeps what
DynamoDB promises: two conditional transactions on one item give one winner, and a failed
transaction puts back only what it touched.

The load run's "lost" turns (a seal answered 200, its receipt sent, then gone from the match)
were moto's, not ours: its threaded server runs requests at once, and a transaction whose
condition fails restores a copy of the whole table taken when it began, wiping the writes
other requests made meanwhile (two seals at once: the one that lost its race took the
winner's seal with it). The interleavings are forced here with events, not timing: A pauses
inside its transaction (after its condition check, before its write); B is sent and the test
goes on once B has either finished (moto's own server) or is waiting for A (the load run's).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from tests.bench.load import moto_serial

TABLE = "moto-server-race"
REGION = "eu-west-1"


class _SpyLock:
    """A lock that says when a second request has to wait for it."""

    def __init__(self, waiting: threading.Event) -> None:
        self.inner = threading.Lock()
        self.waiting = waiting

    def __enter__(self) -> None:
        if not self.inner.acquire(blocking=False):
            self.waiting.set()
            self.inner.acquire()

    def __exit__(self, *_: object) -> None:
        self.inner.release()


@pytest.fixture
def server(request: pytest.FixtureRequest) -> Iterator[Callable[[str], Any]]:
    """Start moto's server app in this process (``"plain"``: as ``python -m moto.server``
    runs it; ``"load run"``: as the load run does) and yield a client factory; the
    ``waiting`` event says B is blocked or done."""
    from moto.moto_server.werkzeug_app import (
        DomainDispatcherApplication,
        MotoRequestHandler,
        create_backend_app,
    )
    from werkzeug.serving import make_server

    waiting = threading.Event()
    undo: Callable[[], None] | None = None
    if request.param == "plain":
        wsgi: Any = DomainDispatcherApplication(create_backend_app)
    else:
        undos = [moto_serial.cheap_rollback(), moto_serial.fast_queries()]

        def undo() -> None:
            for u in undos:
                u()

        wsgi = moto_serial.app(_SpyLock(waiting))
    srv = make_server("127.0.0.1", 0, wsgi, True, request_handler=MotoRequestHandler)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{srv.server_address[1]}"

    def client(_name: str = "") -> Any:
        import boto3

        return boto3.client(
            "dynamodb",
            endpoint_url=url,
            region_name=REGION,
            aws_access_key_id="race",
            aws_secret_access_key="race",
        )

    client.waiting = waiting  # type: ignore[attr-defined]
    c = client()
    c.create_table(
        TableName=TABLE,
        KeySchema=[
            {"AttributeName": "PK", "KeyType": "HASH"},
            {"AttributeName": "SK", "KeyType": "RANGE"},
        ],
        AttributeDefinitions=[
            {"AttributeName": "PK", "AttributeType": "S"},
            {"AttributeName": "SK", "AttributeType": "S"},
        ],
        BillingMode="PAY_PER_REQUEST",
    )
    try:
        yield client
    finally:
        c.delete_table(TableName=TABLE)
        srv.shutdown()
        thread.join(10)
        if undo is not None:
            undo()


def _key(sk: str) -> dict[str, Any]:
    return {"PK": {"S": "MATCH#m"}, "SK": {"S": sk}}


def _put_if_version(who: str, version: int) -> dict[str, Any]:
    """A seal's save: the match item at ``version + 1``, conditional on ``version``."""
    return {
        "Put": {
            "TableName": TABLE,
            "Item": {**_key("CUR#"), "version": {"N": str(version + 1)}, "who": {"S": who}},
            "ConditionExpression": "version = :v",
            "ExpressionAttributeValues": {":v": {"N": str(version)}},
        }
    }


def _order(who: str) -> dict[str, Any]:
    return {"Put": {"TableName": TABLE, "Item": {**_key(f"CUR#ORDER#{who}"), "who": {"S": who}}}}


def _pause_a(sk: str, inside: threading.Event, go: threading.Event) -> Callable[[], None]:
    """A's transaction waits when it writes its item ``sk``: its order is written before the
    match item's condition is checked, the match item after."""
    from moto.dynamodb import models

    real = models.DynamoDBBackend.put_item

    def put_item(self: Any, table_name: str, item_attrs: dict[str, Any], *a: Any, **k: Any) -> Any:
        if item_attrs.get("who") == {"S": "A"} and item_attrs["SK"] == {"S": sk}:
            inside.set()
            assert go.wait(30)
        return real(self, table_name, item_attrs, *a, **k)

    models.DynamoDBBackend.put_item = put_item  # type: ignore[method-assign]

    def undo() -> None:
        models.DynamoDBBackend.put_item = real  # type: ignore[method-assign]

    return undo


def _race(client: Any, pause_at: str) -> tuple[bool, bool, dict[str, Any]]:
    """Two seals on version 1 (each its order, then the match at version 2): A pauses when it
    writes ``pause_at``; B runs; A goes on once B is done or waiting. Whether each succeeded,
    and the table after (sort key: the ``who`` of the item)."""
    from botocore.exceptions import ClientError

    c = client()
    c.put_item(TableName=TABLE, Item={**_key("CUR#"), "version": {"N": "1"}, "who": {"S": "-"}})
    inside, go = threading.Event(), threading.Event()
    undo = _pause_a(pause_at, inside, go)

    def run(who: str, done: threading.Event | None = None) -> bool:
        try:
            client().transact_write_items(TransactItems=[_order(who), _put_if_version(who, 1)])
            return True
        except ClientError:
            return False
        finally:
            if done is not None:
                done.set()

    try:
        with ThreadPoolExecutor(2) as pool:
            a = pool.submit(run, "A")
            assert inside.wait(30)
            b = pool.submit(run, "B", client.waiting)  # type: ignore[attr-defined]
            assert client.waiting.wait(30)  # type: ignore[attr-defined]
            go.set()
            a_ok, b_ok = a.result(30), b.result(30)
    finally:
        undo()
    items = c.scan(TableName=TABLE, ConsistentRead=True)["Items"]
    return a_ok, b_ok, {i["SK"]["S"]: i["who"]["S"] for i in items}


@pytest.mark.parametrize("server", ["plain"], indirect=True)
def test_moto_s_own_server_wipes_a_write_made_while_a_transaction_failed(server: Any) -> None:
    """Why the load run does not use ``python -m moto.server``: A pauses before its
    condition check; B saves; A's check fails, and A puts back the table as it was when A
    began: B was answered success and nothing of it is left (a seal with its receipt, gone)."""
    a_ok, b_ok, table = _race(server, "CUR#ORDER#A")
    assert (a_ok, b_ok) == (False, True)
    assert table == {"CUR#": "-"}


@pytest.mark.parametrize("server", ["load run"], indirect=True)
@pytest.mark.parametrize("pause_at", ["CUR#", "CUR#ORDER#A"])
def test_the_load_run_s_server_gives_two_seals_on_one_version_one_winner(
    server: Any, pause_at: str
) -> None:
    """The same race (A paused before its condition check, or at its write) on the load
    run's server: B waits for A, then its condition fails; A's seal is all there is, B wrote
    nothing and was told so."""
    a_ok, b_ok, table = _race(server, pause_at)
    assert (a_ok, b_ok) == (True, False)
    assert table == {"CUR#": "A", "CUR#ORDER#A": "A"}


@pytest.mark.parametrize("server", ["plain", "load run"], indirect=True)
def test_a_failed_transaction_puts_back_what_it_touched(server: Any) -> None:
    """A transaction whose last condition fails leaves its earlier writes undone (a new item
    gone, a replaced one as it was) and every other item as it was, in both servers."""
    c = server()
    c.put_item(TableName=TABLE, Item={**_key("CUR#"), "version": {"N": "5"}, "who": {"S": "m"}})
    c.put_item(TableName=TABLE, Item={**_key("CUR#ORDER#old"), "who": {"S": "before"}})
    c.put_item(TableName=TABLE, Item={**_key("TURN#1"), "who": {"S": "untouched"}})
    with pytest.raises(c.exceptions.TransactionCanceledException):
        c.transact_write_items(
            TransactItems=[
                _order("new"),
                {"Put": {"TableName": TABLE, "Item": {**_key("CUR#ORDER#old"), "who": {"S": "x"}}}},
                {"Delete": {"TableName": TABLE, "Key": _key("TURN#1")}},
                _put_if_version("late", 4),
            ]
        )
    items = c.scan(TableName=TABLE, ConsistentRead=True)["Items"]
    assert {i["SK"]["S"]: i["who"]["S"] for i in items} == {
        "CUR#": "m",
        "CUR#ORDER#old": "before",
        "TURN#1": "untouched",
    }


@pytest.mark.parametrize("server", ["plain"], indirect=True)
def test_the_load_run_s_queries_answer_as_moto_s_own(server: Any) -> None:
    """``fast_queries`` (a Query on the table's key reads that key's items only; all items
    listed sorted by plain values) gives the answers moto's own Query gives: key conditions,
    both directions, pages."""
    c = server()
    for pk in ("MATCH#a", "MATCH#b", "USER#1"):
        for sk in ("CUR#MATCH", "CUR#ORDER#p1", "CUR#ORDER#p2", "OWED#x", "TURN#000001#000"):
            c.put_item(TableName=TABLE, Item={"PK": {"S": pk}, "SK": {"S": sk}, "v": {"N": "1"}})

    def answers() -> list[Any]:
        out: list[Any] = []
        for pk, prefix, forward, limit in [
            ("MATCH#a", "CUR#", True, 0),
            ("MATCH#b", "CUR#ORDER#", False, 0),
            ("USER#1", "", True, 2),
            ("MATCH#zz", "", True, 0),
        ]:
            values: dict[str, Any] = {":p": {"S": pk}}
            condition = "PK = :p"
            if prefix:
                values[":s"] = {"S": prefix}
                condition += " AND begins_with(SK, :s)"
            kw: dict[str, Any] = {
                "TableName": TABLE,
                "KeyConditionExpression": condition,
                "ExpressionAttributeValues": values,
                "ScanIndexForward": forward,
            }
            if limit:
                kw["Limit"] = limit
            page = c.query(**kw)
            out.append((page["Items"], page.get("LastEvaluatedKey")))
            if "LastEvaluatedKey" in page:
                rest = c.query(**kw, ExclusiveStartKey=page["LastEvaluatedKey"])
                out.append((rest["Items"], rest.get("LastEvaluatedKey")))
        out.append(c.scan(TableName=TABLE)["Items"])
        return out

    own = answers()
    undo = moto_serial.fast_queries()
    try:
        assert answers() == own
    finally:
        undo()
