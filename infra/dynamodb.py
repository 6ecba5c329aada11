"""DynamoDB repository: the store on AWS Lambda (one table, declared in ``template.yaml``).

Single-table layout (details and the reasoning in ``docs/storage.md``):

==================  =====================  ==========================  =========================
item                PK                     SK                          index keys
==================  =====================  ==========================  =========================
match               ``MATCH#<id>``         ``CUR#MATCH``               GSI1 (deadline, sparse),
                                                                       ChatKeys (chat, sparse)
sealed order (old)  ``MATCH#<id>``         ``CUR#ORDER#<pid>``         - (now inside the match
                                                                       item, ``ord``)
turn record (part)  ``MATCH#<id>``         ``TURN#<turn:06>#<part:03>``  -
membership          ``USER#<user id>``     ``MATCH#<id>``              -
preferences         ``USER#<user id>``     ``PREFS``                   -
processed update    ``UPDATE#<update id>``  ``UPDATE``                  - (``ttl``; a lease:
                                                                       ``token``, ``lease``)
owed message (old)  ``MATCH#<id>``         ``OWED#<key>``              GSI1 ``OWED`` (now entries
                                                                       of the match item, ``ow``;
                                                                       ``infra.dynamo_outbox``)
chat lock           ``CHAT#<chat id>``     ``LOCK``                    - (``match_id``)
roster character    ``USER#<user id>``     ``CHAR#<ruleset>#<key>``    -
group library       ``CHAT#<chat id>``     ``LIB#<ruleset>``           -
match result        ``CHAT#<chat id>``     ``RESULT#<match id>``       -
result (member)     ``USER#<user id>``     ``RESULT#<chat>#<match>``   -
==================  =====================  ==========================  =========================

``load`` is ONE strongly consistent Query (``begins_with(SK, "CUR#")``: the match item, whose
``ord`` holds the current turn's sealed orders, and order items written before they moved
there; never the history); ``save`` is ONE write whose match update is conditional on the
loaded version, so concurrent writers cannot both win: a TransactWriteItems when other items
go with it, else an UpdateItem (half the write units). No code path
scans the table. The client is the low-level ``boto3.client("dynamodb")`` (typed values), so
the endpoint comes from the standard SDK configuration (``AWS_ENDPOINT_URL_DYNAMODB``).
"""

from __future__ import annotations

import json
import logging
import math
import threading
import time
import uuid
import zlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any, NoReturn

from botocore.exceptions import ClientError

from engine import codec
from engine.dice import seed_commitment
from engine.errors import (
    ChatBusyError,
    ConflictError,
    CorruptRecordError,
    LeaseLostError,
    NotFoundError,
)
from engine.match import Match, Phase, SealedOrder, TurnRecord, order_fingerprint
from engine.ports import (
    UPDATE_TTL_SECONDS,
    Loaded,
    Owed,
    UpdateClaim,
    index_users,
    result_users,
)
from infra import docpack
from infra.dynamo_outbox import LOCKED, OWE, OWED_INDEX, OWED_PK, OWED_PK_VALUE, InlineOutbox
from infra.dynamo_remember import InlineRemembered, listed_names, remembered_of
from infra.dynamo_values import Item
from infra.dynamo_values import dumps as _dumps
from infra.dynamo_values import n as _n
from infra.dynamo_values import s as _s
from infra.dynamo_values import sortable as _sortable

log = logging.getLogger("sekundant.storage")

RECORD_CHUNK_BYTES = 300_000  # DynamoDB items are capped at 400 KB; stay far below
DEADLINE_INDEX = "GSI1"
CHAT_INDEX = "ChatKeys"
"""Matches of a chat (sparse: unfinished ones), keys only: projecting whole items doubled every
write of a match (docs/deploy.md, "Load and cost"); a lookup reads the matches it lists."""
MATCH_SK = "CUR#MATCH"
ORDER_SK = "CUR#ORDER#"
TURN_SK = "TURN#"
CONF_SK = "TURN#CONF#"  # sorts after every "TURN#<digits>": one history Query reads both
_USERS_CACHE_MAX = 1024


PREF_FIELD = "p_"  # a preference set alone: its own attribute (DynamoRepository.set_pref)


def doc_attrs(text: str) -> Item:
    """A large JSON document as stored: packed (:mod:`infra.docpack`, zlib with a preset
    dictionary) in the binary attribute ``docz``. Write units are billed per started KB of
    the item (docs/storage.md, "Item sizes"); the CPU it costs is well under 1 ms."""
    return {"docz": {"B": docpack.pack(text)}}


def doc_text(item: Mapping[str, Any]) -> str:
    """The JSON document of ``item``: a plain ``doc`` string (small items, and items written
    before compression) or the compressed ``docz`` (zlib, or packed with a dictionary:
    :mod:`infra.docpack`)."""
    if "doc" in item:
        return str(item["doc"]["S"])
    return docpack.unpack(bytes(item["docz"]["B"]))


CONFIGS = "cf"
"""The match item's configuration refs whose ``TURN#CONF#<ref>`` items are stored (sorted,
space-separated): a save puts a record's configuration only when its ref is not there, so
one is put once per match whichever container resolves (docs/storage.md)."""
ORDERS = "ord"  # the match item's map of the current turn's sealed orders: pid -> packed doc
_DUE_KEYS = ("GSI1PK", "GSI1SK")
# Attributes a match item may have or not: a save that leaves one out removes it (a Put
# replaced the whole item; the save's UpdateItem says so). ``doc``: a document written before
# compression; ``sweep_failures``: note_failure's count, reset by a save.
_OPTIONAL = (
    "attention",
    *_DUE_KEYS,
    "GSI2PK",
    "GSI2SK",
    "sweep_failures",
    "doc",
    LOCKED,
)
# What listings read of a match item: never its sealed orders (only ``load`` reads those).
# Its remembered message ids of the listed keys too (``infra.dynamo_remember``).
_LISTED = {"#k": "PK", "#s": "SK", "#z": "docz", "#d": "doc", "#v": "version", "#a": "attention"}
_LISTED |= {"#c": "chat_id", "#t": "created_at", "#p": "phase"}  # not in the packed document
_LISTED |= listed_names()
_LISTED_PROJECTION = ", ".join(_LISTED)


@dataclass(frozen=True, slots=True)
class _Seen:
    """What this instance's last load (or save) of a match found at ``version``: whether its
    item has the ``ord`` map, the pids of order items written before orders moved there, and
    whether it has the outbox's map ``ow`` and entries in it."""

    version: int
    inline: bool
    legacy: frozenset[str]
    owe: bool = False
    pending: bool = False
    configs: frozenset[str] = frozenset()  # the item's ``cf``: configuration items stored


