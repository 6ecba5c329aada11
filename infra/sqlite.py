"""SQLite repository: the embedded store for ``make run`` (path from ``SEKUNDANT_DB``).

Same semantics as the in-memory fake and the DynamoDB adapter (one contract suite runs against
all three). WAL mode, so readers never block the writer; every write is one ``BEGIN IMMEDIATE``
transaction whose match update is conditional on the version the caller loaded, so two
processes (or threads) sealing the last orders at once give exactly one resolution. Each thread
gets its own connection: SQLite itself serializes the writers.

Documents are the codec's JSON (with schema and ruleset version); a few columns beside them
(chat, deadline, version, attention) exist only to index and to condition writes.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

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

# PRAGMA user_version: the table layout (documents carry their own schema). 2: the update
# lease (``updates.token`` and ``lease_until``, added to a layout-1 file when it is opened).
# 3: the outbox, the count of failed sweeps, the chats' creation locks and the records'
# configurations (new tables, created when an older file opens), the update's attempts and
# last error (new columns).
LAYOUT_VERSION = 3
OWED_KEEP_SECONDS = 14 * 24 * 3600  # how long a delivered owed item stays (as on DynamoDB)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS matches (
    id         TEXT PRIMARY KEY,
    chat_id    INTEGER NOT NULL,
    created_at REAL NOT NULL,
    active     INTEGER NOT NULL,          -- 1 until the match is finished
    due        REAL,                      -- wake_at: next reminder/deadline/pause end, or NULL
    version    INTEGER NOT NULL,          -- optimistic-concurrency counter (authoritative)
    attention  TEXT,                      -- set by flag(); authoritative over the document
    doc        TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS matches_by_chat ON matches (chat_id, created_at) WHERE active = 1;
CREATE INDEX IF NOT EXISTS matches_by_due ON matches (due) WHERE due IS NOT NULL;
CREATE TABLE IF NOT EXISTS match_users (
    user_id  INTEGER NOT NULL,
    match_id TEXT NOT NULL,
    PRIMARY KEY (user_id, match_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS orders (
    match_id TEXT NOT NULL,
    pid      TEXT NOT NULL,
    turn     INTEGER NOT NULL,
    doc      TEXT NOT NULL,
    PRIMARY KEY (match_id, pid)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS records (
    match_id TEXT NOT NULL,
    turn     INTEGER NOT NULL,
    doc      TEXT NOT NULL,
    PRIMARY KEY (match_id, turn)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS prefs (
    user_id INTEGER PRIMARY KEY,
    doc     TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS updates (
    update_id   INTEGER PRIMARY KEY,
    expires     REAL NOT NULL,            -- the dedup record's end (and a lease's)
    token       TEXT,                     -- a processing lease's token; NULL once done
    lease_until REAL,                     -- when that lease runs out (0: released)
    attempts    INTEGER NOT NULL DEFAULT 0, -- claims so far (layout 3)
    error       TEXT                      -- what the last released attempt failed with
);
CREATE TABLE IF NOT EXISTS outbox (
    match_id TEXT NOT NULL,
    key      TEXT NOT NULL,
    pending  INTEGER NOT NULL,            -- 0 once delivered (or given up)
    next_at  REAL NOT NULL,
    seq      INTEGER NOT NULL,
    token    TEXT NOT NULL,               -- the deliverer's lease token ("" when none)
    doc      TEXT NOT NULL,               -- engine.ports.Owed as JSON
    PRIMARY KEY (match_id, key)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS outbox_due ON outbox (next_at) WHERE pending = 1;
CREATE TABLE IF NOT EXISTS record_configs (
    match_id TEXT NOT NULL,
    ref      TEXT NOT NULL,               -- codec.config_ref: what the records refer to
    doc      TEXT NOT NULL,
    PRIMARY KEY (match_id, ref)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS chat_locks (
    chat_id  INTEGER PRIMARY KEY,         -- one creation lock per chat (create(lock_chat=True))
    match_id TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS sweep_failures (
    match_id TEXT PRIMARY KEY,
    n        INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS roster (         -- campaigns: a player's saved characters
    user_id INTEGER NOT NULL,
    ruleset TEXT NOT NULL,
    key     TEXT NOT NULL,                -- the name's fold (engine.campaign.documents)
    doc     TEXT NOT NULL,
    PRIMARY KEY (user_id, ruleset, key)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS libraries (      -- campaigns: a group's presets per ruleset
    chat_id INTEGER NOT NULL,
    ruleset TEXT NOT NULL,
    doc     TEXT NOT NULL,
    PRIMARY KEY (chat_id, ruleset)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS results (        -- campaigns: the ladder's match results
    chat_id  INTEGER NOT NULL,
    match_id TEXT NOT NULL,
    doc      TEXT NOT NULL,
    PRIMARY KEY (chat_id, match_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS remembered (     -- remember_messages: ids beside the document
    match_id TEXT NOT NULL,
    key      TEXT NOT NULL,
    doc      TEXT NOT NULL,
    PRIMARY KEY (match_id, key)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS result_users (
    user_id  INTEGER NOT NULL,
    chat_id  INTEGER NOT NULL,
    match_id TEXT NOT NULL,
    PRIMARY KEY (user_id, chat_id, match_id)
) WITHOUT ROWID;
"""


