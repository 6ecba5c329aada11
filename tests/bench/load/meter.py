"""DynamoDB request metering for the load run: every call the repository makes, counted with
the read and write request units DynamoDB on-demand would bill for it.

Units follow DynamoDB's rules (Developer Guide, "Read/write capacity mode" and "Item sizes"):

- an item's size is the UTF-8 length of its attribute names plus its values (strings: UTF-8
  bytes; numbers: about one byte per two significant digits plus one; binary: bytes; booleans
  and nulls: one byte; lists and maps: three bytes plus one per element plus the elements);
- a write costs one unit per started KB of the larger of the item before and after it (both
  read here, unmetered, around the write); a failed condition still costs the write;
- an index write costs as :func:`index_units` says;
- a strongly consistent read costs one unit per started 4 KB, an eventually consistent one half
  that; a query rounds the sum of the items it returns, with at least one unit;
- in a transaction every unit counts twice.

The meter wraps the low-level client (``__getattr__`` passes everything else through, its
``exceptions`` included), so the repository under test is the production one.
"""

from __future__ import annotations

import contextlib
import fcntl
import math
import os
import time
import traceback
from collections import Counter
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

KB = 1024
TRACE = os.environ.get("LOAD_TRACE", "")  # a file: every billed write, Bot API call and job
CALLERS = os.environ.get("LOAD_TRACE_CALLERS", "")  # set: each line names the bot's callers
_OURS = ("/engine/", "/handlers/")


def _callers() -> str:
    """The bot's functions on the stack (innermost first, the store's own left out): who
    made a request."""
    names = []
    for frame in traceback.extract_stack()[-3::-1]:
        if any(part in frame.filename for part in _OURS):
            names.append(f"{Path(frame.filename).stem}.{frame.name}")
    return " < ".join(names[:6])


def trace(line: str) -> None:
    """With ``LOAD_TRACE=<file>``, append ``line`` (with the process id) to it: what each
    turn writes and sends, in order (finding what to cut); with ``LOAD_TRACE_CALLERS=1``
    also the bot's functions that made it."""
    if TRACE:
        if CALLERS:
            line = f"{line}    [{_callers()}]"
        with Path(TRACE).open("a") as out:
            out.write(f"{os.getpid()} {line}\n")


READ_BLOCK = 4 * KB


def _number_size(text: str) -> int:
    digits = Decimal(text).normalize().as_tuple().digits
    significant = len(digits) or 1
    return (significant + 1) // 2 + 1


def value_size(value: dict[str, Any]) -> int:
    """The billed size of one wire-format attribute value (``{"S": ...}``, ``{"M": ...}``)."""
    ((kind, v),) = value.items()
    if kind == "S":
        return len(str(v).encode())
    if kind == "N":
        return _number_size(str(v))
    if kind == "B":
        return len(v)
    if kind in ("BOOL", "NULL"):
        return 1
    if kind == "SS":
        return sum(len(str(s).encode()) for s in v)
    if kind == "NS":
        return sum(_number_size(str(n)) for n in v)
    if kind == "BS":
        return sum(len(b) for b in v)
    if kind == "L":
        return 3 + sum(1 + value_size(e) for e in v)
    if kind == "M":
        return 3 + sum(1 + len(k.encode()) + value_size(e) for k, e in v.items())
    raise ValueError(f"unknown attribute type {kind}")


def item_size(item: dict[str, Any] | None) -> int:
    """The billed size of an item in wire format (0 for no item)."""
    if not item:
        return 0
    return sum(len(name.encode()) + value_size(v) for name, v in item.items())


def write_units(size: int) -> int:
    return max(1, math.ceil(size / KB))


def read_units(size: int, *, consistent: bool) -> float:
    units = max(1, math.ceil(size / READ_BLOCK))
    return float(units) if consistent else units / 2


class Meter:
    """What one process's repository asked of DynamoDB since the last :meth:`take`."""

    def __init__(self) -> None:
        self.requests: Counter[str] = Counter()
        self.conflicts = 0  # conditional checks that failed (a transaction's cancel included)
        self.rru = 0.0
        self.wru = 0.0
        self.by_prefix: Counter[str] = Counter()  # write units by the item's key prefix
        self.writes: Counter[str] = Counter()  # "<operation> <item kind>": how many
        # CPU seconds the meter itself spent reading items' sizes (its unmetered reads around
        # each write): the bot does not make those reads, so the worker takes them off its CPU.
        self.overhead_cpu = 0.0

    def take(self) -> dict[str, Any]:
        out = {
            "requests": dict(self.requests),
            "conflicts": self.conflicts,
            "rru": self.rru,
            "wru": self.wru,
            "wru_by_kind": dict(self.by_prefix),
            "writes": dict(self.writes),
            "overhead_cpu": self.overhead_cpu,
        }
        self.__init__()  # type: ignore[misc]
        return out


