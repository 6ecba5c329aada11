"""JSON documents for what the repositories store, with a schema version and migrations.

Every stored document carries ``schema`` (this module's layout version). Loading an older
document goes through :data:`MIGRATIONS`, one function per step, so a stored match never breaks
when the layout changes (tests load a checked-in fixture of the oldest version).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from typing import Any

from engine.beacon import BeaconRound, randomness_of
from engine.clock import ClockConfig
from engine.dice import seed_commitment
from engine.errors import CorruptRecordError
from engine.events import Event
from engine.match import Match, Phase, SealedOrder, Seat, TurnRecord, order_fingerprint

SCHEMA_VERSION = 1

Migration = Callable[[dict[str, Any]], dict[str, Any]]

# MIGRATIONS[n] upgrades a match document of schema n to schema n + 1.
MIGRATIONS: dict[int, Migration] = {}


def migrate(doc: Mapping[str, Any]) -> dict[str, Any]:
    """Upgrade a stored document to :data:`SCHEMA_VERSION`."""
    out = dict(doc)
    version = int(out.get("schema", 0))
    if version > SCHEMA_VERSION:
        raise ValueError(f"document schema {version} is newer than this code ({SCHEMA_VERSION})")
    while version < SCHEMA_VERSION:
        step = MIGRATIONS.get(version)
        if step is None:
            raise ValueError(f"no migration from schema {version}")
        out = step(out)
        version = int(out["schema"])
    return out


def match_to_doc(match: Match) -> dict[str, Any]:
    return {
        "schema": SCHEMA_VERSION,
        "id": match.id,
        "chat_id": match.chat_id,
        "gm_user_id": match.gm_user_id,
        "ruleset": match.ruleset,
        "ruleset_version": match.ruleset_version,
        "created_at": match.created_at,
        "lang": match.lang,
        "config": dict(match.config),
        "phase": match.phase.value,
        "turn": match.turn,
        "seats": [seat_to_doc(s) for s in match.seats],
        "state": match.state,
        "sealed": list(match.sealed),
        "seal_seq": match.seal_seq,
        "turn_seed": match.turn_seed,
        "commitment": match.commitment,
        "turn_opened_at": match.turn_opened_at,
        "deadline": match.deadline,
        "locked_at": match.locked_at,
        "lock_reason": match.lock_reason,
        "beacon_round": match.beacon_round,
        "commitment_message": match.commitment_message,
        "commitment_posted_at": match.commitment_posted_at,
        "lock_message": match.lock_message,
        "frozen_at": match.frozen_at,
        "outcome": match.outcome,
        "ui": dict(match.ui),
        "attention": match.attention,
        "audit": [dict(a) for a in match.audit],
        "clock": dict(match.clock),
        "paused_at": match.paused_at,
        "paused_left": match.paused_left,
        "reminded": match.reminded,
        "extended_turn": match.extended_turn,
        "extended_total": match.extended_total,
        "missed": dict(match.missed),
        "wake_at": match.wake_at,
        "version": match.version,
    }


def seat_to_doc(seat: Seat) -> dict[str, Any]:
    return {
        "pid": seat.pid,
        "name": seat.name,
        "user_id": seat.user_id,
        "side": seat.side,
        "character": seat.character,
        "npc": seat.npc,
        "status": seat.status,
        "reachable": seat.reachable,
    }


def _clock(raw: Any) -> dict[str, Any]:
    """A stored clock's overrides, checked against :class:`ClockConfig`'s fields (they are
    read without validation afterwards, :func:`engine.clock.clock_config`)."""
    clock: dict[str, Any] = {str(k): None if v is None else int(v) for k, v in (raw or {}).items()}
    ClockConfig(**clock)  # TypeError for a key this code never wrote
    return clock


def match_from_doc(raw: Mapping[str, Any]) -> Match:
    """Load a match document (migrating it first). Raises :class:`CorruptRecordError`."""
    match_id = str(raw.get("id", "?"))
    try:
        doc = migrate(raw)
        return Match(
            id=str(doc["id"]),
            chat_id=int(doc["chat_id"]),
            gm_user_id=int(doc["gm_user_id"]),
            ruleset=str(doc["ruleset"]),
            ruleset_version=str(doc["ruleset_version"]),
            created_at=float(doc["created_at"]),
            lang=str(doc.get("lang", "ru")),
            config=dict(doc.get("config") or {}),
            phase=Phase(doc["phase"]),
            turn=int(doc["turn"]),
            seats=tuple(
                Seat(
                    pid=str(s["pid"]),
                    name=str(s["name"]),
                    user_id=None if s.get("user_id") is None else int(s["user_id"]),
                    side=str(s.get("side", "")),
                    character=s.get("character"),
                    npc=bool(s.get("npc", False)),
                    status=str(s.get("status", "active")),
                    reachable=bool(s.get("reachable", True)),
                )
                for s in doc["seats"]
            ),
            state=doc.get("state"),
            sealed=tuple(doc.get("sealed") or ()),
            seal_seq=int(doc.get("seal_seq", 0)),
            turn_seed=doc.get("turn_seed"),
            commitment=doc.get("commitment"),
            turn_opened_at=_opt_float(doc.get("turn_opened_at")),
            deadline=_opt_float(doc.get("deadline")),
            locked_at=_opt_float(doc.get("locked_at")),
            lock_reason=doc.get("lock_reason"),
            beacon_round=_opt_int(doc.get("beacon_round")),
            commitment_message=_opt_int(doc.get("commitment_message")),
            commitment_posted_at=_opt_float(doc.get("commitment_posted_at")),
            lock_message=_opt_int(doc.get("lock_message")),
            frozen_at=_opt_float(doc.get("frozen_at")),
            outcome=doc.get("outcome"),
            ui=dict(doc.get("ui") or {}),
            attention=doc.get("attention"),
            audit=tuple(dict(a) for a in doc.get("audit") or ()),
            clock=_clock(doc.get("clock")),
            paused_at=_opt_float(doc.get("paused_at")),
            paused_left=_opt_float(doc.get("paused_left")),
            reminded=bool(doc.get("reminded", False)),
            extended_turn=int(doc.get("extended_turn", 0)),
            extended_total=int(doc.get("extended_total", 0)),
            missed={str(k): int(v) for k, v in (doc.get("missed") or {}).items()},
            version=int(doc.get("version", 0)),
        )
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise CorruptRecordError(match_id, f"unreadable match document: {exc!r}") from exc


def _opt_float(value: Any) -> float | None:
    return None if value is None else float(value)


def _opt_int(value: Any) -> int | None:
    return None if value is None else int(value)


def order_to_doc(order: SealedOrder) -> dict[str, Any]:
    return {
        "schema": SCHEMA_VERSION,
        "pid": order.pid,
        "turn": order.turn,
        "order": dict(order.order),
        "by_user": order.by_user,
        "sealed_at": order.sealed_at,
        "seq": order.seq,
        "salt": order.salt,
        "fingerprint": order.fingerprint,
        "default": order.default,
    }


def order_from_doc(doc: Mapping[str, Any]) -> SealedOrder:
    return SealedOrder(
        pid=str(doc["pid"]),
        turn=int(doc["turn"]),
        order=dict(doc["order"]),
        by_user=None if doc.get("by_user") is None else int(doc["by_user"]),
        sealed_at=float(doc["sealed_at"]),
        seq=int(doc["seq"]),
        salt=str(doc["salt"]),
        fingerprint=str(doc["fingerprint"]),
        default=bool(doc.get("default", False)),
    )


def record_to_doc(record: TurnRecord) -> dict[str, Any]:
    return {
        "schema": SCHEMA_VERSION,
        "match_id": record.match_id,
        "turn": record.turn,
        "orders": [order_to_doc(o) for o in record.orders],
        "events": [e.to_json() for e in record.events],
        "state_before": record.state_before,
        "state_after": record.state_after,
        "seed": record.seed,
        "commitment": record.commitment,
        "reason": record.reason,
        "resolved_at": record.resolved_at,
        "ruleset_version": record.ruleset_version,
        "engine_version": record.engine_version,
        "opened_at": record.opened_at,
        "locked_at": record.locked_at,
        "beacon_round": record.beacon_round,
        "beacon": None if record.beacon is None else record.beacon.to_json(),
        "commitment_message": record.commitment_message,
        "commitment_posted_at": record.commitment_posted_at,
        "lock_message": record.lock_message,
        "frozen_at": record.frozen_at,
    }


def record_from_doc(doc: Mapping[str, Any]) -> TurnRecord:
    return TurnRecord(
        match_id=str(doc["match_id"]),
        turn=int(doc["turn"]),
        orders=tuple(order_from_doc(o) for o in doc["orders"]),
        events=tuple(Event.from_json(e) for e in doc["events"]),
        state_before=doc["state_before"],
        state_after=doc["state_after"],
        seed=str(doc["seed"]),
        commitment=str(doc["commitment"]),
        reason=str(doc["reason"]),
        resolved_at=float(doc["resolved_at"]),
        ruleset_version=str(doc["ruleset_version"]),
        engine_version=str(doc.get("engine_version", "1")),
        opened_at=_opt_float(doc.get("opened_at")),
        locked_at=_opt_float(doc.get("locked_at")),
        beacon_round=_opt_int(doc.get("beacon_round")),
        beacon=None if doc.get("beacon") is None else BeaconRound.from_json(doc["beacon"]),
        commitment_message=_opt_int(doc.get("commitment_message")),
        commitment_posted_at=_opt_float(doc.get("commitment_posted_at")),
        lock_message=_opt_int(doc.get("lock_message")),
        frozen_at=_opt_float(doc.get("frozen_at")),
    )


# --------------------------------------------------------------------------- stored turn records

# A turn record is stored compactly (``record_to_stored``): the parts of its states that do
# not change in a match (:data:`STATIC_KEYS`: the ruleset's configuration, the sheets) are
# replaced by references to documents stored once per match (the adapters keep them beside
# the records), and ``state_after`` by what changed from ``state_before``.
# ``record_from_stored`` gives back exactly the record; a record stored whole (every record
# written before this) loads as it is.
CONFIG_REF = "$config"
_MISSING = object()


def config_ref(config: Any) -> str:
    """The name of a stored configuration document: a hash of its canonical JSON."""
    text = json.dumps(config, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def state_delta(before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, Any]:
    """What turns ``before`` into ``after``: ``set`` values, ``sub`` deltas of nested objects
    and of lists of the same length (``{"list": delta by index}``), ``del`` keys
    (:func:`apply_delta`)."""
    out: dict[str, Any] = {}
    for key, value in after.items():
        old = before.get(key, _MISSING)
        if old is _MISSING:
            out.setdefault("set", {})[key] = value
        elif old != value:
            if isinstance(old, Mapping) and isinstance(value, Mapping):
                out.setdefault("sub", {})[key] = state_delta(old, value)
            elif isinstance(old, list) and isinstance(value, list) and len(old) == len(value):
                out.setdefault("sub", {})[key] = {
                    "list": state_delta(_indexed(old), _indexed(value))
                }
            else:
                out.setdefault("set", {})[key] = value
    gone = [key for key in before if key not in after]
    if gone:
        out["del"] = gone
    return out


def apply_delta(before: Mapping[str, Any], delta: Mapping[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in before.items() if k not in delta.get("del", ())}
    for key, sub in delta.get("sub", {}).items():
        old = before[key]
        if isinstance(old, list):
            items = apply_delta(_indexed(old), sub["list"])
            out[key] = [items[str(i)] for i in range(len(old))]
        else:
            out[key] = apply_delta(old, sub)
    out.update(delta.get("set", {}))
    return out


def _indexed(items: list[Any]) -> dict[str, Any]:
    return {str(i): v for i, v in enumerate(items)}


# Fields of a record that are often unset (no beacon, no commitment message: a sandbox, an old
# turn): stored only when set; ``record_from_doc`` reads a missing one as unset.
OPTIONAL_RECORD_KEYS = frozenset(
    {
        "opened_at",
        "locked_at",
        "beacon_round",
        "beacon",
        "commitment_message",
        "commitment_posted_at",
        "lock_message",
        "frozen_at",
    }
)


def record_to_stored(record: TurnRecord) -> tuple[dict[str, Any], dict[str, Any]]:
    """The record as stored (compact), and the documents it refers to (by reference)."""
    doc = {
        k: v
        for k, v in record_to_doc(record).items()
        if v is not None or k not in OPTIONAL_RECORD_KEYS
    }
    _derived_out(record, doc)
    configs: dict[str, Any] = {}
    before, after = doc["state_before"], doc["state_after"]
    if not (isinstance(before, Mapping) and isinstance(after, Mapping)):
        return doc, configs
    before, after = _refs_out(before, configs), _refs_out(after, configs)
    doc["state_before"] = before
    doc["state_after_delta"] = state_delta(before, after)
    del doc["state_after"]
    return doc, configs


def record_from_stored(doc: Mapping[str, Any], configs: Mapping[str, Any]) -> TurnRecord:
    """A record stored by :func:`record_to_stored` (or whole, as before), with ``configs``
    the match's documents by reference (a missing one raises KeyError)."""
    if "state_after_delta" not in doc:
        return record_from_doc(doc)
    before = doc["state_before"]
    after = apply_delta(before, doc["state_after_delta"])
    return record_from_doc(
        {
            **_derived_in(doc),
            "state_before": _refs_in(before, configs),
            "state_after": _refs_in(after, configs),
        }
    )