_TABLES = frozenset(
    {
        "matches",
        "match_users",
        "orders",
        "records",
        "prefs",
        "updates",
        "outbox",
        "sweep_failures",
        "chat_locks",
        "record_configs",
        "roster",
        "libraries",
        "results",
        "result_users",
        "remembered",
    }
)


class StoreOpenError(ValueError):
    """The SQLite file cannot be used as the store; the message names ``SEKUNDANT_DB``, the
    path and why (a ``ValueError``, so ``sekundant run`` reports it as a one-line usage error)."""


def _dumps(doc: Any) -> str:
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":"))


def _check_store(path: Path) -> None:
    """Refuse a file that is not a store of this layout, before anything writes to it (WAL
    mode, our tables and ``user_version`` would change another program's database)."""
    db = sqlite3.connect(path, timeout=30.0)
    try:
        version = db.execute("PRAGMA user_version").fetchone()[0]
        tables = {
            r[0]
            for r in db.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            )
        }
        columns = {r[1] for r in db.execute("PRAGMA table_info(matches)")}
    finally:
        db.close()
    if tables and ("matches" not in tables or not {"id", "version", "doc"} <= columns):
        raise StoreOpenError(
            f"SEKUNDANT_DB: {path} is not a Sekundant store (tables: {', '.join(sorted(tables))})"
        )
    if version > LAYOUT_VERSION:
        raise StoreOpenError(
            f"SEKUNDANT_DB: {path} has store layout {version}, newer than this version of"
            f" Sekundant ({LAYOUT_VERSION}); upgrade Sekundant to open it"
        )


def _migrate(db: sqlite3.Connection) -> None:
    """Bring a store of an older layout up to :data:`LAYOUT_VERSION` (in the caller's write
    transaction, so two processes opening the same old file do not both alter it)."""
    columns = {r[1] for r in db.execute("PRAGMA table_info(updates)")}
    for name, decl in (
        ("token", "TEXT"),
        ("lease_until", "REAL"),
        ("attempts", "INTEGER NOT NULL DEFAULT 0"),
        ("error", "TEXT"),
    ):
        if name not in columns:  # layout 1: its claims have no token, so they count as done
            db.execute(f"ALTER TABLE updates ADD COLUMN {name} {decl}")
    db.execute(f"PRAGMA user_version = {LAYOUT_VERSION}")


