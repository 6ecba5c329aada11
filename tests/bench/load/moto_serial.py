"""moto's server with one request at a time and transactions that roll back only what they
touched: ``python -m tests.bench.load.moto_serial PORT``.

DynamoDB applies every request atomically (a transaction all or nothing, isolated from the
others). moto's backend does not: its ``TransactWriteItems`` checks, then writes, with no lock,
and a transaction whose condition fails puts back a copy of the *whole table* taken when it
began, wiping every write other requests made meanwhile, in any match. ``python -m moto.server``
runs requests in threads, so under the load run a seal that was saved and answered 200 could
vanish when another match's conflicting transaction rolled back (the "lost" turns of the first
load runs). Here each request runs alone, as the in-process tests already do
(``tests/serverless/test_webhook.py``, ``Serialized``), so the races left are our code's.

That whole-table copy is also what kept the 200-match run from finishing: every transaction
deep-copied the table (0.5 s at 6,000 items, and the run writes tens of thousands), one request
at a time. :func:`cheap_rollback` keeps moto's transaction and copies only the items it touches,
putting them back when it fails.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterable
from typing import Any

Wsgi = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


def serialized(app: Wsgi, lock: Any = None) -> Wsgi:
    """``app`` with one request at a time: the call and its whole response under one lock."""
    lock = threading.Lock() if lock is None else lock

    def call(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        with lock:
            body = app(environ, start_response)
            try:
                return [b"".join(body)]
            finally:
                close = getattr(body, "close", None)
                if close is not None:
                    close()

    return call


def cheap_rollback() -> Callable[[], None]:
    """Patch moto's ``TransactWriteItems`` to snapshot the items it touches instead of the
    whole table (correct only with one request at a time: :func:`serialized`); returns what
    undoes the patch."""
    import copy

    from moto.dynamodb import models
    from moto.dynamodb.models.table import Table

    original = models.DynamoDBBackend.transact_write_items

    class _NoTableCopy:
        @staticmethod
        def deepcopy(value: Any, memo: Any = None) -> Any:
            return value if isinstance(value, Table) else copy.deepcopy(value, memo)

    def transact_write_items(self: Any, transact_items: list[dict[str, Any]]) -> None:
        before = [snap for entry in transact_items if (snap := _snapshot(self, entry))]
        try:
            original(self, transact_items)
        except BaseException:
            for table_name, key, attrs in reversed(before):
                if attrs is not None:
                    self.put_item(table_name, attrs)
                elif self.get_item(table_name, key) is not None:
                    self.delete_item(table_name, key)
            raise

    def undo() -> None:
        models.copy = copy  # type: ignore[assignment]
        models.DynamoDBBackend.transact_write_items = original  # type: ignore[method-assign]

    models.copy = _NoTableCopy  # type: ignore[assignment]
    models.DynamoDBBackend.transact_write_items = transact_write_items  # type: ignore[method-assign]
    return undo


def fast_queries() -> Callable[[], None]:
    """Patch moto's table so a Query on the table's own key reads that key's items only, and
    listing all items sorts by plain key values (correct with one request at a time:
    :func:`serialized`); returns what undoes the patch.

    moto answers every Query by sorting *all* items of the table (``Table.all_items``, with
    DynamoType comparisons) and then keeping those of the key: every ``load`` cost O(N log N)
    in the table's size, which grew with every processed update and owed message until the
    200-match run spent its time there. A Query on the table's key sorts the items it returns
    by their sort key afterwards, so giving it only that key's items changes no answer.
    """
    import inspect

    from moto.dynamodb.models.table import Table

    original_query, original_all = Table.query, Table.all_items
    signature = inspect.signature(original_query)

    def query(self: Any, *args: Any, **kwargs: Any) -> Any:
        bound = signature.bind(self, *args, **kwargs)
        hash_key = bound.arguments.get("hash_key")
        if bound.arguments.get("index_name") or hash_key is None or not self.range_key_attr:
            return original_query(self, *args, **kwargs)
        bucket = self.items.get(hash_key, {})
        self.all_items = lambda: list(bucket.values())
        try:
            return original_query(self, *args, **kwargs)
        finally:
            del self.all_items

    def all_items(self: Any) -> list[Any]:
        items = [
            i for v in self.items.values() for i in (v.values() if self.range_key_attr else [v])
        ]

        def key(x: Any) -> tuple[Any, ...]:
            return (x.hash_key.cast_value, x.range_key.cast_value if x.range_key else None)

        return sorted(items, key=key)

    def undo() -> None:
        Table.query, Table.all_items = original_query, original_all  # type: ignore[method-assign]

    Table.query, Table.all_items = query, all_items  # type: ignore[method-assign]
    return undo


def _snapshot(backend: Any, entry: dict[str, Any]) -> tuple[str, Any, Any] | None:
    """(table, key, the item's attributes or None) before a transaction's operation; None when
    the operation is malformed (moto's own code then refuses it)."""
    try:
        _op_type, op = next(iter(entry.items()))
        table = backend.get_table(op["TableName"])
        if "Key" in op:
            key = op["Key"]
        else:
            names = [a for a in (table.hash_key_attr, table.range_key_attr) if a]
            key = {a: op["Item"][a] for a in names}
        old = backend.get_item(op["TableName"], key)
    except Exception:  # moto raises the right error in the transaction
        return None
    return op["TableName"], key, None if old is None else old.to_json()["Attributes"]


def app(lock: Any = None) -> Wsgi:
    """moto's server application, one request at a time (``lock``: the one to use)."""
    from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app

    return serialized(DomainDispatcherApplication(create_backend_app), lock)


def main(argv: list[str]) -> None:
    from moto.moto_server.werkzeug_app import MotoRequestHandler
    from werkzeug.serving import run_simple

    cheap_rollback()
    fast_queries()
    run_simple("127.0.0.1", int(argv[0]), app(), threaded=True, request_handler=MotoRequestHandler)


if __name__ == "__main__":
    main(sys.argv[1:])
