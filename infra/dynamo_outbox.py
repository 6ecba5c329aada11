"""The outbox on DynamoDB: owed items (``engine.ports.Owed``) as entries of the match item.

Each pending item is one entry of the match item's map ``ow`` (key -> entry), written by the
save that owes it in the same ``UpdateItem`` as the match (no transaction of its own), and
delivered with 1-unit conditional updates of that entry alone, none of which touches the
match's ``version`` or conflicts with a concurrent save (docs/storage.md, "The outbox"):

=======  ====================================================================================
``d``    what is owed: ``[kind, chat_id, turn, seq, created_at, data]`` as JSON (S), or packed
         (B, :mod:`infra.docpack`) when that is shorter
``s``    the journal (``Owed.sent``): JSON, or packed when shorter (absent while empty)
``a``    attempts, ``e`` the last error, ``n`` ``next_at`` (each absent while 0 / empty)
``t``    the deliverer's lease token, ``l`` the lease's end (absent until claimed)
=======  ====================================================================================

The sweeper finds a match with pending entries through the sparse index ``OwedKeys``
(``OWPK`` = ``O``, ``OWAT`` = the time its entries may be sent): an owing save sets the two
attributes (``OWAT`` 0: due at once, so a later owing save leaves the index entry as it is),
the write that removes the last entry removes them, a failure's backoff moves ``OWAT`` when
its entry is the only one. Delivered and given-up entries are removed (a given-up one is
logged at ERROR, whole).

Items of the layout before (``OWED#<key>``, indexed in GSI1 as ``OWED``) are still listed,
claimed, delivered and deleted the old way: matches in flight at deploy time.
"""

from __future__ import annotations

import json
import logging
import math
import threading
import time
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from botocore.exceptions import ClientError

from engine.ports import Owed, Remember
from infra import docpack
from infra.dynamo_remember import numbers as remembered_numbers
from infra.dynamo_remember import stored_turn as remembered_turn
from infra.dynamo_remember import write_clauses as remember_clauses
from infra.dynamo_values import Item
from infra.dynamo_values import dumps as _dumps
from infra.dynamo_values import n as _n
from infra.dynamo_values import s as _s
from infra.dynamo_values import sortable as _sortable

log = logging.getLogger("sekundant.storage")

OWE = "ow"  # the match item's map of pending owed entries: key -> entry
OWED_INDEX = "OwedKeys"
OWED_PK = "OWPK"  # "O" while the match has pending entries (sparse index)
OWED_AT = "OWAT"  # N: when they may be sent (0: at once)
OWED_PK_VALUE = "O"
LOCKED = "lk"
"""The match item's flag (N 1) while its turn is locked, waiting for its beacon round. The
sweeper finds a locked match here, in ``OwedKeys``, not in the deadline index (whose keys a
locked match's saves leave as they are: two index writes a turn fewer): a save of a locked
match puts it in this index if it is not (the lock message is owed anyway), and nothing takes
it out while the flag is set (docs/storage.md, "Locked turns and the indexes")."""
OWED_SK = "OWED#"  # items of the older layout
OWED_TTL_SECONDS = 14 * 24 * 3600  # an older-layout item given up is kept this long
LEGACY_TOKEN = "i"  # leases on older-layout items (an inline token is hex: never starts so)
INLINE_TOKEN_CHARS = 12  # 48 random bits: two deliverers never draw the same
_CLAIMS_MAX = 1024
VIEW_SECONDS = 10.0  # how long a save's own view of what it owes stands for a read


def _compact(doc: Any) -> dict[str, Any]:
    """``doc`` as JSON (S), or packed (B) when that is shorter: a journal of a few messages
    packs to under half (repeated chat ids and dates), a lock entry's fields do not."""
    text = _dumps(doc)
    packed = docpack.pack(text)
    return {"B": packed} if len(packed) < len(text.encode()) else {"S": text}