class SqliteRepository:
    """The :class:`~engine.ports.MatchRepository` port on one SQLite file."""

    def __init__(self, path: str | Path, *, synchronous: str = "FULL") -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._synchronous = synchronous
        self._local = threading.local()
        self._connections: list[sqlite3.Connection] = []
        self._guard = threading.Lock()
        try:
            _check_store(self.path)
            db = self._db()
            db.executescript(_SCHEMA)  # idempotent; executescript manages its own transaction
            with self._write(db):
                _migrate(db)
        except sqlite3.DatabaseError as exc:  # also OperationalError (e.g. a directory)
            self.close()
            reason = "not an SQLite database" if type(exc) is sqlite3.DatabaseError else exc
            raise StoreOpenError(f"SEKUNDANT_DB: cannot use {self.path}: {reason}") from None
        except StoreOpenError:
            self.close()
            raise

    # ------------------------------------------------------------------ connections

    def _db(self) -> sqlite3.Connection:
        db: sqlite3.Connection | None = getattr(self._local, "db", None)
        if db is None:
            db = sqlite3.connect(
                self.path, timeout=30.0, isolation_level=None, check_same_thread=False
            )
            db.execute("PRAGMA journal_mode = WAL")
            db.execute(f"PRAGMA synchronous = {self._synchronous}")
            db.execute("PRAGMA busy_timeout = 30000")
            self._local.db = db
            with self._guard:
                self._connections.append(db)
        return db

    def close(self) -> None:
        """Close every connection this repository opened (tests, shutdown)."""
        with self._guard:
            for db in self._connections:
                db.close()
            self._connections.clear()
        self._local = threading.local()

    @contextmanager
    def _write(self, db: sqlite3.Connection | None = None) -> Iterator[sqlite3.Connection]:
        """One write transaction. IMMEDIATE takes the write lock up front, so two writers never
        deadlock upgrading a read lock; the second one waits (busy_timeout) and then sees the
        first one's commit."""
        db = db or self._db()
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
            db.execute("COMMIT")
        except BaseException:
            # A failed COMMIT (I/O error, full disk) may leave the transaction open, holding
            # the write lock; SQLite may also have rolled it back already itself.
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        """One read transaction: every SELECT inside sees the same snapshot."""
        db = self._db()
        db.execute("BEGIN")
        try:
            yield db
        finally:
            db.execute("COMMIT")

    # ------------------------------------------------------------------ matches

    def create(self, match: Match, *, lock_chat: bool = False) -> Match:
        doc = codec.match_to_doc(match) | {"version": 1}
        try:
            with self._write() as db:
                if lock_chat:
                    held = db.execute(
                        "SELECT l.match_id FROM chat_locks l JOIN matches m ON m.id = l.match_id"
                        " WHERE l.chat_id = ? AND m.active = 1",
                        (match.chat_id,),
                    ).fetchone()
                    if held is not None and held[0] != match.id:
                        raise ChatBusyError(held[0])
                    db.execute(
                        "INSERT OR REPLACE INTO chat_locks (chat_id, match_id) VALUES (?, ?)",
                        (match.chat_id, match.id),
                    )
                db.execute(
                    "INSERT INTO matches (id, chat_id, created_at, active, due, version,"
                    " attention, doc) VALUES (?, ?, ?, ?, ?, 1, ?, ?)",
                    (
                        match.id,
                        match.chat_id,
                        match.created_at,
                        int(match.phase is not Phase.FINISHED),
                        match.wake_at,
                        match.attention,
                        _dumps(doc),
                    ),
                )
                self._index_users(db, match)
        except sqlite3.IntegrityError:
            raise ConflictError(match.id) from None
        return codec.match_from_doc(doc)

    def load(self, match_id: str) -> Loaded:
        with self._read() as db:
            row = db.execute(
                "SELECT version, attention, doc FROM matches WHERE id = ?", (match_id,)
            ).fetchone()
            if row is None:
                raise NotFoundError(match_id)
            order_rows = db.execute(
                "SELECT pid, turn, doc FROM orders WHERE match_id = ?", (match_id,)
            ).fetchall()
            kept = _remembered(db, [match_id]).get(match_id)
        try:
            match = _match_from_row(match_id, row, kept)
            orders: dict[str, SealedOrder] = {}
            for pid, turn, doc in order_rows:
                if turn == match.turn:
                    orders[pid] = _order_from_text(match_id, doc)
        except CorruptRecordError as exc:
            self._corrupt(exc)
            raise
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
        doc = codec.match_to_doc(match) | {"version": version}
        with self._write() as db:
            cur = db.execute(
                "UPDATE matches SET chat_id = ?, active = ?, due = ?, version = ?, attention = ?,"
                " doc = ? WHERE id = ? AND version = ?",
                (
                    match.chat_id,
                    int(match.phase is not Phase.FINISHED),
                    match.wake_at,
                    version,
                    match.attention,
                    _dumps(doc),
                    match.id,
                    expected_version,
                ),
            )
            if cur.rowcount != 1:
                exists = db.execute("SELECT 1 FROM matches WHERE id = ?", (match.id,)).fetchone()
                if exists is None:
                    raise NotFoundError(match.id)
                raise ConflictError(match.id)
            if entry is not None and not self._holds(db, entry):
                raise LeaseLostError(match.id)  # (rolled back: nothing written)
            if seal is not None:
                db.execute(
                    "INSERT OR REPLACE INTO orders (match_id, pid, turn, doc) VALUES (?, ?, ?, ?)",
                    (match.id, seal.pid, seal.turn, _dumps(codec.order_to_doc(seal))),
                )
            if withdraw is not None:
                db.execute(
                    "DELETE FROM orders WHERE match_id = ? AND pid = ?", (match.id, withdraw)
                )
            if record is not None:
                stored, configs = codec.record_to_stored(record)
                db.execute(
                    "INSERT OR REPLACE INTO records (match_id, turn, doc) VALUES (?, ?, ?)",
                    (match.id, record.turn, _dumps(stored)),
                )
                db.executemany(
                    "INSERT OR IGNORE INTO record_configs (match_id, ref, doc) VALUES (?, ?, ?)",
                    [(match.id, ref, _dumps(c)) for ref, c in configs.items()],
                )
                # The record reveals the turn's orders; the sealed items are no longer needed.
                db.execute(
                    "DELETE FROM orders WHERE match_id = ? AND turn <= ?", (match.id, record.turn)
                )
            if discard_orders:
                db.execute("DELETE FROM orders WHERE match_id = ?", (match.id,))
            if drop_record is not None:
                db.execute(
                    "DELETE FROM records WHERE match_id = ? AND turn = ?", (match.id, drop_record)
                )
            for item in owe:
                self._put_owed(db, replace(item, token="", lease=0.0, done=False))
            if entry is not None:
                self._put_owed(db, entry)
            db.execute("DELETE FROM sweep_failures WHERE match_id = ?", (match.id,))
            self._index_users(db, match)
            kept = _remembered(db, [match.id]).get(match.id)
        return _with_remembered(codec.match_from_doc(doc), kept)

    def remember_messages(
        self, match_id: str, key: str, turn: int, items: Sequence[Sequence[int]]
    ) -> None:
        with self._write() as db:
            if db.execute("SELECT 1 FROM matches WHERE id = ?", (match_id,)).fetchone() is None:
                raise NotFoundError(match_id)
            self._remember(db, match_id, Remember(key, turn, tuple((c, m) for c, m in items)))

    @staticmethod
    def _remember(db: sqlite3.Connection, match_id: str, remember: Remember) -> None:
        key = remember.key
        row = db.execute(
            "SELECT doc FROM remembered WHERE match_id = ? AND key = ?", (match_id, key)
        ).fetchone()
        kept = None if row is None else json.loads(row[0])
        merged = merge_remembered(kept, remember.turn, remember.items)
        if merged is not None:
            db.execute(
                "INSERT OR REPLACE INTO remembered (match_id, key, doc) VALUES (?, ?, ?)",
                (match_id, key, _dumps(merged)),
            )

    @staticmethod
    def _index_users(db: sqlite3.Connection, match: Match) -> None:
        db.execute("DELETE FROM match_users WHERE match_id = ?", (match.id,))
        if match.phase is not Phase.FINISHED:
            db.executemany(
                "INSERT INTO match_users (user_id, match_id) VALUES (?, ?)",
                [(uid, match.id) for uid in index_users(match)],
            )

    # ------------------------------------------------------------------ lookups

    def _matches(self, sql: str, params: tuple[Any, ...]) -> list[Match]:
        """Rows (id, version, attention, doc) -> matches; a corrupt one is flagged and skipped
        so it cannot hide the others."""
        with self._read() as db:
            rows = db.execute(sql, params).fetchall()
            kept = _remembered(db, [r[0] for r in rows])
        out: list[Match] = []
        for match_id, version, attention, doc in rows:
            try:
                out.append(_match_from_row(match_id, (version, attention, doc), kept.get(match_id)))
            except CorruptRecordError as exc:
                self._corrupt(exc)
        return out

    def active_in_chat(self, chat_id: int) -> list[Match]:
        return self._matches(
            "SELECT id, version, attention, doc FROM matches"
            " WHERE chat_id = ? AND active = 1 ORDER BY created_at, id",
            (chat_id,),
        )

    def active_for_user(self, user_id: int) -> list[Match]:
        return self._matches(
            "SELECT m.id, m.version, m.attention, m.doc FROM match_users u"
            " JOIN matches m ON m.id = u.match_id"
            " WHERE u.user_id = ? AND m.active = 1 ORDER BY m.created_at, m.id",
            (user_id,),
        )

    def due(self, now: float, limit: int = 50) -> list[str]:
        with self._read() as db:
            rows = db.execute(
                "SELECT id FROM matches WHERE due IS NOT NULL AND due <= ? ORDER BY due, id"
                " LIMIT ?",
                (now, limit),
            ).fetchall()
        return [r[0] for r in rows]

    # ------------------------------------------------------------------ history

    def history(self, match_id: str, *, since: int = 0) -> list[TurnRecord]:
        with self._read() as db:
            rows = db.execute(
                "SELECT doc FROM records WHERE match_id = ? AND turn >= ? ORDER BY turn",
                (match_id, since),
            ).fetchall()
            config_rows = db.execute(
                "SELECT ref, doc FROM record_configs WHERE match_id = ?", (match_id,)
            ).fetchall()
        try:
            configs = {ref: json.loads(doc) for ref, doc in config_rows}
            return [_record_from_text(match_id, r[0], configs) for r in rows]
        except CorruptRecordError as exc:
            self._corrupt(exc)
            raise

    # ------------------------------------------------------------------ updates

    def claim_update(self, update_id: int, now: float, lease: float) -> UpdateClaim:
        token = uuid.uuid4().hex
        with self._write() as db:
            cur = db.execute(
                "INSERT INTO updates (update_id, expires, token, lease_until, attempts)"
                " VALUES (?, ?, ?, ?, 1)"
                " ON CONFLICT (update_id) DO UPDATE SET expires = excluded.expires,"
                " token = excluded.token, lease_until = excluded.lease_until,"
                " attempts = updates.attempts + 1"
                " WHERE updates.expires <= ? OR (updates.token IS NOT NULL"
                " AND updates.lease_until <= ?)",
                (update_id, now + UPDATE_TTL_SECONDS, token, now + lease, now, now),
            )
            if cur.rowcount == 1:
                attempts, error = db.execute(
                    "SELECT attempts, error FROM updates WHERE update_id = ?", (update_id,)
                ).fetchone()
                claim = UpdateClaim("claimed", token, attempts, error or "")
            else:
                held = db.execute(
                    "SELECT token FROM updates WHERE update_id = ?", (update_id,)
                ).fetchone()
                claim = UpdateClaim("processing" if held and held[0] is not None else "done")
            # Expired records are swept here too, so the table does not grow without bound.
            db.execute("DELETE FROM updates WHERE expires <= ?", (now,))
            return claim

    def confirm_update(self, update_id: int, token: str, now: float) -> bool:
        with self._write() as db:
            cur = db.execute(
                "UPDATE updates SET expires = ?, token = NULL, lease_until = NULL"
                " WHERE update_id = ? AND token = ?",
                (now + UPDATE_TTL_SECONDS, update_id, token),
            )
            return cur.rowcount == 1

    def release_update(self, update_id: int, token: str, error: str = "") -> None:
        with self._write() as db:
            db.execute(
                "UPDATE updates SET lease_until = 0, error = ? WHERE update_id = ? AND token = ?",
                (error, update_id, token),
            )

    # ------------------------------------------------------------------ outbox

    @staticmethod
    def _put_owed(db: sqlite3.Connection, item: Owed) -> None:
        db.execute(
            "INSERT OR REPLACE INTO outbox (match_id, key, pending, next_at, seq, token, doc)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                item.match_id,
                item.key,
                int(not item.done),
                item.next_at,
                item.seq,
                item.token,
                _dumps(item.to_doc()),
            ),
        )

    def owed(self, match_id: str) -> list[Owed]:
        with self._read() as db:
            rows = db.execute(
                "SELECT doc FROM outbox WHERE match_id = ? AND pending = 1 ORDER BY seq",
                (match_id,),
            ).fetchall()
        return [Owed.from_doc(json.loads(r[0])) for r in rows]

    def claim_owed(self, match_id: str, key: str, now: float, lease: float) -> Owed | None:
        with self._write() as db:
            row = db.execute(
                "SELECT doc FROM outbox WHERE match_id = ? AND key = ? AND pending = 1"
                " AND next_at <= ?",
                (match_id, key, now),
            ).fetchone()
            if row is None:
                return None
            item = Owed.from_doc(json.loads(row[0]))
            if item.lease > now:
                return None
            item = replace(item, token=uuid.uuid4().hex, lease=now + lease)
            self._put_owed(db, item)
            return item

    @staticmethod
    def _holds(db: sqlite3.Connection, item: Owed) -> bool:
        """Whether the stored item ``item.key`` is still leased with ``item.token``."""
        row = db.execute(
            "SELECT token FROM outbox WHERE match_id = ? AND key = ?",
            (item.match_id, item.key),
        ).fetchone()
        return row is not None and bool(item.token) and row[0] == item.token

    def update_owed(self, item: Owed, *, remember: Remember | None = None) -> bool:
        with self._write() as db:
            if not self._holds(db, item):
                return False
            self._put_owed(db, item)
            if remember is not None:
                self._remember(db, item.match_id, remember)
            if item.done:  # delivered items are kept a while for inspection, then dropped
                db.execute(
                    "DELETE FROM outbox WHERE pending = 0"
                    " AND json_extract(doc, '$.created_at') < ?",
                    (item.created_at - OWED_KEEP_SECONDS,),
                )
            return True

    def owed_due(self, now: float, limit: int = 100) -> list[str]:
        with self._read() as db:
            rows = db.execute(
                "SELECT match_id, MIN(next_at) AS at FROM outbox WHERE pending = 1"
                " AND next_at <= ? GROUP BY match_id ORDER BY at, match_id LIMIT ?",
                (now, limit),
            ).fetchall()
        return [r[0] for r in rows]

    def note_failure(self, match_id: str, detail: str, park_after: int) -> bool:
        with self._write() as db:
            db.execute(
                "INSERT INTO sweep_failures (match_id, n) VALUES (?, 1)"
                " ON CONFLICT (match_id) DO UPDATE SET n = n + 1",
                (match_id,),
            )
            (n,) = db.execute(
                "SELECT n FROM sweep_failures WHERE match_id = ?", (match_id,)
            ).fetchone()
            if n != park_after:
                return False
            # Parked: out of the due index (the next save sets ``due`` again) and flagged.
            cur = db.execute(
                "UPDATE matches SET due = NULL, attention = ?, version = version + 1 WHERE id = ?",
                (detail, match_id),
            )
            return cur.rowcount == 1

    # ------------------------------------------------------------------ preferences

    def load_prefs(self, user_id: int) -> dict[str, Any]:
        """Per-user preferences (``engine.ports.PrefsRepository``)."""
        with self._read() as db:
            row = db.execute("SELECT doc FROM prefs WHERE user_id = ?", (user_id,)).fetchone()
        if row is None:
            return {}
        try:
            prefs = json.loads(row[0])
        except ValueError:
            log.error("unreadable preferences of user %s ignored", user_id)
            return {}
        return dict(prefs) if isinstance(prefs, dict) else {}

    def save_prefs(self, user_id: int, prefs: Mapping[str, Any]) -> None:
        with self._write() as db:
            db.execute(
                "INSERT OR REPLACE INTO prefs (user_id, doc) VALUES (?, ?)",
                (user_id, _dumps(dict(prefs))),
            )

    def set_pref(self, user_id: int, field: str, value: Any) -> None:
        """One field, in one statement (``json_set``/``json_remove`` on the stored
        document): a concurrent write of another field is kept. An unreadable document is
        replaced by the field alone."""
        path = "$." + json.dumps(field)  # a quoted JSON path member
        with self._write() as db:
            if value is None:
                db.execute(
                    "UPDATE prefs SET doc = CASE WHEN json_valid(doc) THEN json_remove(doc, ?)"
                    " ELSE '{}' END WHERE user_id = ?",
                    (path, user_id),
                )
                return
            db.execute(
                "INSERT INTO prefs (user_id, doc) VALUES (?, json_set('{}', ?, json(?)))"
                " ON CONFLICT (user_id) DO UPDATE SET doc = json_set("
                "CASE WHEN json_valid(doc) AND json_type(doc) = 'object' THEN doc ELSE '{}' END,"
                " ?, json(?))",
                (user_id, path, _dumps(value), path, _dumps(value)),
            )

    # ------------------------------------------------------------------ campaigns

    def _docs(self, sql: str, params: tuple[Any, ...]) -> list[dict[str, Any]]:
        with self._read() as db:
            rows = db.execute(sql, params).fetchall()
        out = []
        for (text,) in rows:
            try:
                doc = json.loads(text)
            except ValueError:
                log.error("unreadable campaign document skipped (%s)", sql.split()[3])
                continue
            if isinstance(doc, dict):
                out.append(doc)
        return out

    def roster(self, user_id: int, ruleset: str) -> list[dict[str, Any]]:
        """A player's characters (``engine.ports.CampaignRepository``)."""
        sql = "SELECT doc FROM roster WHERE user_id = ? AND ruleset = ? ORDER BY key"
        return self._docs(sql, (user_id, ruleset))

    def put_characters(self, user_id: int, entries: Sequence[Mapping[str, Any]]) -> None:
        with self._write() as db:
            db.executemany(
                "INSERT OR REPLACE INTO roster (user_id, ruleset, key, doc) VALUES (?, ?, ?, ?)",
                [(user_id, str(e["ruleset"]), str(e["key"]), _dumps(dict(e))) for e in entries],
            )

    def delete_character(self, user_id: int, ruleset: str, key: str) -> bool:
        with self._write() as db:
            cur = db.execute(
                "DELETE FROM roster WHERE user_id = ? AND ruleset = ? AND key = ?",
                (user_id, ruleset, key),
            )
            return cur.rowcount == 1

    def library(self, chat_id: int, ruleset: str) -> dict[str, Any] | None:
        sql = "SELECT doc FROM libraries WHERE chat_id = ? AND ruleset = ?"
        found = self._docs(sql, (chat_id, ruleset))
        return found[0] if found else None

    def put_library(self, chat_id: int, ruleset: str, doc: Mapping[str, Any]) -> None:
        with self._write() as db:
            db.execute(
                "INSERT OR REPLACE INTO libraries (chat_id, ruleset, doc) VALUES (?, ?, ?)",
                (chat_id, ruleset, _dumps(dict(doc))),
            )

    def delete_library(self, chat_id: int, ruleset: str) -> bool:
        with self._write() as db:
            cur = db.execute(
                "DELETE FROM libraries WHERE chat_id = ? AND ruleset = ?", (chat_id, ruleset)
            )
            return cur.rowcount == 1

    def results(self, chat_id: int) -> list[dict[str, Any]]:
        return self._docs("SELECT doc FROM results WHERE chat_id = ?", (chat_id,))

    def user_results(self, user_id: int) -> list[dict[str, Any]]:
        sql = (
            "SELECT r.doc FROM result_users u JOIN results r"
            " ON r.chat_id = u.chat_id AND r.match_id = u.match_id WHERE u.user_id = ?"
        )
        return self._docs(sql, (user_id,))

    def put_result(self, doc: Mapping[str, Any]) -> None:
        chat_id, match_id = int(doc["chat_id"]), str(doc["match_id"])
        with self._write() as db:
            self._drop_result(db, chat_id, match_id)
            db.execute(
                "INSERT INTO results (chat_id, match_id, doc) VALUES (?, ?, ?)",
                (chat_id, match_id, _dumps(dict(doc))),
            )
            db.executemany(
                "INSERT INTO result_users (user_id, chat_id, match_id) VALUES (?, ?, ?)",
                [(uid, chat_id, match_id) for uid in result_users(doc)],
            )

    def delete_result(self, chat_id: int, match_id: str) -> bool:
        with self._write() as db:
            return self._drop_result(db, chat_id, match_id)

    @staticmethod
    def _drop_result(db: sqlite3.Connection, chat_id: int, match_id: str) -> bool:
        where = "WHERE chat_id = ? AND match_id = ?"
        db.execute(f"DELETE FROM result_users {where}", (chat_id, match_id))
        return db.execute(f"DELETE FROM results {where}", (chat_id, match_id)).rowcount == 1

    # ------------------------------------------------------------------ attention

    def flag(self, match_id: str, detail: str) -> None:
        # Only the attention column and the version change: the (maybe unreadable) document is
        # kept as it is for the GM and for repair. The version bump makes a write that loaded
        # the match before the flag retry, so the flag cannot be overwritten unseen.
        with self._write() as db:
            db.execute(
                "UPDATE matches SET attention = ?, version = version + 1 WHERE id = ?",
                (detail, match_id),
            )

    def _corrupt(self, exc: CorruptRecordError) -> None:
        log.error("corrupt record: match %s: %s", exc.match_id, exc.detail)
        self.flag(exc.match_id, exc.detail)