class DynamoRepository(InlineOutbox, InlineRemembered):
    """The :class:`~engine.ports.MatchRepository` port on one DynamoDB table."""

    def __init__(self, client: Any, table: str) -> None:
        self.client = client
        self.table = table
        # Users indexed for each match at the version this instance last saw. A save at that
        # version knows exactly which membership items to add and remove; without it, it
        # re-puts all of them and stale ones are filtered when read.
        self._users: dict[str, tuple[int, frozenset[int]]] = {}
        self._users_lock = threading.Lock()
        # (match id, config ref) this instance wrote or read: not written again.
        self._configs: set[tuple[str, str]] = set()
        self._seen: dict[str, _Seen] = {}  # by match id; guarded by _users_lock
        self._init_outbox()
        self._init_remembered()

    # ------------------------------------------------------------------ keys and items

    @staticmethod
    def _match_key(match_id: str) -> Item:
        return {"PK": _s(f"MATCH#{match_id}"), "SK": _s(MATCH_SK)}

    @staticmethod
    def _order_key(match_id: str, pid: str) -> Item:
        return {"PK": _s(f"MATCH#{match_id}"), "SK": _s(f"{ORDER_SK}{pid}")}

    @staticmethod
    def _member_key(user_id: int, match_id: str) -> Item:
        return {"PK": _s(f"USER#{user_id}"), "SK": _s(f"MATCH#{match_id}")}

    def _match_item(self, match: Match, version: int) -> tuple[Item, dict[str, Any]]:
        doc = codec.match_to_doc(match) | {"version": version}
        item: Item = {
            **self._match_key(match.id),
            "type": _s("match"),
            **doc_attrs(_dumps(_match_stored(doc))),
            "version": _n(version),
            "chat_id": _n(match.chat_id),
            "created_at": _n(match.created_at),
            "phase": _s(match.phase.value),
        }
        if match.attention is not None:
            item["attention"] = _s(match.attention)
        # Sparse indexes: a Put replaces the whole item, so leaving the keys out removes the
        # match from the index (finished matches leave both; GSI1 holds only matches with a
        # next wake-up: a reminder, a deadline or the end of a pause). A locked match is
        # found through OwedKeys instead (LOCKED): its GSI1 keys stay as they are (save).
        wake = match.wake_at
        if match.locked_at is not None:
            item[LOCKED] = _n(1)
        elif wake is not None:
            item["GSI1PK"] = _s("DUE")
            item["GSI1SK"] = _s(f"{_sortable(wake)}#{match.id}")
        if match.phase is not Phase.FINISHED:
            item["GSI2PK"] = _s(f"CHAT#{match.chat_id}")
            item["GSI2SK"] = _s(f"{_sortable(match.created_at)}#{match.id}")
        return item, doc

    def _record_items(
        self, record: TurnRecord, stored_refs: frozenset[str] = frozenset()
    ) -> tuple[list[Item], frozenset[str]]:
        """One item per turn record (stored compactly: ``codec.record_to_stored``); a record
        too big for one item is split into parts. Plus an item per configuration it refers
        to that is not stored for the match yet (``TURN#CONF#<ref>``: after every turn in the
        history Query): not in ``stored_refs`` (the match item's ``cf``) nor written or read
        by this instance. Also the refs the record refers to (all stored once it is)."""
        stored, configs = codec.record_to_stored(record)
        text = _dumps(stored)
        data = docpack.pack(text)
        pk = _s(f"MATCH#{record.match_id}")
        extra: list[Item] = [
            {"PK": pk, "SK": _s(f"{CONF_SK}{ref}"), "type": _s("config"), **doc_attrs(_dumps(c))}
            for ref, c in configs.items()
            if ref not in stored_refs and (record.match_id, ref) not in self._configs
        ]
        return extra + self._record_parts(record, text, data, pk), frozenset(configs)

    def _record_parts(self, record: TurnRecord, text: str, data: bytes, pk: Any) -> list[Item]:
        """``data`` (``text`` compressed) in one item, or split into parts marked ``z``."""
        base = {"type": _s("turn"), "turn": _n(record.turn)}
        if len(data) <= RECORD_CHUNK_BYTES:
            sk = _s(f"{TURN_SK}{record.turn:06d}#000")
            return [{"PK": pk, "SK": sk, **base, "parts": _n(1), "docz": {"B": data}}]
        parts = math.ceil(len(data) / RECORD_CHUNK_BYTES)
        return [
            {
                "PK": pk,
                "SK": _s(f"{TURN_SK}{record.turn:06d}#{i:03d}"),
                **base,
                "parts": _n(parts),
                "z": {"BOOL": True},
                "blob": {"B": data[i * RECORD_CHUNK_BYTES : (i + 1) * RECORD_CHUNK_BYTES]},
            }
            for i in range(parts)
        ]

    # ------------------------------------------------------------------ membership cache

    def _remember(self, match_id: str, version: int, users: frozenset[int]) -> None:
        with self._users_lock:
            if len(self._users) >= _USERS_CACHE_MAX:
                self._users.clear()
            self._users[match_id] = (version, users)

    def _see(self, match_id: str, seen: _Seen) -> None:
        with self._users_lock:
            if len(self._seen) >= _USERS_CACHE_MAX:
                self._seen.clear()
            self._seen[match_id] = seen

    def _seen_at(self, match_id: str, version: int) -> _Seen:
        """How the match's orders are stored at ``version``: as this instance last saw it,
        else read now (a save always follows a load in the use cases, so this is rare)."""
        with self._users_lock:
            seen = self._seen.get(match_id)
        if seen is None or seen.version != version:
            if self.load(match_id).match.version != version:
                raise ConflictError(match_id)  # the save's condition would refuse it anyway
            with self._users_lock:
                seen = self._seen[match_id]
        return seen

    def _known_users(self, match_id: str, version: int) -> frozenset[int] | None:
        with self._users_lock:
            seen = self._users.get(match_id)
        return seen[1] if seen is not None and seen[0] == version else None

    # ------------------------------------------------------------------ matches

    def create(self, match: Match, *, lock_chat: bool = False) -> Match:
        item, doc = self._match_item(match, 1)
        item[ORDERS] = {"M": {}}
        users = frozenset(index_users(match))
        ops: list[dict[str, Any]] = [
            {
                "Put": {
                    "TableName": self.table,
                    "Item": item,
                    "ConditionExpression": "attribute_not_exists(PK)",
                }
            }
        ]
        ops += [self._put_member(uid, match) for uid in sorted(users)]
        stale: str | None = None  # a lock held by a finished (or missing) match: taken over
        for _ in range(3):
            lock = [self._lock_op(match, stale)] if lock_chat else []
            try:
                self.client.transact_write_items(TransactItems=[ops[0], *lock, *ops[1:]])
                break
            except ClientError as exc:
                # Only the match item's condition failing means the id exists (or a
                # concurrent create won); a throttled or conflicting transaction wrote
                # nothing, so the caller must not be told it did (the webhook retries it).
                codes = cancel_codes(exc)
                if codes[:1] == ["ConditionalCheckFailed"]:
                    raise ConflictError(match.id) from None
                if not lock_chat or codes[1:2] != ["ConditionalCheckFailed"]:
                    raise
                reasons = exc.response.get("CancellationReasons") or []
                held = (reasons[1].get("Item") if len(reasons) > 1 else None) or self._lock_of(
                    match.chat_id
                )
                holder = held.get("match_id", {}).get("S") if held else None
                if holder is not None and self._unfinished(holder):
                    raise ChatBusyError(holder) from None
                stale = holder
        else:
            raise ConflictError(match.id)
        self._remember(match.id, 1, users)
        self._see(match.id, _Seen(1, True, frozenset()))
        return codec.match_from_doc(doc)

    def _lock_op(self, match: Match, stale: str | None) -> dict[str, Any]:
        """The chat's creation lock for ``match``: new, or taken over from ``stale``."""
        put: dict[str, Any] = {
            "TableName": self.table,
            "Item": {
                "PK": _s(f"CHAT#{match.chat_id}"),
                "SK": _s("LOCK"),
                "type": _s("chatlock"),
                "match_id": _s(match.id),
            },
            "ConditionExpression": "attribute_not_exists(PK)",
            "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
        }
        if stale is not None:
            put["ConditionExpression"] = "match_id = :stale"
            put["ExpressionAttributeValues"] = {":stale": _s(stale)}
        return {"Put": put}

    def _lock_of(self, chat_id: int) -> Item | None:
        got = self.client.get_item(
            TableName=self.table,
            Key={"PK": _s(f"CHAT#{chat_id}"), "SK": _s("LOCK")},
            ConsistentRead=True,
        )
        item: Item | None = got.get("Item")
        return item

    def _unfinished(self, match_id: str) -> bool:
        got = self.client.get_item(
            TableName=self.table,
            Key=self._match_key(match_id),
            ConsistentRead=True,
            ProjectionExpression="phase",
        )
        phase = got.get("Item", {}).get("phase", {}).get("S")
        return phase is not None and phase != Phase.FINISHED.value

    def _put_member(self, user_id: int, match: Match) -> dict[str, Any]:
        return {
            "Put": {
                "TableName": self.table,
                "Item": {
                    **self._member_key(user_id, match.id),
                    "type": _s("member"),
                    "match_id": _s(match.id),
                },
            }
        }

    def load(self, match_id: str) -> Loaded:
        items = list(
            self._query(
                KeyConditionExpression="PK = :pk AND begins_with(SK, :cur)",
                ExpressionAttributeValues={":pk": _s(f"MATCH#{match_id}"), ":cur": _s("CUR#")},
                ConsistentRead=True,
            )
        )
        head = next((i for i in items if i["SK"]["S"] == MATCH_SK), None)
        if head is None:
            raise NotFoundError(match_id)
        try:
            match = _match_from_item(match_id, head)
            # Order items written before orders moved into the match item, then the item's own
            # (the newer place wins for a pid in both).
            legacy = [
                _order_from_item(match_id, i) for i in items if i["SK"]["S"].startswith(ORDER_SK)
            ]
            inline = [
                _order_from_packed(match_id, v) for v in head.get(ORDERS, {}).get("M", {}).values()
            ]
            orders = {o.pid: o for o in [*legacy, *inline] if o.turn == match.turn}
        except CorruptRecordError as exc:
            self._corrupt(exc)
            raise
        self._remember(match_id, match.version, frozenset(index_users(match)))
        self.saw_remembered(match_id, head)
        self._see(
            match_id,
            _Seen(
                match.version,
                ORDERS in head,
                frozenset(o.pid for o in legacy),
                OWE in head,
                bool(head.get(OWE, {}).get("M")),
                frozenset(head.get(CONFIGS, {}).get("S", "").split()),
            ),
        )
        return Loaded(match, orders)

    def save(
        self,
        match: Match,
        *,
        expected_version: int,
        seal: SealedOrder | None = None,
        withdraw: str | None = None,
        record: TurnRecord | None = None,
        discard_orders: bool = False,
        drop_record: int | None = None,
        owe: Sequence[Owed] = (),
        entry: Owed | None = None,
    ) -> Match:
        version = expected_version + 1
        item, doc = self._match_item(match, version)
        if entry is not None and any(o.key == entry.key for o in owe):
            raise ValueError(f"owed {entry.key} both owed and delivered by one save")
        seen = self._seen_at(match.id, expected_version)
        # Keyed by item, so no item gets two operations (DynamoDB refuses that).
        ops: dict[tuple[str, str], dict[str, Any]] = {}

        def put(it: Item) -> None:
            ops[(it["PK"]["S"], it["SK"]["S"])] = {"Put": {"TableName": self.table, "Item": it}}

        def delete(key: Item) -> None:
            ops[(key["PK"]["S"], key["SK"]["S"])] = {
                "Delete": {"TableName": self.table, "Key": key}
            }

        if drop_record is not None:
            # Undo: the record's parts go in the same transaction (a keys-only read first,
            # because a big record has several parts; undo is rare).
            for key in self._record_keys(match.id, drop_record):
                delete(key)
        # The sealed orders in the match item: the whole map when it is reset (a resolved
        # turn's orders are revealed in its record; undo and the GM's end drop them) or when
        # the item has none yet (written before orders moved there), else the one entry.
        reset = record is not None or discard_orders or not seen.inline
        later = record is None or (seal is not None and seal.turn > record.turn)
        keep = seal is not None and not discard_orders and later
        orders: dict[str, Any] = {}
        set_orders: dict[str, Any] = {}
        remove_orders: list[str] = []
        if keep and seal is not None:
            packed = {"B": docpack.pack(_dumps(_order_stored(match.id, seal)))}
            (orders if reset else set_orders)[seal.pid] = packed
        if withdraw is not None and not reset and withdraw not in set_orders:
            remove_orders.append(withdraw)
        # Order items of the old layout that this save makes stale go in the same write.
        stale = seen.legacy if record is not None or discard_orders else frozenset()
        stale |= {p for p in (withdraw, seal.pid if keep and seal else None) if p in seen.legacy}
        for pid in sorted(stale):
            delete(self._order_key(match.id, pid))
        configs = seen.configs
        if record is not None:
            items, refs = self._record_items(record, seen.configs)
            for it in items:
                put(it)
            configs |= refs
        if configs:
            item[CONFIGS] = _s(" ".join(sorted(configs)))
        users = frozenset(index_users(match)) if match.phase is not Phase.FINISHED else frozenset()
        before = self._known_users(match.id, expected_version)
        if before is None:
            for uid in users:
                put(self._put_member(uid, match)["Put"]["Item"])
            if match.phase is Phase.FINISHED:
                for uid in index_users(match):
                    delete(self._member_key(uid, match.id))
        else:
            for uid in users - before:
                put(self._put_member(uid, match)["Put"]["Item"])
            for uid in before - users:
                delete(self._member_key(uid, match.id))
        owed = {o.key: o for o in owe}
        if owe:  # an older view of the outbox would miss these, whatever this save's outcome
            self.remember_owed(match.id, None)
        update = self._match_update(
            item,
            expected_version,
            orders=orders if reset else None,
            set_orders=set_orders,
            remove_orders=remove_orders,
            # In the match item: an entry replaces a pending one of its key (and its lease).
            owe=owed,
            owe_whole=not seen.owe and entry is None,  # (an entry held: the map is there)
            entry=entry,
        )
        if ops:
            self._transact(match.id, [{"Update": update}, *ops.values()])
        else:
            self._update_alone(match.id, update)
        self._remember(match.id, version, users)
        self._see(
            match.id,
            _Seen(
                version,
                True,
                seen.legacy - stale,
                seen.owe or bool(owe),
                seen.pending or bool(owe),
                configs,
            ),
        )
        if owe:  # (a save that owes nothing leaves the outbox, and a view of it, as they are)
            self.remember_owed(match.id, None if seen.pending else owed)
        if entry is not None:
            self.entry_saved(entry, locked=match.locked_at is not None)
        for _, sk in ops:
            if sk.startswith(CONF_SK) and len(self._configs) < 4096:
                self._configs.add((match.id, sk.removeprefix(CONF_SK)))
        # The save leaves the remembered ids as they are: the caller's view of them stays.
        return replace(codec.match_from_doc(doc), remembered=match.remembered)

    def _match_update(
        self,
        item: Item,
        expected_version: int,
        *,
        orders: Mapping[str, Any] | None,
        set_orders: Mapping[str, Any],
        remove_orders: Sequence[str],
        owe: Mapping[str, Owed] = {},
        owe_whole: bool = False,
        entry: Owed | None = None,
    ) -> dict[str, Any]:
        """The match item written as ``item`` (what a Put of it would leave: attributes it
        lacks are removed), conditional on ``expected_version``; its sealed orders replaced by
        ``orders``, or entries set and removed one by one (the others stay as stored); the
        outbox's entries ``owe`` set (the others, and their deliveries, stay as they are);
        ``entry``, an item being delivered, written too and conditional on its lease. A
        locked match's (``item`` has :data:`LOCKED`): the deadline index's keys stay as
        stored, and the match is in the outbox's index (put there if it is not)."""
        names: dict[str, str] = {}
        values: dict[str, Any] = {":expected": _n(expected_version)}
        sets: list[str] = []
        for i, (attr, value) in enumerate(item.items()):
            if attr in ("PK", "SK"):
                continue
            names[f"#a{i}"], values[f":a{i}"] = attr, value
            sets.append(f"#a{i} = :a{i}")
        removes = []
        locked = LOCKED in item
        kept = _DUE_KEYS if locked else ()
        for i, attr in enumerate(a for a in _OPTIONAL if a not in item and a not in kept):
            names[f"#r{i}"] = attr
            removes.append(f"#r{i}")
        if orders is not None or set_orders or remove_orders:
            names["#o"] = ORDERS
        if orders is not None:
            values[":o"] = {"M": dict(orders)}
            sets.append("#o = :o")
        for i, (pid, value) in enumerate(set_orders.items()):
            names[f"#p{i}"], values[f":p{i}"] = pid, value
            sets.append(f"#o.#p{i} = :p{i}")
        for i, pid in enumerate(remove_orders):
            names[f"#q{i}"] = pid
            removes.append(f"#o.#q{i}")
        owe_sets, owe_names, owe_values = self.owe_clauses(owe, owe_whole)
        if locked and not owe:
            owe_sets, owe_names, owe_values = self.owing_clauses()
        sets += owe_sets
        names.update({k: str(v) for k, v in owe_names.items()})
        values.update(owe_values)
        condition = "version = :expected"
        if entry is not None:
            e_sets, e_removes, e_condition, e_names, e_values = self.entry_clauses(entry)
            sets += e_sets
            removes += e_removes
            condition += " AND " + e_condition
            names.update({k: str(v) for k, v in e_names.items()})
            values.update(e_values)
        expression = "SET " + ", ".join(sets) + (" REMOVE " + ", ".join(removes) if removes else "")
        return {
            "TableName": self.table,
            "Key": {"PK": item["PK"], "SK": item["SK"]},
            "UpdateExpression": expression,
            "ConditionExpression": condition,
            "ExpressionAttributeNames": names,
            "ExpressionAttributeValues": values,
            "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
        }

    def _transact(self, match_id: str, items: list[dict[str, Any]]) -> None:
        """The match item's conditional write (first) with the items that go with it, all or
        nothing."""
        try:
            self.client.transact_write_items(TransactItems=items)
        except ClientError as exc:
            codes = cancel_codes(exc)
            if not codes:
                raise
            if codes[0] == "ConditionalCheckFailed":
                reasons = exc.response.get("CancellationReasons") or [{}]
                if "Item" not in reasons[0] and not self._exists(match_id):
                    raise NotFoundError(match_id) from None
                _refusal(match_id, items[0]["Update"], reasons[0].get("Item"))
            if "TransactionConflict" in codes:  # another transaction on these items
                raise ConflictError(match_id) from None
            raise

    def _update_alone(self, match_id: str, update: dict[str, Any]) -> None:
        """The match item's conditional write when nothing goes with it (a seal, the status
        pointer, remembered messages, the commitment's id): one UpdateItem, atomic on its own,
        at half a transaction's write units (docs/deploy.md, "Cost per 1,000 turns").

        Unlike a transaction it has no idempotency token: when botocore resends it after a
        lost response, the resend fails its condition on the item the first attempt wrote.
        So a failed condition is checked against the item it returns: when that item is what
        this update writes (the same version and document, the same orders set and removed:
        packing is deterministic and every order has its own salt), the write was ours."""
        try:
            self.client.update_item(**update)
        except ClientError as exc:
            if exc.response["Error"]["Code"] != "ConditionalCheckFailedException":
                raise
            stored = exc.response.get("Item")
            if stored is not None and _written_by(update, stored):
                return
            if stored is None and not self._exists(match_id):
                raise NotFoundError(match_id) from None
            _refusal(match_id, update, stored)

    def _exists(self, match_id: str) -> bool:
        """Whether the match item exists (only asked after a failed condition that did not
        return the old item)."""
        got = self.client.get_item(
            TableName=self.table,
            Key=self._match_key(match_id),
            ConsistentRead=True,
            ProjectionExpression="PK",
        )
        return "Item" in got

    # ------------------------------------------------------------------ lookups

    def _query(self, **kwargs: Any) -> Iterator[Item]:
        """Every item of a Query, following pagination."""
        while True:
            page = self.client.query(TableName=self.table, **kwargs)
            yield from page.get("Items", [])
            last = page.get("LastEvaluatedKey")
            if not last:
                return
            kwargs["ExclusiveStartKey"] = last

    def _active(self, items: list[Item]) -> list[Match]:
        out: list[Match] = []
        for item in items:
            match_id = item["PK"]["S"].removeprefix("MATCH#")
            try:
                match = _match_from_item(match_id, item)
            except CorruptRecordError as exc:
                self._corrupt(exc)  # flag it and go on: one bad match hides no other
                continue
            if match.phase is not Phase.FINISHED:
                out.append(match)
        return sorted(out, key=lambda m: (m.created_at, m.id))

    def active_in_chat(self, chat_id: int) -> list[Match]:
        # The chat index holds the keys of unfinished matches (sparse): a Query, then the
        # matches themselves, read consistently (an index lags its table).
        keys = self._query(
            IndexName=CHAT_INDEX,
            KeyConditionExpression="GSI2PK = :c",
            ExpressionAttributeValues={":c": _s(f"CHAT#{chat_id}")},
        )
        items = self._batch_get([{"PK": k["PK"], "SK": k["SK"]} for k in keys])
        return [m for m in self._active(items) if m.chat_id == chat_id]

    def active_for_user(self, user_id: int) -> list[Match]:
        members = self._query(
            KeyConditionExpression="PK = :u AND begins_with(SK, :m)",
            ExpressionAttributeValues={":u": _s(f"USER#{user_id}"), ":m": _s("MATCH#")},
            ConsistentRead=True,
        )
        ids = sorted({m["match_id"]["S"] for m in members})
        items = self._batch_get([self._match_key(i) for i in ids])
        # Membership items of users who left are not always removed (see save): check again.
        return [m for m in self._active(items) if user_id in index_users(m)]

    def _batch_get(
        self,
        keys: list[Item],
        projection: str = _LISTED_PROJECTION,
        names: Mapping[str, str] = _LISTED,
        *,
        consistent: bool = True,
    ) -> list[Item]:
        """The items of ``keys`` (``projection`` of them), 100 a request, unprocessed keys
        asked again with a backoff."""
        out: list[Item] = []
        for start in range(0, len(keys), 100):
            pending: dict[str, Any] = {
                self.table: {
                    "Keys": keys[start : start + 100],
                    "ConsistentRead": consistent,
                    "ProjectionExpression": projection,
                    "ExpressionAttributeNames": dict(names),
                }
            }
            delay = 0.05
            while pending:
                page = self.client.batch_get_item(RequestItems=pending)
                out += page.get("Responses", {}).get(self.table, [])
                pending = page.get("UnprocessedKeys") or {}
                if pending:
                    time.sleep(delay)  # throttled: back off, as the SDK docs advise
                    delay = min(delay * 2, 1.0)
        return out

    def due(self, now: float, limit: int = 50) -> list[str]:
        # Locked matches first (due at once; their players wait for the reveal), from the
        # outbox's index (LOCKED), then the deadline index.
        out = self._locked(limit)
        # Keys "<deadline>#<id>" all sort below "<now>$" when deadline <= now ('#' < '$').
        # Paginated: a page ends at 1 MB or ``Limit`` items, whichever comes first.
        for i in self._query(
            IndexName=DEADLINE_INDEX,
            KeyConditionExpression="GSI1PK = :d AND GSI1SK < :upper",
            ExpressionAttributeValues={":d": _s("DUE"), ":upper": _s(f"{_sortable(now)}$")},
            Limit=min(limit, 1000),
        ):
            match_id = i["PK"]["S"].removeprefix("MATCH#")
            if match_id not in out:
                out.append(match_id)
            if len(out) >= limit:
                break
        return out[:limit]

    def _locked(self, limit: int) -> list[str]:
        """Locked matches not parked, found in the outbox's index (which lists every match
        that owes a message, and a locked match until its lock is gone: :data:`LOCKED`): the
        index holds keys only, so a read of their flags tells which (a handful at a time)."""
        keys = [
            {"PK": i["PK"], "SK": i["SK"]}
            for i in self._query(
                IndexName=OWED_INDEX,
                KeyConditionExpression="#q = :o",
                ExpressionAttributeNames={"#q": OWED_PK},
                ExpressionAttributeValues={":o": _s(OWED_PK_VALUE)},
            )
        ]
        flags = self._batch_get(
            keys, "PK, #l, #a", {"#l": LOCKED, "#a": "attention"}, consistent=False
        )
        found = [
            item["PK"]["S"].removeprefix("MATCH#")
            for item in flags
            if LOCKED in item and "attention" not in item
        ]
        return sorted(found)[:limit]

    def note_failure(self, match_id: str, detail: str, park_after: int) -> bool:
        # The count lives on the match item; a save Puts the whole item, which resets it.
        try:
            got = self.client.update_item(
                TableName=self.table,
                Key=self._match_key(match_id),
                UpdateExpression="ADD sweep_failures :one",
                ConditionExpression="attribute_exists(PK)",
                ExpressionAttributeValues={":one": _n(1)},
                ReturnValues="UPDATED_NEW",
            )
        except ClientError as exc:
            if exc.response["Error"]["Code"] == "ConditionalCheckFailedException":
                return False
            raise
        if int(got["Attributes"]["sweep_failures"]["N"]) != park_after:
            return False
        # Parked: out of the deadline index until the next save writes the keys again.
        self.client.update_item(
            TableName=self.table,
            Key=self._match_key(match_id),
            UpdateExpression="SET attention = :d REMOVE GSI1PK, GSI1SK ADD version :one",
            ConditionExpression="attribute_exists(PK)",
            ExpressionAttributeValues={":d": _s(detail), ":one": _n(1)},
        )
        return True

    # ------------------------------------------------------------------ history

    def _turn_items(self, match_id: str, since: int = 0) -> Iterator[Item]:
        # From turn ``since`` on; the configuration items (``TURN#CONF#``) sort after every
        # turn's, so they are always read ("TURN#~" is after them both).
        return self._query(
            KeyConditionExpression="PK = :pk AND SK BETWEEN :from AND :to",
            ExpressionAttributeValues={
                ":pk": _s(f"MATCH#{match_id}"),
                ":from": _s(f"{TURN_SK}{max(since, 0):06d}#"),
                ":to": _s(f"{TURN_SK}~"),
            },
            ConsistentRead=True,
        )

    def history(self, match_id: str, *, since: int = 0) -> list[TurnRecord]:
        texts: list[str] = []
        configs: dict[str, Any] = {}
        chunks: list[bytes] = []
        try:
            for item in self._turn_items(match_id, since):
                sk = item["SK"]["S"]
                if sk.startswith(CONF_SK):
                    configs[sk.removeprefix(CONF_SK)] = json.loads(doc_text(item))
                    continue
                if "doc" in item or "docz" in item:
                    texts.append(doc_text(item))
                    continue
                chunks.append(bytes(item["blob"]["B"]))
                if len(chunks) == int(item["parts"]["N"]):
                    data = b"".join(chunks)
                    texts.append(docpack.unpack(data) if "z" in item else data.decode())
                    chunks = []
            if chunks:
                raise CorruptRecordError(match_id, "turn record with missing parts")
            records = [_record_from_text(match_id, text, configs) for text in texts]
            self._configs.update((match_id, ref) for ref in configs)
        except (KeyError, ValueError, UnicodeDecodeError, zlib.error) as exc:
            err = CorruptRecordError(match_id, f"unreadable turn record: {exc!r}")
            self._corrupt(err)
            raise err from exc
        except CorruptRecordError as exc:
            self._corrupt(exc)
            raise
        return records

    def _record_keys(self, match_id: str, turn: int) -> list[Item]:
        return [
            {"PK": i["PK"], "SK": i["SK"]}
            for i in self._query(
                KeyConditionExpression="PK = :pk AND begins_with(SK, :t)",
                ExpressionAttributeValues={
                    ":pk": _s(f"MATCH#{match_id}"),
                    ":t": _s(f"{TURN_SK}{turn:06d}#"),
                },
                ConsistentRead=True,
                ProjectionExpression="PK, SK",
            )
        ]

    # ------------------------------------------------------------------ updates

    def claim_update(self, update_id: int, now: float, lease: float) -> UpdateClaim:
        # A lease is the item with ``token`` and ``lease`` (its end); a done update has neither
        # (as every claim written before leases). TTL deletion is lazy (up to days late), so
        # an expired item counts as absent.
        # An UpdateItem, not a Put: ``attempts`` counts the claims across released leases.
        token = uuid.uuid4().hex
        key = self._update_key(update_id)
        try:
            got = self.client.update_item(
                TableName=self.table,
                Key=key,
                UpdateExpression="SET #type = :type, #ttl = :ttl, #token = :token, #lease = :lease"
                " ADD attempts :one",
                ConditionExpression="attribute_not_exists(PK) OR #ttl <= :now OR #lease <= :now",
                ExpressionAttributeNames={
                    "#type": "type",
                    "#ttl": "ttl",
                    "#token": "token",
                    "#lease": "lease",
                },
                ExpressionAttributeValues={
                    ":type": _s("update"),
                    ":ttl": _n(math.ceil(now + UPDATE_TTL_SECONDS)),
                    ":token": _s(token),
                    ":lease": _n(now + lease),
                    ":now": _n(now),
                    ":one": _n(1),
                },
                ReturnValues="ALL_NEW",
                ReturnValuesOnConditionCheckFailure="ALL_OLD",
            )
        except ClientError as exc:
            if exc.response["Error"]["Code"] != "ConditionalCheckFailedException":
                raise
            held = exc.response.get("Item")
            if held is None:  # not returned (an older endpoint): read it
                got = self.client.get_item(TableName=self.table, Key=key, ConsistentRead=True)
                held = got.get("Item")
            # Gone meanwhile (released): "processing" makes Telegram retry, and that claims it.
            return UpdateClaim("done" if held is not None and "token" not in held else "processing")
        new = got.get("Attributes", {})
        attempts = int(new.get("attempts", {}).get("N", "1"))
        return UpdateClaim("claimed", token, attempts, new.get("error", {}).get("S", ""))

    def confirm_update(self, update_id: int, token: str, now: float) -> bool:
        try:
            self.client.update_item(
                TableName=self.table,
                Key=self._update_key(update_id),
                UpdateExpression="SET #ttl = :ttl REMOVE #token, #lease",
                ConditionExpression="#token = :token",
                ExpressionAttributeNames={"#ttl": "ttl", "#token": "token", "#lease": "lease"},
                ExpressionAttributeValues={
                    ":ttl": _n(math.ceil(now + UPDATE_TTL_SECONDS)),
                    ":token": _s(token),
                },
            )
        except ClientError as exc:
            if exc.response["Error"]["Code"] == "ConditionalCheckFailedException":
                return False
            raise
        return True

    def release_update(self, update_id: int, token: str, error: str = "") -> None:
        # The lease ends now (``lease`` 0: the next claim takes it); ``attempts`` stays.
        try:
            self.client.update_item(
                TableName=self.table,
                Key=self._update_key(update_id),
                UpdateExpression="SET #lease = :zero, #error = :error",
                ConditionExpression="#token = :token",
                ExpressionAttributeNames={"#token": "token", "#lease": "lease", "#error": "error"},
                ExpressionAttributeValues={
                    ":token": _s(token),
                    ":zero": _n(0),
                    ":error": _s(error),
                },
            )
        except ClientError as exc:
            if exc.response["Error"]["Code"] != "ConditionalCheckFailedException":
                raise

    @staticmethod
    def _update_key(update_id: int) -> Item:
        return {"PK": _s(f"UPDATE#{update_id}"), "SK": _s("UPDATE")}

    # ------------------------------------------------------------------ preferences

    def load_prefs(self, user_id: int) -> dict[str, Any]:
        """Per-user preferences (``engine.ports.PrefsRepository``): item ``USER#<id>`` /
        ``PREFS`` (outside the ``MATCH#`` memberships of the same partition)."""
        got = self.client.get_item(
            TableName=self.table,
            Key={"PK": _s(f"USER#{user_id}"), "SK": _s("PREFS")},
            ConsistentRead=True,
        )
        if "Item" not in got:
            return {}
        item = got["Item"]
        prefs: Any = {}
        if "doc" in item:  # the whole document (save_prefs)
            try:
                prefs = json.loads(item["doc"]["S"])
            except (KeyError, ValueError):
                log.error("unreadable preferences of user %s ignored", user_id)
        fields: dict[str, Any] = dict(prefs) if isinstance(prefs, dict) else {}
        for name, value in item.items():  # each field set alone (set_pref) overrides it
            if name.startswith(PREF_FIELD) and "S" in value:
                try:
                    field = json.loads(value["S"])
                except ValueError:
                    continue
                if field is None:
                    fields.pop(name[len(PREF_FIELD) :], None)
                else:
                    fields[name[len(PREF_FIELD) :]] = field
        return fields

    def save_prefs(self, user_id: int, prefs: Mapping[str, Any]) -> None:
        self.client.put_item(
            TableName=self.table,
            Item={
                "PK": _s(f"USER#{user_id}"),
                "SK": _s("PREFS"),
                "type": _s("prefs"),
                "doc": _s(_dumps(dict(prefs))),
            },
        )

    def set_pref(self, user_id: int, field: str, value: Any) -> None:
        """One field as its own attribute (``p_<field>``, JSON; ``null`` once removed, so it
        also hides a value in an older whole ``doc``), by an ``UpdateExpression`` on that
        attribute alone: a concurrent write of another field is kept."""
        self.client.update_item(
            TableName=self.table,
            Key={"PK": _s(f"USER#{user_id}"), "SK": _s("PREFS")},
            UpdateExpression="SET #f = :v, #t = :t",
            ExpressionAttributeNames={"#f": PREF_FIELD + field, "#t": "type"},
            ExpressionAttributeValues={":v": _s(_dumps(value)), ":t": _s("prefs")},
        )

    # ------------------------------------------------------------------ campaigns

    def _doc_items(self, pk: str, prefix: str) -> list[dict[str, Any]]:
        """The JSON documents of a partition's items whose SK starts with ``prefix``."""
        out = []
        for item in self._query(
            KeyConditionExpression="PK = :pk AND begins_with(SK, :p)",
            ExpressionAttributeValues={":pk": _s(pk), ":p": _s(prefix)},
        ):
            try:
                doc = json.loads(item["doc"]["S"])
            except (KeyError, ValueError):
                log.error("unreadable campaign item %s %s skipped", pk, item.get("SK"))
                continue
            if isinstance(doc, dict):
                out.append(doc)
        return out

    def _doc_item(self, pk: str, sk: str, kind: str, doc: Mapping[str, Any]) -> Item:
        return {"PK": _s(pk), "SK": _s(sk), "type": _s(kind), "doc": _s(_dumps(dict(doc)))}

    def _get_doc(self, pk: str, sk: str) -> dict[str, Any] | None:
        got = self.client.get_item(
            TableName=self.table, Key={"PK": _s(pk), "SK": _s(sk)}, ConsistentRead=True
        )
        try:
            doc = json.loads(got["Item"]["doc"]["S"]) if "Item" in got else None
        except (KeyError, ValueError):
            log.error("unreadable campaign item %s %s", pk, sk)
            return None
        return doc if isinstance(doc, dict) else None

    def _delete(self, pk: str, sk: str) -> bool:
        got = self.client.delete_item(
            TableName=self.table, Key={"PK": _s(pk), "SK": _s(sk)}, ReturnValues="ALL_OLD"
        )
        return "Attributes" in got

    def roster(self, user_id: int, ruleset: str) -> list[dict[str, Any]]:
        """A player's characters (``engine.ports.CampaignRepository``): 1 Query."""
        return self._doc_items(f"USER#{user_id}", f"CHAR#{ruleset}#")

    def put_characters(self, user_id: int, entries: Sequence[Mapping[str, Any]]) -> None:
        items = [
            self._doc_item(f"USER#{user_id}", f"CHAR#{e['ruleset']}#{e['key']}", "character", e)
            for e in entries
        ]
        for start in range(0, len(items), 100):  # the roster limit keeps this one transaction
            self.client.transact_write_items(
                TransactItems=[
                    {"Put": {"TableName": self.table, "Item": it}}
                    for it in items[start : start + 100]
                ]
            )

    def delete_character(self, user_id: int, ruleset: str, key: str) -> bool:
        return self._delete(f"USER#{user_id}", f"CHAR#{ruleset}#{key}")

    def library(self, chat_id: int, ruleset: str) -> dict[str, Any] | None:
        return self._get_doc(f"CHAT#{chat_id}", f"LIB#{ruleset}")

    def put_library(self, chat_id: int, ruleset: str, doc: Mapping[str, Any]) -> None:
        item = self._doc_item(f"CHAT#{chat_id}", f"LIB#{ruleset}", "library", doc)
        self.client.put_item(TableName=self.table, Item=item)

    def delete_library(self, chat_id: int, ruleset: str) -> bool:
        return self._delete(f"CHAT#{chat_id}", f"LIB#{ruleset}")

    def results(self, chat_id: int) -> list[dict[str, Any]]:
        return self._doc_items(f"CHAT#{chat_id}", "RESULT#")

    def user_results(self, user_id: int) -> list[dict[str, Any]]:
        return self._doc_items(f"USER#{user_id}", "RESULT#")

    def _result_ops(
        self, chat_id: int, match_id: str, new: Mapping[str, Any] | None
    ) -> list[dict[str, Any]]:
        """The writes that make the match's result ``new`` (None: gone): the group's item and
        one copy per member, members no longer in it removed."""
        old = self._get_doc(f"CHAT#{chat_id}", f"RESULT#{match_id}")
        users = set(result_users(new or {}))
        ops: list[dict[str, Any]] = []
        for uid in sorted(set(result_users(old or {})) - users):
            key = {"PK": _s(f"USER#{uid}"), "SK": _s(f"RESULT#{chat_id}#{match_id}")}
            ops.append({"Delete": {"TableName": self.table, "Key": key}})
        if new is None:
            if old is not None:
                key = {"PK": _s(f"CHAT#{chat_id}"), "SK": _s(f"RESULT#{match_id}")}
                ops.append({"Delete": {"TableName": self.table, "Key": key}})
            return ops
        item = self._doc_item(f"CHAT#{chat_id}", f"RESULT#{match_id}", "result", new)
        ops.append({"Put": {"TableName": self.table, "Item": item}})
        for uid in sorted(users):
            sk = f"RESULT#{chat_id}#{match_id}"
            it = self._doc_item(f"USER#{uid}", sk, "result", new)
            ops.append({"Put": {"TableName": self.table, "Item": it}})
        return ops

    def put_result(self, doc: Mapping[str, Any]) -> None:
        ops = self._result_ops(int(doc["chat_id"]), str(doc["match_id"]), doc)
        self.client.transact_write_items(TransactItems=ops)

    def delete_result(self, chat_id: int, match_id: str) -> bool:
        ops = self._result_ops(chat_id, match_id, None)
        if not ops:
            return False
        self.client.transact_write_items(TransactItems=ops)
        return True

    # ------------------------------------------------------------------ attention

    def flag(self, match_id: str, detail: str) -> None:
        # Only ``attention`` and ``version`` change; the (maybe unreadable) document stays as it
        # is. The version bump makes any writer that loaded before the flag retry.
        try:
            self.client.update_item(
                TableName=self.table,
                Key=self._match_key(match_id),
                UpdateExpression="SET attention = :d ADD version :one",
                ConditionExpression="attribute_exists(PK)",
                ExpressionAttributeValues={":d": _s(detail), ":one": _n(1)},
            )
        except ClientError as exc:
            code = exc.response["Error"]["Code"]
            if code == "ConditionalCheckFailedException":
                return  # no such match: nothing to flag
            if code != "ValidationException":
                raise
            # ``version`` itself is unreadable (not a number): still set the flag.
            self.client.update_item(
                TableName=self.table,
                Key=self._match_key(match_id),
                UpdateExpression="SET attention = :d",
                ExpressionAttributeValues={":d": _s(detail)},
            )

    def _corrupt(self, exc: CorruptRecordError) -> None:
        log.error("corrupt record: match %s: %s", exc.match_id, exc.detail)
        self.flag(exc.match_id, exc.detail)