# Fields of a stored record that its other fields make exactly (hex digests: ~35 bytes each
# packed, of an item billed by the started KB): left out when they are what the rest makes,
# made again on load (``_derived_in``); any other value (a test's, a damaged record's) is kept.
# The record's public form (``record_to_doc``, the dossier) always has them all.


def _derived_out(record: TurnRecord, doc: dict[str, Any]) -> None:
    """Drop from ``doc`` (``record``'s stored form) what :func:`_derived_in` makes again: the
    commitment (SHA-256 of the seed), each order's fingerprint (of its fields and the match),
    the beacon round's randomness (SHA-256 of its signature) and number (``beacon_round``)."""
    if _made(lambda: seed_commitment(bytes.fromhex(record.seed)), record.commitment):
        del doc["commitment"]
    for order, stored in zip(record.orders, doc["orders"], strict=True):
        made = order_fingerprint(record.match_id, order.turn, order.pid, order.order, order.salt)
        if order.fingerprint and made == order.fingerprint:
            del stored["fingerprint"]
    beacon = record.beacon
    if beacon is not None:
        stored_beacon = doc["beacon"]
        if _made(lambda: randomness_of(beacon.signature), beacon.randomness):
            del stored_beacon["randomness"]
        if beacon.round == record.beacon_round:
            del stored_beacon["round"]


