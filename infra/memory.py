"""In-memory repository: the fake for unit tests, with the same semantics as SQLite/DynamoDB.

Stores documents (not objects), exactly like the real adapters, so serialization bugs surface
in unit tests too. Thread-safe, so race tests can run against it.

Every read returns private objects parsed from JSON text, as a real store's would be. The text
of each stored document is kept beside it (serialised once, when written), and the few fields
the "active" queries filter on are kept per document version, so a query decodes only the
matches it returns: the bot, the sandbox and the benchmark run on this store.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from engine import codec
from engine.errors import ConflictError, CorruptRecordError, NotFoundError
from engine.match import Match, Phase, SealedOrder, TurnRecord
from engine.ports import Loaded, index_users

log = logging.getLogger("sekundant.storage")

UPDATE_TTL_SECONDS = 48 * 3600


def _frozen(doc: dict[str, Any]) -> dict[str, Any]:
    """A private deep copy, as a real store would keep: no object is shared with callers."""
    copied: dict[str, Any] = json.loads(json.dumps(doc))
    return copied


class _Meta(NamedTuple):
    """What :meth:`MemoryRepository._active` filters on, read from one version of a match."""

    finished: bool
    chat_id: int
    users: frozenset[int]
    wake_at: float | None
    order: tuple[float, str]  # (created_at, id): the order of the "active" lists


class MemoryRepository:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.matches: dict[str, dict[str, Any]] = {}
        self.orders: dict[str, dict[str, dict[str, Any]]] = {}
        self.records: dict[str, list[dict[str, Any]]] = {}
        self.updates: dict[int, float] = {}
        self.prefs: dict[int, dict[str, Any]] = {}
        # JSON text of a stored document and the _Meta of a stored match, each beside the very
        # object it was made from: a document replaced behind our back (tests write raw
        # documents) is simply not found, and one changed in place (_flag) is dropped.
        self._texts: dict[Any, tuple[dict[str, Any], str]] = {}
        self._metas: dict[str, tuple[dict[str, Any], _Meta]] = {}

    def _keep(self, key: Any, doc: dict[str, Any]) -> dict[str, Any]:
        """Store a private copy of ``doc`` (returned), remembering its text under ``key``."""
        text = json.dumps(doc)
        stored: dict[str, Any] = json.loads(text)
        self._texts[key] = (stored, text)
        return stored

    def _copy(self, key: Any, doc: dict[str, Any]) -> dict[str, Any]:
        """A private copy of the stored ``doc``, parsed from its text."""
        kept = self._texts.get(key)
        if kept is None or kept[0] is not doc:
            kept = (doc, json.dumps(doc))
            self._texts[key] = kept
        copied: dict[str, Any] = json.loads(kept[1])
        return copied

    def create(self, match: Match) -> Match:
        with self._lock:
            if match.id in self.matches:
                raise ConflictError(match.id)
            stored = self._keep(match.id, codec.match_to_doc(match) | {"version": 1})
            self.matches[match.id] = stored
            self.orders[match.id] = {}
            self.records[match.id] = []
            return codec.match_from_doc(self._copy(match.id, stored))

    def load(self, match_id: str) -> Loaded:
        try:
            with self._lock:
                doc = self.matches.get(match_id)
                if doc is None:
                    raise NotFoundError(match_id)
                match = codec.match_from_doc(self._copy(match_id, doc))
                try:
                    orders = {
                        pid: codec.order_from_doc(self._copy((match_id, pid), o))
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
    ) -> Match:
        with self._lock:
            current = self.matches.get(match.id)
            if current is None:
                raise NotFoundError(match.id)
            if current["version"] != expected_version:
                raise ConflictError(match.id)
            stored = self._keep(
                match.id, codec.match_to_doc(match) | {"version": expected_version + 1}
            )
            orders = self.orders[match.id]
            if seal is not None:
                orders[seal.pid] = self._keep((match.id, seal.pid), codec.order_to_doc(seal))
            if withdraw is not None:
                orders.pop(withdraw, None)
            if record is not None:
                self.records[match.id].append(_frozen(codec.record_to_doc(record)))
                for pid in [p for p, o in orders.items() if o["turn"] <= record.turn]:
                    del orders[pid]
            if discard_orders:
                orders.clear()
            if drop_record is not None:
                self.records[match.id] = [
                    r for r in self.records[match.id] if r["turn"] != drop_record
                ]
            self.matches[match.id] = stored
            return codec.match_from_doc(self._copy(match.id, stored))

    def _active(self, wanted: Callable[[_Meta], bool]) -> list[Match]:
        """Unfinished matches whose :class:`_Meta` is ``wanted``, oldest first. A match is
        decoded in full only when it is returned, or once per version to read its _Meta."""
        found: list[tuple[tuple[float, str], str]] = []
        for match_id, doc in list(self.matches.items()):
            kept = self._metas.get(match_id)
            if kept is None or kept[0] is not doc:
                try:
                    m = codec.match_from_doc(self._copy(match_id, doc))
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
                kept = (doc, meta)
                self._metas[match_id] = kept
            if not kept[1].finished and wanted(kept[1]):
                found.append((kept[1].order, match_id))
        found.sort()
        return [codec.match_from_doc(self._copy(mid, self.matches[mid])) for _, mid in found]

    def active_in_chat(self, chat_id: int) -> list[Match]:
        with self._lock:
            return self._active(lambda meta: meta.chat_id == chat_id)

    def active_for_user(self, user_id: int) -> list[Match]:
        with self._lock:
            return self._active(lambda meta: user_id in meta.users)

    def due(self, now: float, limit: int = 50) -> list[str]:
        with self._lock:
            due = self._active(lambda meta: meta.wake_at is not None and meta.wake_at <= now)
            due.sort(key=lambda m: m.wake_at or 0.0)
            return [m.id for m in due[:limit]]

    def history(self, match_id: str) -> list[TurnRecord]:
        try:
            with self._lock:
                try:
                    return [
                        codec.record_from_doc(_frozen(r)) for r in self.records.get(match_id, [])
                    ]
                except (KeyError, TypeError, ValueError) as exc:
                    detail = f"unreadable turn record: {exc!r}"
                    raise CorruptRecordError(match_id, detail) from exc
        except CorruptRecordError as exc:
            self._corrupt(exc)
            raise

    def drop_last_record(self, match_id: str, turn: int) -> None:
        with self._lock:
            records = self.records.get(match_id, [])
            if records and records[-1]["turn"] == turn:
                records.pop()

    def claim_update(self, update_id: int, now: float) -> bool:
        with self._lock:
            expires = self.updates.get(update_id)
            if expires is not None and expires > now:
                return False
            self.updates[update_id] = now + UPDATE_TTL_SECONDS
            return True

    def release_update(self, update_id: int) -> None:
        with self._lock:
            self.updates.pop(update_id, None)

    def flag(self, match_id: str, detail: str) -> None:
        with self._lock:
            self._flag(match_id, detail)

    def _flag(self, match_id: str, detail: str) -> None:
        # Like the real adapters: only attention and version change, and the version bump makes
        # a writer that loaded before the flag retry (so the flag is never overwritten unseen).
        doc = self.matches.get(match_id)
        if doc is None:
            return
        self._texts.pop(match_id, None)  # changed in place: its text and _Meta are stale
        self._metas.pop(match_id, None)
        doc["attention"] = detail
        if isinstance(doc.get("version"), int):
            doc["version"] += 1

    def _corrupt(self, exc: CorruptRecordError) -> None:
        log.error("corrupt record: match %s: %s", exc.match_id, exc.detail)
        self.flag(exc.match_id, exc.detail)

    def load_prefs(self, user_id: int) -> dict[str, Any]:
        with self._lock:
            return dict(self.prefs.get(user_id, {}))

    def save_prefs(self, user_id: int, prefs: Mapping[str, Any]) -> None:
        with self._lock:
            self.prefs[user_id] = dict(prefs)