def _refusal(
    match_id: str, update: Mapping[str, Any], stored: Mapping[str, Any] | None
) -> NoReturn:
    """Raise why the match's conditional ``update`` was refused, from the item it found
    (``stored``): ``ConflictError`` when the version moved on, else (an owed entry carried
    with it, ``entry_clauses``) ``LeaseLostError``: the entry's lease is not ours."""
    values = update["ExpressionAttributeValues"]
    found = None if stored is None else stored.get("version")
    if ":et" in values and found is not None and _same(found, values[":expected"]):
        raise LeaseLostError(match_id) from None
    raise ConflictError(match_id) from None


def _written_by(update: Mapping[str, Any], stored: Mapping[str, Any]) -> bool:
    """Whether ``stored`` is the item after ``update`` (a :meth:`DynamoRepository._match_update`
    expression: ``SET #x = :x`` and ``#o.#p = :p`` pairs, ``REMOVE`` names)."""
    names, values = update["ExpressionAttributeNames"], update["ExpressionAttributeValues"]
    sets, _, removes = update["UpdateExpression"].removeprefix("SET ").partition(" REMOVE ")

    def at(path: str) -> Any:
        head, *inner = path.split(".")
        got = stored.get(names[head])
        for part in inner:  # a map's entry (``#o.#p``, an owed entry's field ``#w.#k.#f``)
            got = None if got is None else got.get("M", {}).get(names[part])
        return got

    for clause in sets.split(", "):
        path, value = clause.split(" = ")
        if not _same(at(path), values[value]):
            return False
    return all(at(path) is None for path in filter(None, removes.split(", ")))