def _uncompact(value: Mapping[str, Any]) -> Any:
    return json.loads(docpack.unpack(bytes(value["B"])) if "B" in value else value["S"])


def _number(value: float) -> dict[str, str]:
    return _n(float(value)) if value != int(value) else _n(int(value))


def entry_value(item: Owed) -> dict[str, Any]:
    """The map entry of a pending ``item`` as its save writes it (never leased)."""
    fields: dict[str, Any] = {
        "d": _compact([item.kind, item.chat_id, item.turn, item.seq, item.created_at, item.data])
    }
    fields.update({k: v for k, v in _mutable(item).items() if v is not None})
    return {"M": fields}


def _mutable(item: Owed) -> dict[str, Any]:
    """What a delivery changes (None: absent)."""
    return {
        "s": _compact(item.sent) if item.sent else None,
        "a": _n(item.attempts) if item.attempts else None,
        "e": _s(item.error) if item.error else None,
        "n": _number(item.next_at) if item.next_at else None,
        "l": _number(item.lease) if item.lease else None,
    }


def entry_owed(match_id: str, key: str, entry: Mapping[str, Any]) -> Owed:
    """The :class:`Owed` an entry of the map stores."""
    e = entry["M"]
    kind, chat_id, turn, seq, created_at, data = _uncompact(e["d"])
    return Owed(
        match_id=match_id,
        key=key,
        kind=kind,
        chat_id=chat_id,
        turn=turn,
        seq=seq,
        created_at=created_at,
        data=data,
        sent=_uncompact(e["s"]) if "s" in e else {},
        attempts=int(e["a"]["N"]) if "a" in e else 0,
        next_at=float(e["n"]["N"]) if "n" in e else 0.0,
        error=e["e"]["S"] if "e" in e else "",
        token=e["t"]["S"] if "t" in e else "",
        lease=float(e["l"]["N"]) if "l" in e else 0.0,
    )


def _refused(exc: ClientError) -> bool:
    """A claim's condition failed: the entry is not there or not free. (An item without the
    map at all may be refused as an invalid document path rather than by the condition.)"""
    error = exc.response.get("Error", {})
    if error.get("Code") == "ConditionalCheckFailedException":
        return True
    return error.get("Code") == "ValidationException" and "document path" in error.get(
        "Message", ""
    )