def _kind(key: dict[str, Any]) -> str:
    """What an item is, from its keys (docs/storage.md's table): ``match``, ``order``,
    ``turn``, ``member``, ``prefs``, ``update``, ``owed``, ``lock``, ..."""
    pk = str(key.get("PK", {}).get("S", ""))
    sk = str(key.get("SK", {}).get("S", "")).removeprefix("CUR#")
    head = sk.split("#", 1)[0].lower()
    if pk.startswith("USER#") and head == "match":
        return "member"
    return head or "?"


def _index_entry(item: dict[str, Any], pk: str, sk: str) -> tuple[Any, Any] | None:
    return (item[pk], item.get(sk)) if pk in item else None


INDEXES = (("GSI1PK", "GSI1SK"), ("GSI2PK", "GSI2SK"), ("OWPK", "OWAT"))
OUTBOX_INDEX = ("OWPK", "OWAT")  # the outbox's (OwedKeys): its units are the outbox's


def index_units(
    old: dict[str, Any], new: dict[str, Any], only: tuple[str, str] | None = None
) -> int:
    """Write units the table's indexes (template.yaml) add when ``old`` becomes ``new`` ({}
    for none; ``only``: that index's): all project keys only (GSI1: deadlines and owed
    messages of the older layout; ChatKeys: a chat's matches; OwedKeys: matches with pending
    owed messages), so only a change of an index's keys writes there (one small unit, two
    for a move). Index writes are not doubled by a transaction."""
    units = 0
    for pk, sk in INDEXES if only is None else (only,):
        before, after = _index_entry(old, pk, sk), _index_entry(new, pk, sk)
        if before != after:
            units += (before is not None) + (after is not None)
    return units


class Waits:
    """The Bot API round trips an invocation waits for, one after another: its calls' critical
    path, counted in round trips. In production every call takes about one round trip
    (``cost.BOT_API_LATENCY``); here the fake answers at once, so the run's own timing is not
    the bill's. What the run does show is which calls were made while others were in
    flight: a call started when ``rounds`` round trips had passed ends one round trip later,
    and ``rounds`` moves on only when a call ends. Calls made at once (``asyncio.gather``: a
    resolved turn's keyboards, the next turn's builders) are one round trip; calls made one
    after another one each; a chain of calls (the status closed, then the reveal) made
    while other calls are in flight is as long as the chain, not one."""

    def __init__(self) -> None:
        self.in_flight = 0
        self.rounds = 0

    def start(self) -> int:
        """A call starts; the round trips passed when it did (for :meth:`end`)."""
        self.in_flight += 1
        return self.rounds

    def end(self, started: int) -> None:
        self.in_flight -= 1
        self.rounds = max(self.rounds, started + 1)

    def take(self) -> int:
        """The round trips since the last take."""
        rounds, self.rounds = self.rounds, 0
        return rounds


def outbox_update(kw: dict[str, Any]) -> bool:
    """An UpdateItem of the outbox's entries in the match item (claim, journal, done: not a
    save, which is conditional on the match's version)."""
    names = kw.get("ExpressionAttributeNames", {}).values()
    return "ow" in names and "version" not in kw.get("ConditionExpression", "")