def _same(got: Any, wrote: Mapping[str, Any]) -> bool:
    """Attribute values equal as DynamoDB keeps them (numbers are normalized: ``1.0`` is
    stored and returned as ``1``)."""
    if isinstance(got, Mapping) and "N" in got and "N" in wrote:
        return Decimal(str(got["N"])) == Decimal(str(wrote["N"]))
    return bool(got == wrote)


def cancel_codes(exc: ClientError) -> list[str]:
    """The per-item cancellation codes of a cancelled transaction (else empty); the webhook
    reads them too, to tell a throttled transaction from a refused one."""
    if exc.response.get("Error", {}).get("Code") != "TransactionCanceledException":
        return []
    reasons = exc.response.get("CancellationReasons") or []
    codes = [str(r.get("Code", "None")) for r in reasons]
    if not codes:  # older botocore: only the message lists them
        message = exc.response.get("Error", {}).get("Message", "")
        codes = [c.strip() for c in message.partition("[")[2].rstrip("]").split(",")]
    return codes


def _match_from_item(match_id: str, item: Mapping[str, Any]) -> Match:
    try:
        doc = json.loads(doc_text(item))
        if not isinstance(doc, dict):
            raise TypeError(f"expected a JSON object, got {type(doc).__name__}")
        # ``version`` and ``attention`` attributes are authoritative: flag() changes only them.
        doc["version"] = int(item["version"]["N"])
        # Left out of the packed document (_match_stored): the item's key and attributes.
        doc.setdefault("id", match_id)
        if "chat_id" not in doc:
            doc["chat_id"] = int(item["chat_id"]["N"])
            doc["created_at"] = float(item["created_at"]["N"])
            doc["phase"] = item["phase"]["S"]
        if "commitment" not in doc and doc.get("turn_seed") is not None:
            # left out by _match_stored: the one the turn's seed makes
            doc["commitment"] = seed_commitment(bytes.fromhex(doc["turn_seed"]))
        if "attention" in item:
            doc["attention"] = item["attention"]["S"]
        remembered = remembered_of(item)
    except (KeyError, TypeError, ValueError, zlib.error) as exc:
        raise CorruptRecordError(match_id, f"unreadable match item: {exc!r}") from exc
    match = codec.match_from_doc(doc)
    return replace(match, remembered=remembered) if remembered else match