def _remembered(db: sqlite3.Connection, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    """The remembered message ids of the matches ``ids``: match id -> key -> its document."""
    out: dict[str, dict[str, Any]] = {}
    for start in range(0, len(ids), 500):
        part = list(ids[start : start + 500])
        marks = ", ".join("?" * len(part))
        for match_id, key, doc in db.execute(
            f"SELECT match_id, key, doc FROM remembered WHERE match_id IN ({marks})", part
        ):
            out.setdefault(match_id, {})[key] = json.loads(doc)
    return out


def _with_remembered(match: Match, kept: Mapping[str, Any] | None) -> Match:
    return replace(match, remembered=dict(kept)) if kept else match


def _match_from_row(
    match_id: str, row: tuple[Any, Any, Any], kept: Mapping[str, Any] | None = None
) -> Match:
    version, attention, text = row
    try:
        doc = json.loads(text)
        if not isinstance(doc, dict):
            raise TypeError(f"expected a JSON object, got {type(doc).__name__}")
    except (TypeError, ValueError) as exc:
        raise CorruptRecordError(match_id, f"unreadable match document: {exc!r}") from exc
    # The columns are authoritative: flag() changes them without touching the document.
    doc["version"] = version
    if attention is not None:
        doc["attention"] = attention
    return _with_remembered(codec.match_from_doc(doc), kept)


def _order_from_text(match_id: str, text: str) -> SealedOrder:
    try:
        return codec.order_from_doc(json.loads(text))
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise CorruptRecordError(match_id, f"unreadable sealed order: {exc!r}") from exc


def _record_from_text(match_id: str, text: str, configs: Mapping[str, Any]) -> TurnRecord:
    try:
        return codec.record_from_stored(json.loads(text), configs)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise CorruptRecordError(match_id, f"unreadable turn record: {exc!r}") from exc
