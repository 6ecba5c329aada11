"""In-memory repository: the fake for unit tests, with the same semantics as SQLite/DynamoDB.

Stores documents (not objects), exactly like the real adapters, so serialization bugs surface
in unit tests too. Thread-safe, so race tests can run against it.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Mapping
from typing import Any

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


class MemoryRepository:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.matches: dict[str, dict[str, Any]] = {}
        self.orders: dict[str, dict[str, dict[str, Any]]] = {}
        self.records: dict[str, list[dict[str, Any]]] = {}
        self.updates: dict[int, float] = {}
        self.prefs: dict[int, dict[str, Any]] = {}

    def create(self, match: Match) -> Match:
        with self._lock:
            if match.id in self.matches:
                raise ConflictError(match.id)
            stored = _frozen(codec.match_to_doc(match) | {"version": 1})
            self.matches[match.id] = stored
            self.orders[match.id] = {}
            self.records[match.id] = []
            return codec.match_from_doc(_frozen(stored))

    def load(self, match_id: str) -> Loaded:
        try:
            with self._lock:
                doc = self.matches.get(match_id)
                if doc is None:
                    raise NotFoundError(match_id)
                match = codec.match_from_doc(_frozen(doc))
                try:
                    orders = {
                        pid: codec.order_from_doc(_frozen(o))
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
            stored = _frozen(codec.match_to_doc(match) | {"version": expected_version + 1})
            orders = self.orders[match.id]
            if seal is not None:
                orders[seal.pid] = _frozen(codec.order_to_doc(seal))
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
            return codec.match_from_doc(_frozen(stored))

    def _active(self) -> list[Match]:
        out = []
        for match_id, doc in self.matches.items():
            try:
                out.append(codec.match_from_doc(_frozen(doc)))
            except CorruptRecordError as exc:  # flag it and go on: one bad match hides no other
                log.error("corrupt record: match %s: %s", match_id, exc.detail)
                self._flag(match_id, exc.detail)
        return sorted(
            (m for m in out if m.phase is not Phase.FINISHED), key=lambda m: (m.created_at, m.id)
        )

    def active_in_chat(self, chat_id: int) -> list[Match]:
        with self._lock:
            return [m for m in self._active() if m.chat_id == chat_id]

    def active_for_user(self, user_id: int) -> list[Match]:
        with self._lock:
            return [m for m in self._active() if user_id in index_users(m)]

    def due(self, now: float, limit: int = 50) -> list[str]:
        with self._lock:
            due = [m for m in self._active() if m.wake_at is not None and m.wake_at <= now]
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