_UNPACKED = ("id", "chat_id", "created_at", "phase", "wake_at", "version")
"""Fields of a match document the match item does not pack: the id is its key's, the chat,
creation time, phase and version are attributes of their own (``version`` authoritative:
:func:`_match_from_item` reads them all from the item), ``wake_at`` is made from the rest when
a match is loaded (``Match.wake_at``; the deadline index has it)."""


def _match_stored(doc: dict[str, Any]) -> dict[str, Any]:
    """A match document as the match item packs it (every write of an item billed by the
    started KB): without :data:`_UNPACKED`, and without its commitment when that is the one
    its turn seed makes (SHA-256 hex, ~35 bytes packed), which :func:`_match_from_item`
    computes again; any other is kept."""
    out = {k: v for k, v in doc.items() if k not in _UNPACKED}
    seed, commitment = out.get("turn_seed"), out.get("commitment")
    if isinstance(seed, str) and isinstance(commitment, str):
        try:
            made = seed_commitment(bytes.fromhex(seed))
        except ValueError:
            return out
        if made == commitment:
            del out["commitment"]
    return out


def _order_from_item(match_id: str, item: Mapping[str, Any]) -> SealedOrder:
    try:
        return codec.order_from_doc(json.loads(item["doc"]["S"]))
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise CorruptRecordError(match_id, f"unreadable sealed order: {exc!r}") from exc