def _derived_in(doc: Mapping[str, Any]) -> dict[str, Any]:
    """``doc`` with what :func:`_derived_out` left out made again."""
    out = dict(doc)
    if "commitment" not in out:
        out["commitment"] = seed_commitment(bytes.fromhex(str(out["seed"])))
    match_id = str(out["match_id"])
    out["orders"] = [
        o
        if "fingerprint" in o
        else {
            **o,
            "fingerprint": order_fingerprint(match_id, o["turn"], o["pid"], o["order"], o["salt"]),
        }
        for o in out["orders"]
    ]
    beacon = out.get("beacon")
    if beacon is not None:
        beacon = dict(beacon)
        beacon.setdefault("round", out["beacon_round"])
        if "randomness" not in beacon:
            beacon["randomness"] = randomness_of(str(beacon["signature"]))
        out["beacon"] = beacon
    return out


def _made(make: Callable[[], str], value: str) -> bool:
    """Whether ``make()`` gives ``value`` (False when it cannot be made: not hex)."""
    try:
        return make() == value
    except ValueError:
        return False


# Parts of a ruleset's state that do not change in a match: its configuration and the
# participants' sheets. Stored once per match (and per version of them) by reference.
STATIC_KEYS = frozenset({"config", "sheet"})


def _refs_out(value: Any, configs: dict[str, Any]) -> Any:
    if isinstance(value, Mapping):
        out = {}
        for key, sub in value.items():
            if key in STATIC_KEYS and isinstance(sub, Mapping) and CONFIG_REF not in sub:
                ref = config_ref(sub)
                configs[ref] = sub
                out[key] = {CONFIG_REF: ref}
            else:
                out[key] = _refs_out(sub, configs)
        return out
    if isinstance(value, list):
        return [_refs_out(v, configs) for v in value]
    return value


def _refs_in(value: Any, configs: Mapping[str, Any]) -> Any:
    if isinstance(value, Mapping):
        if len(value) == 1 and CONFIG_REF in value:
            return configs[str(value[CONFIG_REF])]
        return {key: _refs_in(sub, configs) for key, sub in value.items()}
    if isinstance(value, list):
        return [_refs_in(v, configs) for v in value]
    return value