class InlineOutbox:
    """The outbox methods of :class:`infra.dynamodb.DynamoRepository` (a mixin: it needs
    ``client``, ``table`` and ``_query``)."""

    client: Any
    table: str
    _remembered_turns: dict[tuple[str, str], int]  # (infra.dynamo_remember.InlineRemembered)

    def _query(self, **kwargs: Any) -> Iterator[Item]:  # pragma: no cover - the repository's
        raise NotImplementedError

    if TYPE_CHECKING:  # the repository's (infra.dynamo_remember.InlineRemembered)

        def remember_messages(self, match_id: str, key: str, turn: int, items: Any) -> None: ...

    def _init_outbox(self) -> None:
        # (match id, key, token) -> how many entries the match had when this instance claimed
        # it: the write that ends a sole entry also takes the match out of the index.
        self._claims: dict[tuple[str, str, str], int] = {}
        self._claims_lock = threading.Lock()
        # What this instance's own save just wrote into a match's empty outbox, for the
        # ``owed`` that follows it (by when, monotonic), and the matches an ``owed`` read found
        # no older-layout item in (new code writes none: they only go).
        self._views: dict[str, tuple[float, list[Owed]]] = {}
        self._clean: set[str] = set()

    @staticmethod
    def _owe_key(match_id: str) -> Item:
        return {"PK": _s(f"MATCH#{match_id}"), "SK": _s("CUR#MATCH")}

    # ------------------------------------------------------------------ reads

    def remember_owed(self, match_id: str, owe: Mapping[str, Owed] | None) -> None:
        """After a save of ``match_id`` that wrote ``owe``: when the outbox was empty before it
        (``owe`` not None) and holds no older-layout item, the ``owed`` that follows (the
        delivery the save's caller makes at once) is what the save wrote, without a read.
        Items saved meanwhile by others are their savers' to deliver; an item of this list
        that another deliverer took meanwhile is refused to the claim, as after a read."""
        with self._claims_lock:
            if not owe or match_id not in self._clean:
                self._views.pop(match_id, None)
                return
            if len(self._views) >= _CLAIMS_MAX:
                self._views.clear()
            fresh = {k: replace(o, token="", lease=0.0) for k, o in owe.items()}  # as saved
            listed = [entry_owed(match_id, k, entry_value(o)) for k, o in fresh.items()]
            self._views[match_id] = (time.monotonic(), sorted(listed, key=lambda o: o.seq))

    def owed(self, match_id: str) -> list[Owed]:
        with self._claims_lock:
            at, view = self._views.pop(match_id, (-math.inf, []))
        if time.monotonic() - at < VIEW_SECONDS:
            return view
        # One Query: the match item and, after it, items of the older layout ("CUR#ORDER#..."
        # and "OWED#..." sort between "CUR#MATCH" and "OWED$"; the history does not).
        items = self._query(
            KeyConditionExpression="PK = :pk AND SK BETWEEN :from AND :to",
            ExpressionAttributeValues={
                ":pk": _s(f"MATCH#{match_id}"),
                ":from": _s("CUR#MATCH"),
                ":to": _s("OWED$"),
            },
            ProjectionExpression="SK, #w, #q, #d, #l",
            ExpressionAttributeNames={"#w": OWE, "#q": OWED_PK, "#d": "doc", "#l": LOCKED},
            ConsistentRead=True,
        )
        inline: dict[str, Owed] = {}
        legacy: list[Owed] = []
        marked = False
        for item in items:
            sk = item["SK"]["S"]
            if sk == "CUR#MATCH":
                marked = OWED_PK in item and LOCKED not in item  # (locked: it stays)
                for key, entry in item.get(OWE, {}).get("M", {}).items():
                    inline[key] = entry_owed(match_id, key, entry)
            elif sk.startswith(OWED_SK):
                old = Owed.from_doc(json.loads(item["doc"]["S"]))
                if not old.done:
                    legacy.append(old)
        if not legacy and len(self._clean) < _CLAIMS_MAX:
            self._clean.add(match_id)
        shadowed = [o for o in legacy if o.key in inline]  # owed again since: the entry wins
        for old in shadowed:
            self.client.delete_item(TableName=self.table, Key=self._legacy_key(old))
        if marked and not inline:
            self._unmark(match_id)
        pending = [*inline.values(), *(o for o in legacy if o.key not in inline)]
        return sorted(pending, key=lambda o: o.seq)

    def owed_due(self, now: float, limit: int = 100) -> list[str]:
        found: list[tuple[float, str]] = []
        for i in self._query(
            IndexName=OWED_INDEX,
            KeyConditionExpression="#q = :o AND #at <= :now",
            ExpressionAttributeNames={"#q": OWED_PK, "#at": OWED_AT},
            ExpressionAttributeValues={":o": _s(OWED_PK_VALUE), ":now": _n(now)},
            Limit=min(limit, 1000),
        ):
            found.append((float(i[OWED_AT]["N"]), i["PK"]["S"].removeprefix("MATCH#")))
            if len(found) >= limit:
                break
        for i in self._query(  # items of the older layout
            IndexName="GSI1",
            KeyConditionExpression="GSI1PK = :o AND GSI1SK < :upper",
            ExpressionAttributeValues={":o": _s("OWED"), ":upper": _s(f"{_sortable(now)}$")},
        ):
            at = float(i["GSI1SK"]["S"].split("#", 1)[0])
            found.append((at, i["PK"]["S"].removeprefix("MATCH#")))
            if len(found) >= 2 * limit:
                break
        return list(dict.fromkeys(mid for _, mid in sorted(found)))[:limit]

    # ------------------------------------------------------------------ the save's part

    @staticmethod
    def owe_clauses(owe: Mapping[str, Owed], whole: bool) -> tuple[list[str], Item, Item]:
        """The SET clauses (names, values) that put ``owe`` in the match item beside the
        save's own: each entry replaces one of its key (its lease too); ``whole`` when the
        item has no map yet. And the index keys: due at once."""
        names: Item = {}
        values: Item = {}
        sets: list[str] = []
        if not owe:
            return sets, names, values
        names["#w"] = OWE  # type: ignore[assignment]
        entries = {key: entry_value(replace(o, token="", lease=0.0)) for key, o in owe.items()}
        if whole:
            values[":w"] = {"M": entries}
            sets.append("#w = :w")
        else:
            for i, (key, value) in enumerate(entries.items()):
                names[f"#k{i}"], values[f":k{i}"] = key, value  # type: ignore[assignment]
                sets.append(f"#w.#k{i} = :k{i}")
        names["#oq"], names["#oa"] = OWED_PK, OWED_AT  # type: ignore[assignment]
        values[":oq"], values[":oa"] = _s(OWED_PK_VALUE), _n(0)
        sets += ["#oq = :oq", "#oa = :oa"]
        return sets, names, values

    @staticmethod
    def owing_clauses() -> tuple[list[str], Item, Item]:
        """The SET clauses (names, values) that put the match in the index when it is not
        there (a locked match's save that owes nothing: :data:`LOCKED`), leaving its time as it
        is when it is."""
        names: Item = {"#oq": OWED_PK, "#oa": OWED_AT}  # type: ignore[dict-item]
        values: Item = {":oq": _s(OWED_PK_VALUE), ":oa": _n(0)}
        return ["#oq = :oq", "#oa = if_not_exists(#oa, :oa)"], names, values

    @staticmethod
    def entry_clauses(entry: Owed) -> tuple[list[str], list[str], str, Item, Item]:
        """The clauses that write ``entry`` (an owed item being delivered) in a save's own
        ``UpdateItem``, as :meth:`update_owed` would (its journal; ``done``: removed), and the
        condition that its lease is still ``entry.token``: SET and REMOVE clauses, the
        condition, names, values."""
        names: Item = {"#w": OWE, "#ek": entry.key}  # type: ignore[dict-item]
        values: Item = {":et": _s(entry.token)}
        sets: list[str] = []
        removes: list[str] = []
        if entry.done:
            removes.append("#w.#ek")
        else:
            for i, (field, value) in enumerate(_mutable(entry).items()):
                names[f"#ef{i}"] = field  # type: ignore[assignment]
                if value is None:
                    removes.append(f"#w.#ek.#ef{i}")
                else:
                    values[f":ef{i}"] = value
                    sets.append(f"#w.#ek.#ef{i} = :ef{i}")
        return sets, removes, "#w.#ek.t = :et", names, values

    def entry_saved(self, entry: Owed, *, locked: bool = False) -> None:
        """After a save wrote ``entry``: an ended one is done with as :meth:`update_owed`'s
        end (logged when given up), and the match leaves the index when no entry is left,
        unless the save ``locked`` it (:data:`LOCKED`)."""
        with self._claims_lock:
            self._views.pop(entry.match_id, None)  # what a save owed is no longer all there is
        if entry.done:
            self._ending(entry)
            if not locked:
                self._unmark(entry.match_id)  # (conditional: only when no entry is pending)

    @staticmethod
    def _ending(item: Owed) -> None:
        """An entry is being removed (delivered or given up): log a given-up one."""
        if item.error:
            # Given up: the entry goes (it would hold back nothing, and kept per turn it
            # would grow the match item); the log keeps it for the operator.
            log.error(
                "owed %s of match %s given up and removed: %s",
                item.key,
                item.match_id,
                _dumps(item.to_doc()),
            )

    # ------------------------------------------------------------------ delivery

    def claim_owed(self, match_id: str, key: str, now: float, lease: float) -> Owed | None:
        token = uuid.uuid4().hex[:INLINE_TOKEN_CHARS]
        try:
            got = self.client.update_item(
                TableName=self.table,
                Key=self._owe_key(match_id),
                UpdateExpression="SET #w.#k.t = :t, #w.#k.l = :l",
                ConditionExpression="attribute_exists(#w.#k)"
                " AND (attribute_not_exists(#w.#k.l) OR #w.#k.l <= :now)"
                " AND (attribute_not_exists(#w.#k.n) OR #w.#k.n <= :now)",
                ExpressionAttributeNames={"#w": OWE, "#k": key},
                ExpressionAttributeValues={
                    ":t": _s(token),
                    ":l": _number(now + lease),
                    ":now": _number(now),
                },
                ReturnValues="ALL_NEW",
                ReturnValuesOnConditionCheckFailure="ALL_OLD",
            )
        except ClientError as exc:
            if not _refused(exc):
                raise
            held = exc.response.get("Item", {}).get(OWE, {}).get("M", {})
            if key in held:
                return None  # leased by another deliverer, or backing off
            return self._claim_legacy(match_id, key, now, lease)
        box = got["Attributes"][OWE]["M"]
        with self._claims_lock:
            if len(self._claims) >= _CLAIMS_MAX:
                self._claims.clear()
            # A locked match stays in the index whatever its entries (LOCKED): its end never
            # tries to take it out (a refused write is billed too).
            sole = 0 if LOCKED in got["Attributes"] else len(box)
            self._claims[(match_id, key, token)] = sole
        return entry_owed(match_id, key, box[key])

    def update_owed(self, item: Owed, *, remember: Remember | None = None) -> bool:
        if not item.token:
            return False
        if item.token.startswith(LEGACY_TOKEN):
            written = self._update_legacy(item)
            if written and remember is not None:  # an item of its own: the ids apart
                self.remember_messages(item.match_id, remember.key, remember.turn, remember.items)
            return written
        with self._claims_lock:
            sole = self._claims.get((item.match_id, item.key, item.token)) == 1
        if item.done:
            self._ending(item)
            return self._end(item, sole, remember)
        if item.next_at:
            # Backing off (rare): when it is the match's only entry, the index waits for it.
            done = self._write_entry(item, sole=True, remember=remember)
            if done is not None:
                return done
        return bool(self._write_entry(item, sole=False, remember=remember))

    def _write_entry(
        self, item: Owed, *, sole: bool, remember: Remember | None = None
    ) -> bool | None:
        """The entry's journal, attempts, backoff and lease, if ``item.token`` still holds
        it. ``sole``: also move the index's time to ``next_at``, if no other entry is
        pending (None when another is: nothing written)."""
        names = {"#w": OWE, "#k": item.key}
        values: Item = {":t": _s(item.token)}
        sets: list[str] = []
        removes: list[str] = []
        for i, (field, value) in enumerate(_mutable(item).items()):
            names[f"#f{i}"] = field
            if value is None:
                removes.append(f"#w.#k.#f{i}")
            else:
                values[f":f{i}"] = value
                sets.append(f"#w.#k.#f{i} = :f{i}")
        condition = "#w.#k.t = :t"
        if sole:
            names["#oa"] = OWED_AT
            values[":oa"], values[":one"] = _number(item.next_at), _n(1)
            sets.append("#oa = :oa")
            condition += " AND size(#w) = :one"
        return self._if_token(item, (sets, removes), condition, names, values, sole, remember)

    def _end(self, item: Owed, sole: bool, remember: Remember | None = None) -> bool:
        """Remove the entry (delivered or given up), and the match from the index when it
        was the last one (``sole``: the claim saw no other) and the match is not locked."""
        names = {"#w": OWE, "#k": item.key}
        values: Item = {":t": _s(item.token)}
        if sole:  # (a locked match stays in the index: LOCKED)
            names.update({"#oq": OWED_PK, "#oa": OWED_AT, "#lk": LOCKED})
            values[":one"] = _n(1)
            done = self._if_token(
                item,
                ([], ["#w.#k", "#oq", "#oa"]),
                "#w.#k.t = :t AND size(#w) = :one AND attribute_not_exists(#lk)",
                names,
                values,
                True,
                remember,
            )
            if done is not None:
                return done
            del names["#oq"], names["#oa"], names["#lk"], values[":one"]
        after: dict[str, Any] = {}
        done = self._if_token(
            item, ([], ["#w.#k"]), "#w.#k.t = :t", names, values, False, remember, after
        )
        if done and not after.get(OWE, {}).get("M") and LOCKED not in after:
            self._unmark(item.match_id)  # the last one after all (the others went meanwhile)
        return bool(done)

    def _if_token(
        self,
        item: Owed,
        clauses: tuple[list[str], list[str]],
        condition: str,
        names: Mapping[str, str],
        values: Item,
        sole: bool,
        remember: Remember | None = None,
        after: dict[str, Any] | None = None,
    ) -> bool | None:
        """One conditional UpdateItem of the entry (``clauses``: its SET and REMOVE ones).
        False when the token no longer holds it; with ``sole``, None when it does but other
        entries are pending. ``remember``: message ids remembered in the same write (as
        ``remember_messages``: added to the same turn's, replacing an older turn's, left out
        when a later turn's are stored); ``after``: filled with the item as written."""
        turn_key, add = (item.match_id, ""), False
        if remember is not None:  # the same turn as this instance last saw: add to it
            turn_key = (item.match_id, remember.key)
            add = self._remembered_turns.get(turn_key) == remember.turn
        for _ in range(4):
            request = self._entry_request(item, clauses, condition, names, values, remember, add)
            if after is not None:
                request["ReturnValues"] = "ALL_NEW"  # (UPDATED_NEW says nothing of a removal)
            try:
                got = self.client.update_item(**request)
            except ClientError as exc:
                if exc.response["Error"]["Code"] != "ConditionalCheckFailedException":
                    raise
                old = exc.response.get("Item", {})
                entry = old.get(OWE, {}).get("M", {}).get(item.key)
                ours = entry is not None and entry["M"].get("t", {}).get("S") == item.token
                if ours and remember is not None:
                    stored = remembered_turn(old, remember.key)
                    if stored > remember.turn:  # a later turn's are there: these are stale
                        remember = None
                        continue
                    if add != (stored == remember.turn):  # someone else wrote meanwhile
                        add = stored == remember.turn
                        continue
                return None if sole and ours else False
            if after is not None:
                after.update(got.get("Attributes", {}))
            if remember is not None:
                self._remembered_turns[turn_key] = remember.turn
            return True
        return False

    def _entry_request(
        self,
        item: Owed,
        clauses: tuple[list[str], list[str]],
        condition: str,
        names: Mapping[str, str],
        values: Item,
        remember: Remember | None,
        add: bool,
    ) -> dict[str, Any]:
        """The UpdateItem of :meth:`_if_token`, with ``remember``'s clauses (``add``: to the
        stored turn's, else replacing an older turn's)."""
        sets, removes = list(clauses[0]), list(clauses[1])
        names, values = dict(names), dict(values)
        adds: list[str] = []
        if remember is not None:
            pairs = remembered_numbers(remember.items)
            r_sets, adds, r_condition, r_names, r_values = remember_clauses(
                remember.key, remember.turn, pairs, add=add
            )
            sets += r_sets
            condition += " AND " + r_condition
            names.update(r_names)
            values.update(r_values)
        parts = [("SET ", sets), ("REMOVE ", removes), ("ADD ", adds)]
        expression = " ".join(word + ", ".join(cl) for word, cl in parts if cl)
        return {
            "TableName": self.table,
            "Key": self._owe_key(item.match_id),
            "UpdateExpression": expression,
            "ConditionExpression": condition,
            "ExpressionAttributeNames": names,
            "ExpressionAttributeValues": values,
            "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
        }

    def _unmark(self, match_id: str) -> None:
        """The match out of the owed index, if no entry is pending (a save may just have
        owed one) and it is not locked (:data:`LOCKED`)."""
        try:
            self.client.update_item(
                TableName=self.table,
                Key=self._owe_key(match_id),
                UpdateExpression="REMOVE #oq, #oa",
                ConditionExpression="attribute_exists(#oq) AND attribute_not_exists(#lk)"
                " AND (attribute_not_exists(#w) OR size(#w) = :zero)",
                ExpressionAttributeNames={
                    "#oq": OWED_PK,
                    "#oa": OWED_AT,
                    "#w": OWE,
                    "#lk": LOCKED,
                },
                ExpressionAttributeValues={":zero": _n(0)},
            )
        except ClientError as exc:
            if exc.response["Error"]["Code"] != "ConditionalCheckFailedException":
                raise

    # ------------------------------------------------------------------ the older layout

    @staticmethod
    def _legacy_key(item: Owed) -> Item:
        return {"PK": _s(f"MATCH#{item.match_id}"), "SK": _s(f"{OWED_SK}{item.key}")}

    def _legacy_item(self, item: Owed) -> Item:
        out: Item = {
            **self._legacy_key(item),
            "type": _s("owed"),
            "doc": _s(_dumps(item.to_doc())),
            "token": _s(item.token),
        }
        if item.done:  # out of the index; swept by TTL after a while
            out["ttl"] = _n(math.ceil(max(item.next_at, item.created_at) + OWED_TTL_SECONDS))
        else:
            out["GSI1PK"] = _s("OWED")
            out["GSI1SK"] = _s(f"{_sortable(item.next_at)}#{item.match_id}#{item.key}")
        return out

    def _claim_legacy(self, match_id: str, key: str, now: float, lease: float) -> Owed | None:
        got = self.client.get_item(
            TableName=self.table,
            Key={"PK": _s(f"MATCH#{match_id}"), "SK": _s(f"{OWED_SK}{key}")},
            ConsistentRead=True,
        )
        if "Item" not in got:
            return None
        item = Owed.from_doc(json.loads(got["Item"]["doc"]["S"]))
        if item.done or item.next_at > now or item.lease > now:
            return None
        token = LEGACY_TOKEN + uuid.uuid4().hex
        claimed = replace(item, token=token, lease=now + lease)
        return claimed if self._put_legacy_if(claimed, item.token) else None

    def _update_legacy(self, item: Owed) -> bool:
        if item.done and not item.error:
            try:  # delivered: deleted
                self.client.delete_item(
                    TableName=self.table,
                    Key=self._legacy_key(item),
                    ConditionExpression="#token = :token",
                    ExpressionAttributeNames={"#token": "token"},
                    ExpressionAttributeValues={":token": _s(item.token)},
                )
            except ClientError as exc:
                if exc.response["Error"]["Code"] == "ConditionalCheckFailedException":
                    return False
                raise
            return True
        return self._put_legacy_if(item, item.token)

    def _put_legacy_if(self, item: Owed, token: str) -> bool:
        try:
            self.client.put_item(
                TableName=self.table,
                Item=self._legacy_item(item),
                ConditionExpression="#token = :token",
                ExpressionAttributeNames={"#token": "token"},
                ExpressionAttributeValues={":token": _s(token)},
            )
        except ClientError as exc:
            if exc.response["Error"]["Code"] == "ConditionalCheckFailedException":
                return False
            raise
        return True
