"""In-memory repository: the fake for unit tests, with the same semantics as SQLite/DynamoDB.

Stores documents (not objects), exactly like the real adapters, so serialization bugs surface
in unit tests too. Thread-safe, so race tests can run against it.

Every read returns private objects parsed from JSON text, as a real store's would be. A match
is kept as its JSON text (serialised once, when written; each read parses it once), an order
with its text beside it, and the few fields the "active" queries filter on are kept per match
version, so a query decodes only the matches it returns: the bot, the sandbox and the
benchmark run on this store.
"""

from __future__ import annotations

import json
import logging
import threading
import uuid
from collections.abc import Callable, Iterator, Mapping, MutableMapping, Sequence
from dataclasses import replace
from typing import Any, NamedTuple

from engine import codec
from engine.errors import (
    ChatBusyError,
    ConflictError,
    CorruptRecordError,
    LeaseLostError,
    NotFoundError,
)
from engine.match import Match, Phase, SealedOrder, TurnRecord, merge_remembered
from engine.ports import (
    UPDATE_TTL_SECONDS,
    Loaded,
    Owed,
    Remember,
    UpdateClaim,
    index_users,
    result_users,
)

log = logging.getLogger("sekundant.storage")


def _frozen(doc: dict[str, Any]) -> dict[str, Any]:
    """A private deep copy, as a real store would keep: no object is shared with callers."""
    copied: dict[str, Any] = json.loads(json.dumps(doc))
    return copied


def _row(kept: tuple[Any, ...] | None) -> tuple[float, float, str, int, str] | None:
    """An update record; one written before attempts were counted has three fields."""
    if kept is None:
        return None
    expiry, lease_until, token, *rest = kept
    attempts, error = (*rest, 0, "")[:2]
    return expiry, lease_until, token, int(attempts), str(error)


class _Meta(NamedTuple):
    """What :meth:`MemoryRepository._active` filters on, read from one version of a match."""

    finished: bool
    chat_id: int
    users: frozenset[int]
    wake_at: float | None
    order: tuple[float, str]  # (created_at, id): the order of the "active" lists


class _Docs(MutableMapping[str, dict[str, Any]]):
    """Match documents by id, as the store writes them: JSON text and its version. Tests may
    write raw dicts, and a dict taken out with ``[]`` may be changed in place (``_flag``), so
    from then on that dict is the document (its text is made afresh at each read)."""

    def __init__(self) -> None:
        self._texts: dict[str, tuple[str, Any]] = {}
        self._dicts: dict[str, dict[str, Any]] = {}

    def put_text(self, key: str, text: str, version: int) -> None:
        self._dicts.pop(key, None)
        self._texts[key] = (text, version)

    def text(self, key: str) -> str | None:
        kept = self._texts.get(key)
        if kept is not None:
            return kept[0]
        doc = self._dicts.get(key)
        return None if doc is None else json.dumps(doc)

    def version(self, key: str) -> Any:
        kept = self._texts.get(key)
        return kept[1] if kept is not None else self._dicts[key]["version"]

    def __getitem__(self, key: str) -> dict[str, Any]:
        kept = self._texts.pop(key, None)
        if kept is not None:
            self._dicts[key] = json.loads(kept[0])
        return self._dicts[key]

    def __setitem__(self, key: str, doc: dict[str, Any]) -> None:
        self._texts.pop(key, None)
        self._dicts[key] = doc

    def __delitem__(self, key: str) -> None:
        if self._texts.pop(key, None) is None:
            del self._dicts[key]

    def __contains__(self, key: object) -> bool:
        return key in self._texts or key in self._dicts

    def __iter__(self) -> Iterator[str]:
        return iter([*self._texts, *self._dicts])

    def __len__(self) -> int:
        return len(self._texts) + len(self._dicts)