class MeteredClient:
    """A DynamoDB client that reports each call to a :class:`Meter`; ``peek`` is an
    unmetered client on the same table, used to learn stored items' sizes."""

    def __init__(
        self, inner: Any, peek: Any, meter: Meter, table: str, lock_path: str = ""
    ) -> None:
        self._inner, self._peek, self._meter, self._table = inner, peek, meter, table
        self._lock_path = lock_path  # shared by the workers: see :meth:`_alone`

    @contextlib.contextmanager
    def _alone(self) -> Iterator[None]:
        """A write and the reads of its item before and after it, while no other worker
        writes (``lock_path``, one file for all workers). Else another worker's write landing
        between them (two players of a match seal at once) would be billed to this write too:
        its index moves counted twice."""
        if not self._lock_path:
            yield
            return
        with Path(self._lock_path).open("a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file is closed
            yield

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def _stored(self, key: dict[str, Any]) -> dict[str, Any]:
        started = time.process_time()
        got = self._peek.get_item(TableName=self._table, Key=key, ConsistentRead=True)
        item: dict[str, Any] = got.get("Item") or {}
        self._meter.overhead_cpu += time.process_time() - started
        return item

    def _call(self, op: str, kw: dict[str, Any]) -> Any:
        self._meter.requests[op] += 1
        try:
            return getattr(self._inner, _snake(op))(**kw)
        except Exception as err:
            code = getattr(err, "response", {}).get("Error", {}).get("Code", "")
            if code in ("ConditionalCheckFailedException", "TransactionCanceledException"):
                self._meter.conflicts += 1
                trace(f"CONFLICT {op}")
            raise

    def _write(
        self,
        op: str,
        key: dict[str, Any],
        old: dict[str, Any],
        new: dict[str, Any],
        factor: int = 1,
        kind: str = "",
    ) -> None:
        """Bill a write of ``key`` from ``old`` to ``new`` (the larger item counts); ``kind``
        names what it is when its key does not (the outbox's writes of the match item)."""
        size = max(item_size(old), item_size(new))
        owed_index = index_units(old, new, OUTBOX_INDEX)  # the outbox's, whatever the write
        units = write_units(size) * factor + index_units(old, new) - owed_index
        kind = kind or _kind(key)
        self._meter.wru += units + owed_index
        self._meter.by_prefix[kind] += units
        self._meter.by_prefix["owed"] += owed_index
        self._meter.writes[f"{op} {kind}"] += 1
        what = key.get("SK", {}).get("S", "") + (f"[{kind}]" if kind != _kind(key) else "")
        index = f" (owed index {owed_index})" if owed_index else ""
        trace(f"{op} {what} size={size} units={units + owed_index}{index}")

    def _read(self, op: str, what: str, units: float) -> None:
        self._meter.rru += units
        trace(f"{op} {what} read={units}")

    def get_item(self, **kw: Any) -> Any:
        out = self._call("GetItem", kw)
        size = item_size(out.get("Item"))
        units = read_units(size, consistent=bool(kw.get("ConsistentRead")))
        self._read("GetItem", kw["Key"].get("SK", {}).get("S", ""), units)
        return out

    def query(self, **kw: Any) -> Any:
        out = self._call("Query", kw)
        size = sum(item_size(i) for i in out.get("Items", []))
        units = read_units(size, consistent=bool(kw.get("ConsistentRead")))
        what = f"{kw.get('IndexName', '')}{kw.get('ExpressionAttributeValues', {})}"[:80]
        self._read("Query", what, units)
        return out

    def batch_get_item(self, **kw: Any) -> Any:
        out = self._call("BatchGetItem", kw)
        for table, items in out.get("Responses", {}).items():
            consistent = bool(kw["RequestItems"][table].get("ConsistentRead"))
            for item in items:
                self._read("BatchGet", "", read_units(item_size(item), consistent=consistent))
        return out

    def put_item(self, **kw: Any) -> Any:
        with self._alone():
            key = _key_of(kw["Item"])
            old = self._stored(key)
            try:
                out = self._call("PutItem", kw)
            except Exception:
                self._write("PutItem", key, old, old)
                raise
            self._write("PutItem", key, old, kw["Item"])
            return out

    def update_item(self, **kw: Any) -> Any:
        with self._alone():
            old = self._stored(kw["Key"])
            kind = "owed" if outbox_update(kw) else ""
            try:
                return self._call("UpdateItem", kw)
            finally:
                self._write("UpdateItem", kw["Key"], old, self._stored(kw["Key"]), kind=kind)

    def delete_item(self, **kw: Any) -> Any:
        with self._alone():
            old = self._stored(kw["Key"])
            try:
                return self._call("DeleteItem", kw)
            finally:
                self._write("DeleteItem", kw["Key"], old, self._stored(kw["Key"]))

    def transact_write_items(self, **kw: Any) -> Any:
        with self._alone():
            entries = []
            for entry in kw["TransactItems"]:
                ((action, body),) = entry.items()
                key = _key_of(body["Item"]) if action == "Put" else body["Key"]
                entries.append((action, body, key, self._stored(key)))
            failed = False
            try:
                return self._call("TransactWriteItems", kw)
            except Exception:
                failed = True
                raise
            finally:
                for action, body, key, old in entries:
                    if failed or action == "ConditionCheck":
                        self._write(f"Tx{action}", key, old, old, 2)
                    elif action == "Put":
                        self._write("TxPut", key, old, body["Item"], 2)
                    else:  # Update, Delete: the item as stored now
                        self._write(f"Tx{action}", key, old, self._stored(key), 2)


def _key_of(item: dict[str, Any]) -> dict[str, Any]:
    return {k: item[k] for k in ("PK", "SK") if k in item}


def _snake(op: str) -> str:
    return "".join("_" + c.lower() if c.isupper() else c for c in op).lstrip("_")