def _order_stored(match_id: str, order: SealedOrder) -> dict[str, Any]:
    """An order's document as the match item's ``ord`` keeps it: without its fingerprint when
    that is the one its fields make (SHA-256 hex: ~35 bytes packed, of an item billed by the
    started KB), which :func:`_order_from_packed` computes again; any other is kept."""
    doc = codec.order_to_doc(order)
    made = order_fingerprint(match_id, order.turn, order.pid, order.order, order.salt)
    if made == order.fingerprint:
        del doc["fingerprint"]
    return doc


def _order_from_packed(match_id: str, value: Mapping[str, Any]) -> SealedOrder:
    """A sealed order of the match item's ``ord`` map (a packed document)."""
    try:
        doc = json.loads(docpack.unpack(bytes(value["B"])))
        if "fingerprint" not in doc:
            fp = order_fingerprint(match_id, doc["turn"], doc["pid"], doc["order"], doc["salt"])
            doc["fingerprint"] = fp
        return codec.order_from_doc(doc)
    except (KeyError, TypeError, ValueError, AttributeError, zlib.error) as exc:
        raise CorruptRecordError(match_id, f"unreadable sealed order: {exc!r}") from exc


def _record_from_text(match_id: str, text: str, configs: Mapping[str, Any]) -> TurnRecord:
    try:
        return codec.record_from_stored(json.loads(text), configs)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise CorruptRecordError(match_id, f"unreadable turn record: {exc!r}") from exc