class MemoryRepository:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.matches = _Docs()
        self.orders: dict[str, dict[str, dict[str, Any]]] = {}
        self.records: dict[str, list[dict[str, Any]]] = {}
        self.configs: dict[str, dict[str, Any]] = {}  # the records' configurations, by reference
        # update id -> (record expiry, lease expiry, token, attempts, error); a lease has a
        # token, "" = done; a released lease has lease expiry 0.
        self.updates: dict[int, tuple[float, float, str, int, str]] = {}
        self.prefs: dict[int, dict[str, Any]] = {}
        self.outbox: dict[str, dict[str, dict[str, Any]]] = {}  # match id -> key -> Owed doc
        # match id -> key -> {"turn", "items"}: remember_messages, beside the document
        self.remembered: dict[str, dict[str, dict[str, Any]]] = {}
        self.failures: dict[str, int] = {}  # failed sweeps in a row (note_failure)
        self.parked: set[str] = set()  # out of due() until the next save
        self.chat_locks: dict[int, str] = {}  # chat id -> the match holding its creation lock
        # Campaigns (engine.ports.CampaignRepository): (user, ruleset, key) -> entry,
        # (chat, ruleset) -> library, (chat, match id) -> result.
        self.rosters: dict[tuple[int, str, str], dict[str, Any]] = {}
        self.libraries: dict[tuple[int, str], dict[str, Any]] = {}
        self.results_by_match: dict[tuple[int, str], dict[str, Any]] = {}
        # The JSON text of a stored order beside the very dict it was made from (a dict
        # replaced behind our back, as tests do, is simply not found), and the _Meta of a
        # match beside the very text it was read from.
        self._order_texts: dict[tuple[str, str], tuple[dict[str, Any], str]] = {}
        self._metas: dict[str, tuple[str, _Meta]] = {}

    def _put_match(self, match: Match, version: int) -> Match:
        """Store ``match`` at ``version``; the stored match, as a private copy."""
        text = json.dumps(codec.match_to_doc(match) | {"version": version})
        self.matches.put_text(match.id, text, version)
        return self._decoded(match.id, text)

    def _decoded(self, match_id: str, text: str) -> Match:
        """The match of document ``text`` with its remembered message ids."""
        match = codec.match_from_doc(json.loads(text))
        kept = self.remembered.get(match_id)
        return replace(match, remembered=_frozen(kept)) if kept else match

    def remember_messages(
        self, match_id: str, key: str, turn: int, items: Sequence[Sequence[int]]
    ) -> None:
        with self._lock:
            if match_id not in self.matches:
                raise NotFoundError(match_id)
            self._remember(match_id, key, turn, items)

    def _remember(self, match_id: str, key: str, turn: int, items: Sequence[Sequence[int]]) -> None:
        """:meth:`remember_messages`'s write (under the lock)."""
        kept = self.remembered.setdefault(match_id, {})
        merged = merge_remembered(kept.get(key), turn, items)
        if merged is not None:
            kept[key] = merged

    def _put_order(self, match_id: str, seal: SealedOrder) -> dict[str, Any]:
        text = json.dumps(codec.order_to_doc(seal))
        stored: dict[str, Any] = json.loads(text)
        self._order_texts[match_id, seal.pid] = (stored, text)
        return stored

    def _order_copy(self, match_id: str, pid: str, doc: dict[str, Any]) -> SealedOrder:
        kept = self._order_texts.get((match_id, pid))
        if kept is None or kept[0] is not doc:
            kept = (doc, json.dumps(doc))
            self._order_texts[match_id, pid] = kept
        return codec.order_from_doc(json.loads(kept[1]))

    def create(self, match: Match, *, lock_chat: bool = False) -> Match:
        with self._lock:
            if match.id in self.matches:
                raise ConflictError(match.id)
            if lock_chat:
                holder = self.chat_locks.get(match.chat_id)
                if holder is not None and self._unfinished(holder):
                    raise ChatBusyError(holder)
                self.chat_locks[match.chat_id] = match.id
            self.orders[match.id] = {}
            self.records[match.id] = []
            return self._put_match(match, 1)

    def _unfinished(self, match_id: str) -> bool:
        text = self.matches.text(match_id)
        return text is not None and json.loads(text).get("phase") != Phase.FINISHED.value

    def load(self, match_id: str) -> Loaded:
        try:
            with self._lock:
                text = self.matches.text(match_id)
                if text is None:
                    raise NotFoundError(match_id)
                match = self._decoded(match_id, text)
                try:
                    orders = {
                        pid: self._order_copy(match_id, pid, o)
                        for pid, o in self.orders[match_id].items()
                        if o["turn"] == match.turn
                    }
                except (KeyError, TypeError, ValueError) as exc:
                    raise CorruptRecordError(match_id, f"unreadable order: {exc!r}") from exc
                return Loaded(match, orders)
        except CorruptRecordError as exc:
            self._corrupt(exc)
            raise

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
        with self._lock:
            if match.id not in self.matches:
                raise NotFoundError(match.id)
            if self.matches.version(match.id) != expected_version:
                raise ConflictError(match.id)
            if entry is not None and not self._holds(entry):
                raise LeaseLostError(match.id)
            orders = self.orders[match.id]
            if seal is not None:
                orders[seal.pid] = self._put_order(match.id, seal)
            if withdraw is not None:
                orders.pop(withdraw, None)
            if record is not None:
                doc, configs = codec.record_to_stored(record)
                self.records[match.id].append(_frozen(doc))
                self.configs.setdefault(match.id, {}).update(_frozen(configs))
                for pid in [p for p, o in orders.items() if o["turn"] <= record.turn]:
                    del orders[pid]
            if discard_orders:
                orders.clear()
            if drop_record is not None:
                self.records[match.id] = [
                    r for r in self.records[match.id] if r["turn"] != drop_record
                ]
            box = self.outbox.setdefault(match.id, {})
            for item in owe:
                box[item.key] = _frozen(replace(item, token="", lease=0.0, done=False).to_doc())
            if entry is not None:
                box[entry.key] = _frozen(entry.to_doc())
            self.failures.pop(match.id, None)
            self.parked.discard(match.id)
            return self._put_match(match, expected_version + 1)

    def _active(self, wanted: Callable[[_Meta], bool]) -> list[Match]:
        """Unfinished matches whose :class:`_Meta` is ``wanted``, oldest first. A match is
        decoded in full only when it is returned, or once per version to read its _Meta."""
        found: list[tuple[tuple[float, str], str]] = []
        texts: dict[str, str] = {}
        for match_id in list(self.matches):
            text = texts[match_id] = self.matches.text(match_id) or "{}"
            kept = self._metas.get(match_id)
            if kept is None or kept[0] is not text:
                try:
                    m = codec.match_from_doc(json.loads(text))
                except CorruptRecordError as exc:  # flag it and go on: one bad match hides none
                    log.error("corrupt record: match %s: %s", match_id, exc.detail)
                    self._flag(match_id, exc.detail)
                    continue
                meta = _Meta(
                    m.phase is Phase.FINISHED,
                    m.chat_id,
                    frozenset(index_users(m)),
                    m.wake_at,
                    (m.created_at, m.id),
                )
                kept = (text, meta)
                self._metas[match_id] = kept
            if not kept[1].finished and wanted(kept[1]):
                found.append((kept[1].order, match_id))
        found.sort()
        return [self._decoded(mid, texts[mid]) for _, mid in found]

    def active_in_chat(self, chat_id: int) -> list[Match]:
        with self._lock:
            return self._active(lambda meta: meta.chat_id == chat_id)

    def active_for_user(self, user_id: int) -> list[Match]:
        with self._lock:
            return self._active(lambda meta: user_id in meta.users)

    def due(self, now: float, limit: int = 50) -> list[str]:
        with self._lock:
            due = self._active(lambda meta: meta.wake_at is not None and meta.wake_at <= now)
            due = [m for m in due if m.id not in self.parked]
            due.sort(key=lambda m: m.wake_at or 0.0)
            return [m.id for m in due[:limit]]

    def history(self, match_id: str, *, since: int = 0) -> list[TurnRecord]:
        try:
            with self._lock:
                try:
                    configs = self.configs.get(match_id, {})
                    return [
                        codec.record_from_stored(_frozen(r), configs)
                        for r in self.records.get(match_id, [])
                        if since <= 0 or r["turn"] >= since
                    ]
                except (KeyError, TypeError, ValueError) as exc:
                    detail = f"unreadable turn record: {exc!r}"
                    raise CorruptRecordError(match_id, detail) from exc
        except CorruptRecordError as exc:
            self._corrupt(exc)
            raise

    def claim_update(self, update_id: int, now: float, lease: float) -> UpdateClaim:
        with self._lock:
            kept = _row(self.updates.get(update_id))
            attempts, error = 0, ""
            if kept is not None and kept[0] > now:
                _, lease_until, token, attempts, error = kept
                if not token:
                    return UpdateClaim("done")
                if lease_until > now:
                    return UpdateClaim("processing")
            token = uuid.uuid4().hex
            attempts += 1
            self.updates[update_id] = (
                now + UPDATE_TTL_SECONDS,
                now + lease,
                token,
                attempts,
                error,
            )
            return UpdateClaim("claimed", token, attempts, error)

    def confirm_update(self, update_id: int, token: str, now: float) -> bool:
        with self._lock:
            kept = _row(self.updates.get(update_id))
            if kept is None or not token or kept[2] != token:
                return False
            self.updates[update_id] = (now + UPDATE_TTL_SECONDS, 0.0, "", kept[3], kept[4])
            return True

    def release_update(self, update_id: int, token: str, error: str = "") -> None:
        with self._lock:
            kept = _row(self.updates.get(update_id))
            if kept is not None and token and kept[2] == token:
                self.updates[update_id] = (kept[0], 0.0, token, kept[3], error)

    def flag(self, match_id: str, detail: str) -> None:
        with self._lock:
            self._flag(match_id, detail)

    def _flag(self, match_id: str, detail: str) -> None:
        # Like the real adapters: only attention and version change, and the version bump makes
        # a writer that loaded before the flag retry (so the flag is never overwritten unseen).
        doc = self.matches.get(match_id)  # from now on this dict is the document (_Docs)
        if doc is None:
            return
        doc["attention"] = detail
        if isinstance(doc.get("version"), int):
            doc["version"] += 1

    def _corrupt(self, exc: CorruptRecordError) -> None:
        log.error("corrupt record: match %s: %s", exc.match_id, exc.detail)
        self.flag(exc.match_id, exc.detail)

    # ------------------------------------------------------------------ outbox

    def owed(self, match_id: str) -> list[Owed]:
        with self._lock:
            items = [Owed.from_doc(_frozen(d)) for d in self.outbox.get(match_id, {}).values()]
        return sorted((i for i in items if not i.done), key=lambda i: i.seq)

    def claim_owed(self, match_id: str, key: str, now: float, lease: float) -> Owed | None:
        with self._lock:
            doc = self.outbox.get(match_id, {}).get(key)
            if doc is None or doc["done"] or doc["next_at"] > now or doc["lease"] > now:
                return None
            doc["token"], doc["lease"] = uuid.uuid4().hex, now + lease
            return Owed.from_doc(_frozen(doc))

    def _holds(self, item: Owed) -> bool:
        """Whether the stored item ``item.key`` is still leased with ``item.token``."""
        doc = self.outbox.get(item.match_id, {}).get(item.key)
        return doc is not None and bool(item.token) and doc["token"] == item.token

    def update_owed(self, item: Owed, *, remember: Remember | None = None) -> bool:
        with self._lock:
            if not self._holds(item):
                return False
            self.outbox[item.match_id][item.key] = _frozen(item.to_doc())
            if remember is not None:
                self._remember(item.match_id, remember.key, remember.turn, remember.items)
            return True

    def owed_due(self, now: float, limit: int = 100) -> list[str]:
        with self._lock:
            found = sorted(
                (d["next_at"], mid)
                for mid, box in self.outbox.items()
                for d in box.values()
                if not d["done"] and d["next_at"] <= now
            )
        return list(dict.fromkeys(mid for _, mid in found))[:limit]

    def note_failure(self, match_id: str, detail: str, park_after: int) -> bool:
        with self._lock:
            n = self.failures[match_id] = self.failures.get(match_id, 0) + 1
            if n < park_after or match_id in self.parked:
                return False
            self.parked.add(match_id)
            self._flag(match_id, detail)
            return True

    def load_prefs(self, user_id: int) -> dict[str, Any]:
        with self._lock:
            return dict(self.prefs.get(user_id, {}))

    def save_prefs(self, user_id: int, prefs: Mapping[str, Any]) -> None:
        with self._lock:
            self.prefs[user_id] = dict(prefs)

    def set_pref(self, user_id: int, field: str, value: Any) -> None:
        with self._lock:
            prefs = self.prefs.setdefault(user_id, {})
            if value is None:
                prefs.pop(field, None)
            else:
                prefs[field] = value

    # ------------------------------------------------------------------ campaigns

    def roster(self, user_id: int, ruleset: str) -> list[dict[str, Any]]:
        with self._lock:
            found = [
                _frozen(doc)
                for (uid, rid, _), doc in self.rosters.items()
                if uid == user_id and rid == ruleset
            ]
        return sorted(found, key=lambda e: str(e["key"]))

    def put_characters(self, user_id: int, entries: Sequence[Mapping[str, Any]]) -> None:
        with self._lock:
            for e in entries:
                self.rosters[user_id, str(e["ruleset"]), str(e["key"])] = _frozen(dict(e))

    def delete_character(self, user_id: int, ruleset: str, key: str) -> bool:
        with self._lock:
            return self.rosters.pop((user_id, ruleset, key), None) is not None

    def library(self, chat_id: int, ruleset: str) -> dict[str, Any] | None:
        with self._lock:
            doc = self.libraries.get((chat_id, ruleset))
            return None if doc is None else _frozen(doc)

    def put_library(self, chat_id: int, ruleset: str, doc: Mapping[str, Any]) -> None:
        with self._lock:
            self.libraries[chat_id, ruleset] = _frozen(dict(doc))

    def delete_library(self, chat_id: int, ruleset: str) -> bool:
        with self._lock:
            return self.libraries.pop((chat_id, ruleset), None) is not None

    def results(self, chat_id: int) -> list[dict[str, Any]]:
        with self._lock:
            return [_frozen(d) for (cid, _), d in self.results_by_match.items() if cid == chat_id]

    def user_results(self, user_id: int) -> list[dict[str, Any]]:
        with self._lock:
            docs = list(self.results_by_match.values())
        return [_frozen(d) for d in docs if user_id in result_users(d)]

    def put_result(self, doc: Mapping[str, Any]) -> None:
        with self._lock:
            self.results_by_match[int(doc["chat_id"]), str(doc["match_id"])] = _frozen(dict(doc))

    def delete_result(self, chat_id: int, match_id: str) -> bool:
        with self._lock:
            return self.results_by_match.pop((chat_id, match_id), None) is not None
