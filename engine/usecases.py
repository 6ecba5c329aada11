"""Use cases: the imperative shell's one-call entry points into the core.

Each use case loads what it needs through the :class:`~engine.ports.MatchRepository`, calls
one pure function of :mod:`engine.match`, and saves the result conditionally on the version it
loaded. A lost race (``ConflictError``) re-runs the pure step from fresh state, a bounded number
of times, then raises :class:`TryAgainError` so the user gets a clear "please try again".
Results are returned to the caller (the bot), which renders and sends them.
"""

from __future__ import annotations

import contextlib
import logging
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, TypeVar

from engine import clock, gm
from engine import match as lifecycle
from engine.beacon import Beacon, BeaconRound, round_after, round_time
from engine.errors import ConflictError, CorruptRecordError, NotFoundError, Rejection
from engine.events import Event
from engine.match import Match, Phase, SealedOrder, TurnRecord, merge_remembered
from engine.ports import Later, Loaded, MatchRepository, Owed
from engine.ruleset import Outcome

RETRIES = 6
# A match whose sweep fails this many times in a row is parked (out of the due index, flagged
# for the GM) so it cannot take the sweep's time from healthy matches.
PARK_AFTER = 3
PARKED = "parked: "  # the ``attention`` of a parked match starts with this
# With ``Deps.later`` (serverless): a round is asked for this long after its publication time
# (drand's relays serve it a moment after), and a round still not to be had then is asked for
# again after 1, 2, 4 ... s, up to LATER_ATTEMPTS tries in all; then the sweeper resolves it.
LATER_MARGIN = 0.5
LATER_ATTEMPTS = 5

T = TypeVar("T")


log = logging.getLogger("sekundant.clock")


class TryAgainError(Exception):
    """Too many concurrent changes: the user should simply try again."""


class Entropy(Protocol):
    """Where secrets come from (injected so tests are deterministic)."""

    def seed(self) -> bytes: ...
    def salt(self) -> str: ...
    def new_id(self) -> str: ...


class SystemEntropy:
    """Cryptographic randomness from the OS."""

    def seed(self) -> bytes:
        return secrets.token_bytes(32)

    def salt(self) -> str:
        return secrets.token_hex(8)

    def new_id(self) -> str:
        return secrets.token_urlsafe(6).replace("-", "x").replace("_", "y")


class CountingEntropy:
    """Deterministic entropy for tests and the sandbox demo."""

    def __init__(self, prefix: str = "t") -> None:
        self.prefix = prefix
        self.n = 0

    def _next(self) -> int:
        self.n += 1
        return self.n

    def seed(self) -> bytes:
        return f"{self.prefix}-seed-{self._next()}".encode().ljust(32, b".")

    def salt(self) -> str:
        return f"{self._next():016x}"

    def new_id(self) -> str:
        return f"{self.prefix}{self._next():05d}"


@dataclass
class Deps:
    """What the use cases need from the outside world."""

    repo: MatchRepository
    clock: Callable[[], float]
    entropy: Entropy
    beacon: Beacon | None = None  # None: dice from the server seed only (no public beacon)
    beacon_patience: float = 60.0  # seconds after a lock before the GM may resolve without it
    require_commitment_post: bool = False  # the bot: no order before the commitment is posted
    # The bot: a locked turn's beacon round is fixed by its lock message's Telegram date
    # (owed as ``lock``, then :func:`lock_posted`), never by the server's clock.
    lock_by_message: bool = False
    # Serverless: a locked turn whose beacon round is not out yet is handed to ``later``
    # (a delayed message to the resolver) instead of waited for (``resolve_locked``); None:
    # the beacon adapter waits (locally, off the event loop).
    later: Later | None = None


@dataclass(frozen=True, slots=True)
class SealResult:
    match: Match
    order: SealedOrder
    replaced: bool
    record: TurnRecord | None  # set when this seal completed the turn
    unchanged: bool = False  # the same order was sealed already: nothing was written
    # The public fingerprints of the turn's sealed orders by pid, as saved (the group's
    # status shows them): the caller need not load the match again for them.
    fingerprints: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Resolution:
    match: Match
    record: TurnRecord


def _owed(
    before: Match,
    kind: str,
    turn: int,
    now: float,
    i: int = 0,
    *,
    chat_id: int | None = None,
    key: str = "",
    **data: Any,
) -> Owed:
    """An announcement owed after saving the version after ``before``'s (the outbox): what is
    owed (``kind``, ``turn``, ``data``), never its text, which the edge renders when sending.
    ``chat_id``: where it goes first (default the match's group)."""
    return Owed(
        match_id=before.id,
        key=key or f"{kind}:{turn}",
        kind=kind,
        chat_id=before.chat_id if chat_id is None else chat_id,
        turn=turn,
        seq=(before.version + 1) * 16 + i,
        created_at=now,
        data=data,
    )


def _resolved(
    before: Match, record: TurnRecord, now: float, i: int = 0, edited: Any = None
) -> Owed:
    """The announcement of a resolved turn: its reveal, the old status closed, the next turn
    (or the summary); with ``reason`` deadline also the default orders. ``edited``: the
    message the resolving order's receipt replaces (its keyboard is already final)."""
    return _owed(
        before,
        "resolved",
        record.turn,
        now,
        i,
        status=before.ui.get("status"),
        reason=record.reason,
        edited=edited,
    )


def unpark(match: Match) -> Match:
    """The match without a parking flag (the GM acted on it; see :func:`sweep`)."""
    if match.attention is not None and match.attention.startswith(PARKED):
        return replace(match, attention=None)
    return match


class _OnceBeacon:
    """A beacon that fetches each round at most once for one use case call: its retries on a
    lost race never wait for the round again (the wait is one period at most, docs/fairness.md).
    Safe: a round is fixed by a lock, which no retry moves."""

    def __init__(self, inner: Beacon) -> None:
        self.inner = inner
        self.rounds: dict[int, BeaconRound | None] = {}

    @property
    def network(self) -> Any:
        return self.inner.network

    def fetch(self, round_number: int) -> BeaconRound | None:
        if round_number not in self.rounds:
            self.rounds[round_number] = self.inner.fetch(round_number)
        return self.rounds[round_number]


def _once(deps: Deps) -> Deps:
    """``deps`` whose beacon fetches each round once (:class:`_OnceBeacon`)."""
    if deps.beacon is None or isinstance(deps.beacon, _OnceBeacon):
        return deps
    return replace(deps, beacon=_OnceBeacon(deps.beacon))


def _retry(step: Callable[[], T]) -> T:
    for _ in range(RETRIES):
        try:
            return step()
        except ConflictError:
            continue
    raise TryAgainError


def _loader(deps: Deps, match_id: str, known: Match | None) -> Callable[[], Loaded]:
    """The loads of a retry loop whose change needs only the match (not its sealed orders):
    the first attempt starts from ``known`` when the caller has it - the match as the caller's
    own save returned it, or as it loaded it, in this invocation - and every later one loads.
    Safe: the save is conditional on ``known``'s version, so a match changed meanwhile
    conflicts and the next attempt works on the stored one. Saves a read per call."""
    first = [known] if known is not None and known.id == match_id else []

    def load() -> Loaded:
        return Loaded(first.pop()) if first else deps.repo.load(match_id)

    return load


def _update(
    deps: Deps,
    match_id: str,
    change: Callable[[Loaded], Match],
    notes: Sequence[Mapping[str, Any]] = (),
    *,
    known: Match | None = None,
    entry: Owed | None = None,
) -> Match:
    """Load, apply a pure change, save conditionally with what it owes (``notes``: see
    :func:`_notes`); retried on conflicts. ``known``: see :func:`_loader` (only for changes
    that read ``Loaded.match`` alone). ``entry``: the owed item the caller is delivering,
    written with the save (``MatchRepository.save``; a lost lease raises
    ``LeaseLostError``, not retried)."""
    load = _loader(deps, match_id, known)

    def step() -> Match:
        loaded = load()
        new = change(loaded)
        owe = _notes(loaded.match, deps.clock(), notes) if notes else ()
        version = loaded.match.version
        return deps.repo.save(new, expected_version=version, owe=owe, entry=entry)

    return _retry(step)


# --------------------------------------------------------------------------- lobby


def create_match(
    deps: Deps,
    chat_id: int,
    gm_user_id: int,
    ruleset_id: str,
    *,
    lang: str = "ru",
    config: Mapping[str, Any] | None = None,
    match_id: str | None = None,
    lock_chat: bool = False,
) -> Match:
    """A new lobby. ``match_id`` (else a new one) lets a caller make the creation idempotent:
    a second create with the same id raises ``ConflictError`` and writes nothing.
    ``lock_chat``: one unfinished match per chat, held by the store (``ChatBusyError`` names
    the one there is), so two pickers pressed at once create one lobby."""
    match = lifecycle.new_match(
        match_id or deps.entropy.new_id(),
        chat_id,
        gm_user_id,
        ruleset_id,
        deps.clock(),
        lang=lang,
        config=config,
        seed=deps.entropy.seed(),
    )
    if lock_chat:
        return deps.repo.create(match, lock_chat=True)
    return deps.repo.create(match)


def join(
    deps: Deps,
    match_id: str,
    user_id: int,
    name: str,
    *,
    notes: Sequence[Mapping[str, Any]] = (),
) -> Match:
    """Join the lobby; ``notes``: what the join owes (the player's answer, the lobby)."""
    return _update(deps, match_id, lambda ld: lifecycle.join(ld.match, user_id, name), notes)


def leave(
    deps: Deps, match_id: str, user_id: int, *, notes: Sequence[Mapping[str, Any]] = ()
) -> Match:
    return _update(deps, match_id, lambda ld: lifecycle.leave(ld.match, user_id), notes)


def configure(deps: Deps, match_id: str, user_id: int, options: Mapping[str, Any]) -> Match:
    return _update(deps, match_id, lambda ld: lifecycle.configure(ld.match, user_id, options))


def set_language(deps: Deps, match_id: str, user_id: int, lang: str) -> Match:
    def change(ld: Loaded) -> Match:
        lifecycle.require_gm(ld.match, user_id)
        return replace(ld.match, lang=lang)

    return _update(deps, match_id, change)


def set_character(
    deps: Deps,
    match_id: str,
    user_id: int,
    pid: str,
    character: Mapping[str, Any],
    *,
    notes: Sequence[Mapping[str, Any]] = (),
) -> Match:
    return _update(
        deps,
        match_id,
        lambda ld: lifecycle.set_character(ld.match, user_id, pid, character),
        notes,
    )


def add_npc(
    deps: Deps,
    match_id: str,
    user_id: int,
    name: str,
    side: str,
    character: Mapping[str, Any],
    *,
    notes: Sequence[Mapping[str, Any]] = (),
) -> Match:
    return _update(
        deps,
        match_id,
        lambda ld: lifecycle.add_npc(ld.match, user_id, name, side, character),
        notes,
    )


def remove_npc(
    deps: Deps, match_id: str, user_id: int, pid: str, *, notes: Sequence[Mapping[str, Any]] = ()
) -> Match:
    return _update(deps, match_id, lambda ld: lifecycle.remove_npc(ld.match, user_id, pid), notes)


def set_side(
    deps: Deps,
    match_id: str,
    user_id: int,
    pid: str,
    side: str,
    *,
    notes: Sequence[Mapping[str, Any]] = (),
) -> Match:
    return _update(
        deps, match_id, lambda ld: lifecycle.set_side(ld.match, user_id, pid, side), notes
    )


def commitment_posted(
    deps: Deps,
    match_id: str,
    turn: int,
    commitment: str,
    message_id: int,
    *,
    known: Match | None = None,
    entry: Owed | None = None,
) -> Match:
    """The group got ``turn``'s commitment as its own message: record its id and time (the
    dossier publishes them; orders for the turn are accepted from now on). ``known``: the
    match as the caller has it (:func:`_loader`); ``entry``: the owed item being delivered,
    written with it (:func:`_update`)."""
    return _update(
        deps,
        match_id,
        lambda ld: lifecycle.commitment_posted(
            ld.match, turn, commitment, message_id, deps.clock()
        ),
        known=known,
        entry=entry,
    )


def update_ui(deps: Deps, match_id: str, **values: Any) -> Match:
    """Remember edge data (message ids) on the match."""
    return update_ui_owing(deps, match_id, values, ())


def update_ui_owing(
    deps: Deps,
    match_id: str,
    values: Mapping[str, Any],
    notes: Sequence[Mapping[str, Any]],
    *,
    known: Match | None = None,
    entry: Owed | None = None,
) -> Match:
    """:func:`update_ui` with what it owes (``notes``: :func:`_notes`) in the same write;
    ``known``: the match as the caller has it (:func:`_loader`); ``entry``: the owed item
    being delivered, written with it (:func:`_update`)."""
    return _update(
        deps,
        match_id,
        lambda ld: replace(ld.match, ui={**ld.match.ui, **values}),
        notes,
        known=known,
        entry=entry,
    )


def add_turn_ui(
    deps: Deps,
    match_id: str,
    key: str,
    turn: int,
    items: list[Any],
    *,
    known: Match | None = None,
) -> Match:
    """Add ``items`` (edge data of ``turn``, e.g. message ids) to ``ui[key]``, which holds the
    items of one turn: those of an earlier turn are dropped; nothing changes once ``turn`` is
    over. Turn 0 is the lobby (e.g. the character pickers, made inert at the start).
    ``known``: the match as the caller has it (:func:`_loader`)."""
    load = _loader(deps, match_id, known)

    def step() -> Match:
        match = load().match
        phase = Phase.LOBBY if turn == 0 else Phase.RUNNING
        if (match.turn != turn or match.phase is not phase) and match is known:
            match = deps.repo.load(match_id).match  # over, as the caller knew it: ask the store
        if match.turn != turn or match.phase is not phase:
            return match
        kept = match.ui.get(key)
        old = list(kept["items"]) if isinstance(kept, dict) and kept.get("turn") == turn else []
        value = {"turn": turn, "items": old + [i for i in items if i not in old]}
        return deps.repo.save(
            replace(match, ui={**match.ui, key: value}), expected_version=match.version
        )

    return _retry(step)


def remember_messages(
    deps: Deps,
    match_id: str,
    key: str,
    turn: int,
    items: list[Any],
    *,
    known: Match,
) -> Match:
    """Remember ``items`` (``[chat, message]`` pairs of ``turn``) under ``key`` beside the
    match's document (``MatchRepository.remember_messages``: no read, no version, never a
    conflict with a seal; a stale turn's are ignored). Returns ``known`` as it would now read
    them (the caller's match, not read again)."""
    deps.repo.remember_messages(match_id, key, turn, items)
    return with_remembered(known, key, turn, items)


def with_remembered(known: Match, key: str, turn: int, items: Sequence[Sequence[int]]) -> Match:
    """``known`` as it reads once ``items`` of ``turn`` are remembered under ``key``
    (``engine.match.merge_remembered``), without a read."""
    merged = merge_remembered(known.remembered.get(key), turn, items)
    if merged is None:
        return known
    return replace(known, remembered={**known.remembered, key: merged})


def start(deps: Deps, match_id: str, user_id: int) -> tuple[Match, tuple[Event, ...]]:
    """Start the match; the setup (turn 0, e.g. initiative rolls) is stored as a turn record and
    its events returned; its announcement (the lobby message becomes the start, then the first
    turn opens) is owed in the same write."""

    def step() -> tuple[Match, tuple[Event, ...]]:
        loaded = deps.repo.load(match_id)
        now = deps.clock()
        target, beacon = _beacon_for(deps, now)
        lobby = loaded.match
        if target is not None and beacon is None:  # unreachable: say so in the public log
            lobby = lifecycle.intervene(lobby, user_id, "seed_only", now, beacon_round=target)
        started, record = lifecycle.start(
            lobby,
            user_id,
            now,
            deps.entropy.seed(),
            beacon_round=target,
            beacon=beacon,
        )
        if deps.beacon is None:  # the status says so every turn (docs/fairness.md)
            started = replace(started, ui={**started.ui, "seed_only": True})
        lobby_id = loaded.match.ui.get("lobby")
        note = _owed(loaded.match, "started", started.turn, now, lobby=lobby_id)
        saved = deps.repo.save(
            started, expected_version=loaded.match.version, record=record, owe=[note]
        )
        return saved, record.events

    return _retry(step)


# --------------------------------------------------------------------------- turns


def seal_order(
    deps: Deps,
    match_id: str,
    user_id: int,
    pid: str,
    raw_order: Mapping[str, Any],
    *,
    turn: int | None = None,
    receipt: Mapping[str, Any] | None = None,
    known: Loaded | None = None,
) -> SealResult:
    """Seal or replace an order; when it is the last one missing, resolve the turn in the same
    conditional write (so two last orders sealed at once give exactly one resolution), and
    then owe the player's receipt (``receipt``: the edge's data for it, e.g. the message to
    edit) before the turn's announcement: past the turn, a failed receipt cannot be had by
    re-sending the order.

    The order is bound to one turn: ``turn`` when given (the turn the player's screen showed),
    else the turn of the first load. If that turn resolves meanwhile (a race, or a storage retry
    whose first attempt went through), the order is refused as stale rather than silently
    sealed into the next turn. ``known``: the match with its orders as the caller just read
    it, the first attempt's (its save is conditional on that version: a change meanwhile
    conflicts and the next attempt reads)."""
    bound: list[int] = [] if turn is None else [turn]
    reuse = [known] if known is not None and known.match.id == match_id else []

    def step() -> SealResult:
        if reuse:  # the caller's read: trusted only through a save conditional on it
            with contextlib.suppress(ConflictError, Rejection):
                res = attempt(reuse.pop())
                if not res.unchanged:
                    return res
            # A conflict, a refusal or nothing to write, decided on what the caller read:
            # the stored match decides.
        return attempt(deps.repo.load(match_id))

    def attempt(loaded: Loaded) -> SealResult:
        if not bound:
            bound.append(loaded.match.turn)
        if loaded.match.turn != bound[0]:
            raise Rejection("stale_turn", turn=bound[0])
        if deps.require_commitment_post and loaded.match.commitment_posted_at is None:
            raise Rejection("commitment_not_posted", turn=bound[0])
        now = deps.clock()
        sealed_match, order = lifecycle.seal(
            loaded.match, user_id, pid, raw_order, now, deps.entropy.salt()
        )
        replaced = pid in loaded.orders
        kept = loaded.orders.get(pid) if pid in loaded.match.sealed else None
        same = kept is not None and kept.turn == order.turn and kept.order == order.order
        if kept is not None and same and kept.by_user == user_id:
            # A repeated seal of the same order (a double tap on 🔒) is a no-op: the sealed
            # order keeps its salt and public fingerprint (issue 24).
            fps = _fingerprints(loaded.orders, loaded.match)
            return SealResult(loaded.match, kept, False, None, unchanged=True, fingerprints=fps)
        replaced_at.append(replaced)
        saved, record = _save_maybe_resolving(
            deps, loaded, sealed_match, seal=order, now=now, owe_if_resolved=owed(loaded.match, now)
        )
        fps = _fingerprints({**loaded.orders, pid: order}, saved)
        return SealResult(saved, order, replaced, record, fingerprints=fps)

    replaced_at: list[bool] = []

    def owed(m: Match, now: float) -> tuple[Owed, ...]:
        if receipt is None:
            return ()
        data = {**receipt, "pid": pid, "user": user_id, "replaced": replaced_at[-1]}
        key = f"receipt:{m.turn}:{pid}"
        return (_owed(m, "receipt", m.turn, now, 0, chat_id=user_id, key=key, **data),)

    deps = _once(deps)
    res = _retry(step)
    if res.unchanged:
        return res
    saved, record = _finish(deps, (res.match, res.record), owe_if_resolved=owed)
    return replace(res, match=saved, record=record)


def withdraw_order(
    deps: Deps, match_id: str, user_id: int, pid: str, *, turn: int | None = None
) -> Match:
    """Take back ``pid``'s sealed order. With ``turn`` (the turn the player's receipt was
    for), a turn that resolved meanwhile is refused, as for :func:`seal_order`: the press
    never withdraws an order sealed for the next turn."""

    def step() -> Match:
        loaded = deps.repo.load(match_id)
        if turn is not None and loaded.match.turn != turn:
            raise Rejection("stale_turn", turn=turn)
        new = lifecycle.withdraw(loaded.match, user_id, pid)
        return deps.repo.save(new, expected_version=loaded.match.version, withdraw=pid)

    return _retry(step)


def _require_reviewer(m: Match, user_id: int) -> None:
    """``user_id`` is the GM who reads this turn's sealed orders (plans C22 with
    ``gm_sees_plans``, :func:`engine.match.gm_reviews`); else a :class:`Rejection`."""
    lifecycle.require_gm(m, user_id)
    if m.phase is not Phase.RUNNING or not lifecycle.gm_reviews(m):
        raise Rejection("veto_not_allowed")


def veto_order(
    deps: Deps, match_id: str, user_id: int, pid: str, fingerprint: str, reason: str = ""
) -> Match:
    """The GM vetoes ``pid``'s sealed order (plans C22: its text contradicts its mechanics):
    the order is withdrawn and the player seals again. Only in a match whose GM reviews orders
    (he could not have read it otherwise); ``fingerprint`` (a prefix is enough) binds the veto
    to the order the GM read, so a replaced order is not vetoed by a stale button. Audited
    publicly, without the order's content."""

    def step() -> Match:
        loaded = deps.repo.load(match_id)
        m = loaded.match
        _require_reviewer(m, user_id)
        order = loaded.orders.get(pid)
        if pid not in m.sealed or order is None or order.turn != m.turn:
            raise Rejection("nothing_sealed")
        if not fingerprint or not order.fingerprint.startswith(fingerprint):
            raise Rejection("stale_turn", turn=m.turn)
        vetoed = replace(m, sealed=tuple(p for p in m.sealed if p != pid))
        vetoed = lifecycle.intervene(vetoed, user_id, "veto", deps.clock(), reason, pid=pid)
        return deps.repo.save(vetoed, expected_version=m.version, withdraw=pid)

    return _retry(step)


def orders_for_review(deps: Deps, match_id: str, user_id: int) -> list[SealedOrder]:
    """This turn's sealed orders, in sealing order, for the GM who reviews them (plans C22
    with ``gm_sees_plans``; :func:`engine.match.gm_reviews`): what a GM who takes the role
    mid-turn is sent, since the plans sealed before went to the previous GM. Anyone else, or
    a match whose GM does not review, is refused."""
    loaded = deps.repo.load(match_id)
    m = loaded.match
    _require_reviewer(m, user_id)
    sealed = [o for o in loaded.orders.values() if o.pid in m.sealed and o.turn == m.turn]
    return sorted(sealed, key=lambda o: o.seq)


def my_orders(deps: Deps, match_id: str, user_id: int) -> list[SealedOrder]:
    """The caller's own sealed orders this turn (and no one else's)."""
    loaded = deps.repo.load(match_id)
    return lifecycle.own_orders(list(loaded.orders.values()), loaded.match, user_id)


def force_resolve(deps: Deps, match_id: str, user_id: int, turn: int) -> Resolution:
    """The GM resolves the turn now; missing orders become default orders. ``turn`` binds the
    request to the turn the GM saw, so a stale button cannot resolve a later turn."""

    def step() -> Resolution | Locked:
        loaded = deps.repo.load(match_id)
        lifecycle.require_gm(loaded.match, user_id)
        if loaded.match.phase is not Phase.RUNNING or loaded.match.turn != turn:
            raise Rejection("stale_turn", turn=turn)
        m = loaded.match
        if m.locked_at is not None:  # locked, waiting for its beacon round
            saved, record = _lock_and_resolve(
                deps, loaded, m, reason=m.lock_reason or "forced", give_up_by=user_id
            )
            if record is None:
                raise Rejection("beacon_pending", turn=m.turn)
            return Resolution(saved, record)
        missing = lifecycle.missing(m)
        audited = lifecycle.intervene(
            unpark(loaded.match), user_id, "force_resolve", deps.clock(), missing=list(missing)
        )
        saved, record = _lock_and_resolve(
            deps, Loaded(audited, loaded.orders), audited, reason="forced"
        )
        return Resolution(saved, record) if record is not None else Locked(saved)

    deps = _once(deps)
    done = _retry(step)
    if isinstance(done, Resolution):
        return done
    # Locked now; resolved once its round is out. When the round cannot be had yet,
    # Rejection beacon_pending (the sweeper, or the GM's next press, resolves it; past
    # ``beacon_patience`` the GM resolves it without).
    saved, record = _finish(deps, (done.match, None))
    if record is None:
        raise Rejection("beacon_pending", turn=turn)
    return Resolution(saved, record)


@dataclass(frozen=True, slots=True)
class Locked:
    """A turn a use case just locked: its beacon round is waited for after the retry loop
    (:func:`_finish`)."""

    match: Match


def lock_posted(
    deps: Deps,
    match_id: str,
    turn: int,
    message_id: int,
    date: float,
    *,
    known: Match | None = None,
    entry: Owed | None = None,
) -> Match:
    """``turn``'s lock message is in the group, dated ``date`` by Telegram: that date is the
    lock time and fixes the beacon round (``docs/fairness.md``, "The lock message").
    ``known``: the match as the caller has it (:func:`_loader`); ``entry``: the lock's owed
    item, written (ended) with it (:func:`_update`)."""
    network = None if deps.beacon is None else deps.beacon.network
    target = None if network is None else round_after(network, date)
    return _update(
        deps,
        match_id,
        lambda ld: lifecycle.lock_posted(ld.match, turn, message_id, date, target),
        known=known,
        entry=entry,
    )


def resolve_locked(
    deps: Deps, match_id: str, turn: int, *, attempt: int = 0, known: Match | None = None
) -> Resolution | None:
    """Resolve ``turn``, locked with its lock message posted, once its beacon round is out
    (the one wait, at most a period, outside any retry loop: :func:`_finish`); None when it
    cannot be had yet (the sweeper tries again: :func:`tick`) or the turn moved on.

    With ``deps.later`` (serverless) it never waits: a round not due yet is handed to
    ``later`` for its publication time (plus :data:`LATER_MARGIN`), and one due but not to
    be had (a relay late, drand down) is asked for again with a growing delay, ``attempt``
    counting the tries up to :data:`LATER_ATTEMPTS`; then the sweeper resolves it. A call for
    a turn already resolved (a duplicate message) reads the match and does nothing else.
    ``known``: the match as the caller just saved it (the lock message's date): whether to
    hand the turn to ``later`` is decided on it without a read; a resolution loads."""
    loaded = None
    if known is not None and known.id == match_id:
        m = known
    else:
        loaded = deps.repo.load(match_id)
        m = loaded.match
    if not _locked_at(m, turn) or m.beacon_round is None:
        return None
    if deps.later is not None and deps.beacon is not None:
        due = _due_at(deps.beacon, m.beacon_round)
        if deps.clock() < due:
            if attempt < LATER_ATTEMPTS:  # early (clock skew): bounded like a late round
                deps.later.resolve_at(match_id, turn, due, attempt + 1)
            return None
    saved, record = _finish(deps, (m, None), loaded=loaded)
    if record is not None:
        return Resolution(saved, record)
    if deps.later is not None and _locked_at(saved, turn) and attempt < LATER_ATTEMPTS:
        again = deps.clock() + 2.0 ** max(0, attempt - 1)
        deps.later.resolve_at(match_id, turn, again, attempt + 1)
    return None


def _locked_at(m: Match, turn: int) -> bool:
    """``m`` is running ``turn``, locked and not resolved."""
    return m.phase is Phase.RUNNING and m.turn == turn and m.locked_at is not None


def _due_at(beacon: Beacon, round_number: int) -> float:
    """When the relays serve ``round_number``: its publication time plus the margin."""
    return round_time(beacon.network, round_number) + LATER_MARGIN


def _fetch(deps: Deps, round_number: int) -> BeaconRound | None:
    """``round_number`` if it can be had now. With ``deps.later`` a round not due yet is not
    asked for (the adapter would wait for it): None, and it is resolved later."""
    assert deps.beacon is not None
    if deps.later is not None and deps.clock() < _due_at(deps.beacon, round_number):
        return None
    return deps.beacon.fetch(round_number)


def _beacon_for(deps: Deps, now: float) -> tuple[int | None, BeaconRound | None]:
    """The beacon round a lock at ``now`` fixes, and that round if it can be had now."""
    if deps.beacon is None:
        return None, None
    target = round_after(deps.beacon.network, now)
    return target, deps.beacon.fetch(target)


def _save_unresolved(
    deps: Deps,
    loaded: Match,
    changed: Match,
    seal: SealedOrder | None,
    withdraw: str | None,
    owe: tuple[Owed, ...],
) -> Match:
    """The locked turn saved without its resolution (no round yet), conditional on the
    version loaded, with the change's seal or withdrawal and what it owes."""
    return deps.repo.save(
        changed, expected_version=loaded.version, seal=seal, withdraw=withdraw, owe=owe
    )


def _lock_and_resolve(
    deps: Deps,
    loaded: Loaded,
    changed: Match,
    *,
    reason: str,
    seal: SealedOrder | None = None,
    now: float | None = None,
    withdraw: str | None = None,
    give_up_by: int | None = None,
    owe: tuple[Owed, ...] = (),
    owe_if_resolved: tuple[Owed, ...] = (),
    index: int = 0,
) -> SealResultLike:
    """Lock the turn (if it is not yet) and resolve it once its beacon round is out, in one
    conditional write with ``seal``/``withdraw``. Without the round, the lock alone is saved
    (record None), unless the GM (``give_up_by``) resolves a turn whose beacon is late beyond
    ``beacon_patience``: that turn resolves from the server seed only, marked so in the record
    (no beacon) and in the audit log (``seed_only``)."""
    at = deps.clock() if now is None else now
    orders = loaded.orders if seal is None else {**loaded.orders, seal.pid: seal}
    beacon: BeaconRound | None = None
    if deps.beacon is not None:
        target = changed.beacon_round
        if changed.locked_at is None:
            # The lock alone first: the round is published after it, so waiting for it here
            # would wait inside the caller's retry loop, once per lost race. The caller
            # resolves after its loop (:func:`_finish`), with the orders the lock froze.
            # The bot (``lock_by_message``): the round is fixed later by the lock message's
            # Telegram date (``lock_posted``), whose posting is owed now.
            if deps.lock_by_message:
                changed = lifecycle.lock(changed, at, reason, None)
                owe = (*owe, _owed(loaded.match, "lock", changed.turn, at, 14))
            else:
                target = round_after(deps.beacon.network, at)
                changed = lifecycle.lock(changed, at, reason, target)
            return _save_unresolved(deps, loaded.match, changed, seal, withdraw, owe), None
        beacon = None if target is None else _fetch(deps, target)
        late = at >= changed.locked_at + deps.beacon_patience
        if beacon is None and late and give_up_by is not None:
            changed = lifecycle.intervene(changed, give_up_by, "seed_only", at, beacon_round=target)
        elif beacon is None:
            return _save_unresolved(deps, loaded.match, changed, seal, withdraw, owe), None
    edited = next((o.data.get("message") for o in owe_if_resolved if o.kind == "receipt"), None)
    resolved, record = lifecycle.resolve(
        changed, orders, at, deps.entropy.seed(), reason=reason, beacon=beacon
    )
    saved = deps.repo.save(
        resolved,
        expected_version=loaded.match.version,
        seal=seal,
        withdraw=withdraw,
        record=record,
        owe=[*owe, *owe_if_resolved, _resolved(loaded.match, record, at, index, edited)],
    )
    return saved, record


def _finish(
    deps: Deps,
    first: SealResultLike,
    *,
    owe_if_resolved: Callable[[Match, float], tuple[Owed, ...]] | None = None,
    give_up_by: int | None = None,
    loaded: Loaded | None = None,
) -> SealResultLike:
    """After a use case's retry loop: a turn it left locked (the lock saved, its beacon round
    not yet published) is resolved now. The one wait for the round is here, outside any
    retry loop and at most one period (the round is the first after the lock); then a retry
    loop of its own resolves the turn, whose orders the lock froze. A turn resolved (or
    undone) by someone else meanwhile is left as it is (record None). ``loaded``: the match
    with its orders as the caller just read it, the first attempt's (its save is
    conditional on that version: a change meanwhile conflicts and the next attempt reads)."""
    saved, record = first
    if record is not None or deps.beacon is None or saved.locked_at is None:
        return first
    if saved.phase is not Phase.RUNNING or saved.beacon_round is None:
        return first
    deps = _once(deps)
    if deps.later is not None:  # serverless: no wait; resolved when the round is due
        due = _due_at(deps.beacon, saved.beacon_round)  # type: ignore[arg-type]
        if deps.clock() < due:
            deps.later.resolve_at(saved.id, saved.turn, due, 1)
            return first
    _fetch(deps, saved.beacon_round)  # the one wait
    reuse = [loaded] if loaded is not None and loaded.match.id == saved.id else []

    def step() -> SealResultLike:
        loaded = reuse.pop() if reuse else deps.repo.load(saved.id)
        m = loaded.match
        if m.turn != saved.turn or m.locked_at != saved.locked_at or m.phase is not Phase.RUNNING:
            return m, None
        now = deps.clock()
        extra = () if owe_if_resolved is None else owe_if_resolved(m, now)
        return _lock_and_resolve(
            deps,
            loaded,
            m,
            reason=m.lock_reason or "all_sealed",
            now=now,
            give_up_by=give_up_by,
            owe_if_resolved=extra,
            index=15,
        )

    return _retry(step)


def end_match(
    deps: Deps,
    match_id: str,
    user_id: int,
    outcome: Outcome,
    *,
    notes: Sequence[Mapping[str, Any]] = (),
) -> Match:
    def step() -> Match:
        loaded = deps.repo.load(match_id)
        now = deps.clock()
        ended = lifecycle.end(loaded.match, user_id, outcome)
        ended = lifecycle.intervene(
            ended,
            user_id,
            "end",
            now,
            result=outcome.status,
            winners=list(outcome.winners),
        )
        owe = _notes(loaded.match, now, notes)
        return deps.repo.save(
            ended, expected_version=loaded.match.version, discard_orders=True, owe=owe
        )

    return _retry(step)


# --------------------------------------------------------------------------- edge helpers


def set_reachable(deps: Deps, match_id: str, user_id: int, reachable: bool) -> Match:
    """Mark whether the bot can message ``user_id`` privately (a ``Forbidden`` on a DM, or the
    user pressing Start again). Nothing else changes; the match goes on either way."""

    def change(ld: Loaded) -> Match:
        seats = tuple(
            replace(s, reachable=reachable) if s.user_id == user_id and not s.npc else s
            for s in ld.match.seats
        )
        return replace(ld.match, seats=seats)

    return _update(deps, match_id, change)


def sealed_fingerprints(deps: Deps, match_id: str) -> dict[str, str]:
    """The public fingerprints of the current turn's sealed orders, by pid (never the orders)."""
    loaded = deps.repo.load(match_id)
    return _fingerprints(loaded.orders, loaded.match)


def _fingerprints(orders: Mapping[str, SealedOrder], match: Match) -> dict[str, str]:
    """The public fingerprints of ``match``'s sealed orders among ``orders`` (its turn's)."""
    return {pid: o.fingerprint for pid, o in orders.items() if pid in match.sealed}


# --------------------------------------------------------------------------- clock and GM powers


@dataclass(frozen=True, slots=True)
class Reminder:
    """This turn's reminder is due: DM ``missing`` players about ``match.deadline``."""

    match: Match
    missing: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Resumed:
    """A pause ran out by itself (``max_pause_seconds``)."""

    match: Match
    record: TurnRecord | None


@dataclass(frozen=True, slots=True)
class BeaconLate:
    """A locked turn's beacon round could not be had for ``beacon_patience``: the GM may
    resolve it from the server seed only (said once per turn, owed as ``beacon_late``)."""

    match: Match


@dataclass(frozen=True, slots=True)
class Parked:
    """The match failed :data:`PARK_AFTER` sweeps in a row and was parked: out of the due
    index, ``attention`` = ``detail``, until its next change (the GM's)."""

    match_id: str
    detail: str


SweepResult = Resolution | Reminder | Resumed | Parked | BeaconLate


def _notes(before: Match, now: float, notes: Sequence[Mapping[str, Any]]) -> list[Owed]:
    """A GM action's announcements, owed in the action's own write (the outbox, issue 28):
    edge data only (what to say, to whom: ``chat``, default the group), rendered when sent;
    owed as ``kind`` (default ``note``)."""
    key = f"note:{before.version + 1}"
    return [
        _owed(
            before,
            str(n.get("kind", "note")),
            before.turn,
            now,
            1 + i,
            chat_id=n.get("chat"),
            key=f"{key}:{i}",
            **{k: v for k, v in n.items() if k != "kind"},
        )
        for i, n in enumerate(notes)
    ]


def _gm_step(
    deps: Deps,
    match_id: str,
    change: Callable[[Match, float], Match],
    notes: Sequence[Mapping[str, Any]] = (),
) -> Match:
    def step() -> Match:
        loaded = deps.repo.load(match_id)
        now = deps.clock()
        new = change(unpark(loaded.match), now)
        owe = _notes(loaded.match, now, notes)
        return deps.repo.save(new, expected_version=loaded.match.version, owe=owe)

    return _retry(step)


def pause(
    deps: Deps, match_id: str, user_id: int, *, notes: Sequence[Mapping[str, Any]] = ()
) -> Match:
    return _gm_step(deps, match_id, lambda m, now: gm.pause(m, user_id, now), notes)


def resume(
    deps: Deps, match_id: str, user_id: int, *, notes: Sequence[Mapping[str, Any]] = ()
) -> SealResultLike:
    """Resume; if every order is already in, the turn resolves at once."""

    def step() -> SealResultLike:
        loaded = deps.repo.load(match_id)
        now = deps.clock()
        resumed = gm.resume(loaded.match, user_id, now)
        owe = tuple(_notes(loaded.match, now, notes))
        return _save_maybe_resolving(deps, loaded, resumed, owe=owe)

    return _finish(deps, _retry(step))


SealResultLike = tuple[Match, TurnRecord | None]


def _save_maybe_resolving(
    deps: Deps,
    loaded: Loaded,
    changed: Match,
    *,
    seal: SealedOrder | None = None,
    now: float | None = None,
    withdraw: str | None = None,
    owe: tuple[Owed, ...] = (),
    owe_if_resolved: tuple[Owed, ...] = (),
) -> SealResultLike:
    """Save ``changed`` (and the newly sealed order ``seal``, if any; without ``withdraw``'s
    order); when it leaves every order in, resolve the turn in the same conditional write, at
    ``now`` (default: the clock), owing its announcement after ``owe`` and
    ``owe_if_resolved``."""
    if lifecycle.ready(changed):
        return _lock_and_resolve(
            deps,
            loaded,
            changed,
            reason="all_sealed",
            seal=seal,
            now=now,
            withdraw=withdraw,
            owe=owe,
            owe_if_resolved=owe_if_resolved,
            index=15,
        )
    saved = deps.repo.save(
        changed, expected_version=loaded.match.version, seal=seal, withdraw=withdraw, owe=owe
    )
    return saved, None


def extend(
    deps: Deps,
    match_id: str,
    user_id: int,
    seconds: int,
    *,
    notes: Sequence[Mapping[str, Any]] = (),
) -> Match:
    return _gm_step(deps, match_id, lambda m, now: gm.extend(m, user_id, now, seconds), notes)


def configure_clock(
    deps: Deps,
    match_id: str,
    user_id: int,
    *,
    notes: Sequence[Mapping[str, Any]] = (),
    **options: Any,
) -> Match:
    return _gm_step(
        deps, match_id, lambda m, now: gm.configure_clock(m, user_id, now, **options), notes
    )


def undo(
    deps: Deps,
    match_id: str,
    user_id: int,
    reason: str = "",
    *,
    turn: int | None = None,
    notes: Sequence[Mapping[str, Any]] = (),
) -> tuple[Match, TurnRecord]:
    """Undo the last resolved turn: the exact previous state, the turn reopened (its orders
    discarded: players seal again), a new committed seed. Returns the match and the undone
    record. ``turn`` binds the request to the match's turn the GM saw (the one after the turn
    to undo): a repeated or stale confirmation (a double tap) is refused, never undoing a
    second turn."""

    def step() -> tuple[Match, TurnRecord]:
        loaded = deps.repo.load(match_id)
        lifecycle.require_gm(loaded.match, user_id)
        if turn is not None and loaded.match.turn != turn:
            raise Rejection("stale_turn", turn=turn)
        history = deps.repo.history(match_id)
        if not history:
            raise Rejection("nothing_to_undo")
        last = history[-1]
        now = deps.clock()
        reopened = gm.undo(loaded.match, user_id, last, now, deps.entropy.seed(), reason)
        saved = deps.repo.save(
            reopened,
            expected_version=loaded.match.version,
            discard_orders=True,
            drop_record=last.turn,
            owe=_notes(loaded.match, now, notes),
        )
        return saved, last

    return _retry(step)


def replace_player(
    deps: Deps,
    match_id: str,
    user_id: int,
    pid: str,
    new_user_id: int,
    new_name: str,
    *,
    notes: Sequence[Mapping[str, Any]] = (),
) -> Match:
    return _gm_step(
        deps,
        match_id,
        lambda m, now: gm.replace_player(m, user_id, pid, new_user_id, new_name, now),
        notes,
    )


def forfeit(
    deps: Deps,
    match_id: str,
    user_id: int,
    pid: str,
    reason: str = "",
    *,
    notes: Sequence[Mapping[str, Any]] = (),
) -> SealResultLike:
    """A participant leaves a running match (their own choice, or removed by the GM); the turn
    resolves if that leaves every remaining order in."""

    def step() -> SealResultLike:
        loaded = deps.repo.load(match_id)
        now = deps.clock()
        changed = gm.forfeit(loaded.match, user_id, pid, now, reason)
        orders = {p: o for p, o in loaded.orders.items() if p != pid}
        # The seat's sealed order goes too: it is no longer "sealed" for the group, and a
        # later holder of the seat (replace_player) must neither see nor play it.
        gone = pid if pid in loaded.orders else None
        owe = tuple(_notes(loaded.match, now, notes))
        return _save_maybe_resolving(
            deps, Loaded(loaded.match, orders), changed, withdraw=gone, owe=owe
        )

    return _finish(deps, _retry(step))


def edit_state(
    deps: Deps,
    match_id: str,
    user_id: int,
    pid: str,
    field: str,
    value: Any,
    reason: str,
    *,
    notes: Sequence[Mapping[str, Any]] = (),
) -> Match:
    return _gm_step(
        deps, match_id, lambda m, now: gm.edit(m, user_id, pid, field, value, now, reason), notes
    )


def hand_gm(
    deps: Deps,
    match_id: str,
    user_id: int,
    new_gm: int,
    *,
    as_admin: bool = False,
    notes: Sequence[Mapping[str, Any]] = (),
) -> Match:
    return _gm_step(
        deps,
        match_id,
        lambda m, now: gm.hand_gm(m, user_id, new_gm, now, as_admin=as_admin),
        notes,
    )


def history(deps: Deps, match_id: str) -> list[TurnRecord]:
    """Resolved turns (revealed: safe to show to anyone in the match)."""
    return deps.repo.history(match_id)


def tick(deps: Deps, match_id: str) -> SweepResult | None:
    """Do what the clock asks of one match now: end an expired pause, resolve at the deadline
    (missing orders become defaults), or send the turn's one reminder. A firing with nothing due
    (the turn already resolved, the deadline moved) does nothing and returns None."""

    def step() -> SweepResult | Locked | None:
        loaded = deps.repo.load(match_id)
        m = loaded.match
        now = deps.clock()
        if m.phase is not Phase.RUNNING:
            return None
        if m.locked_at is not None:  # waiting for its beacon round: resolve once it is out
            saved, record = _lock_and_resolve(deps, loaded, m, reason=m.lock_reason or "")
            if record is not None:
                return Resolution(saved, record)
            late = now >= m.locked_at + deps.beacon_patience
            if late and saved.ui.get("beacon_late") != saved.turn:
                told = replace(saved, ui={**saved.ui, "beacon_late": saved.turn})
                note = _owed(saved, "beacon_late", saved.turn, now, round=saved.beacon_round)
                return BeaconLate(deps.repo.save(told, expected_version=saved.version, owe=[note]))
            return None
        if m.paused_at is not None:
            if now < m.paused_at + clock.clock_config(m).max_pause_seconds:
                return None
            resumed = gm.resume(m, None, now)
            note = _owed(m, "resumed", m.turn, now, status=m.ui.get("status"))
            saved, record = _save_maybe_resolving(deps, loaded, resumed, owe=(note,))
            return Resumed(saved, record)
        if m.deadline is not None and m.deadline <= now:
            saved, record = _lock_and_resolve(deps, loaded, m, reason="deadline")
            return Locked(saved) if record is None else Resolution(saved, record)
        due = clock.reminder_at(m)
        if due is not None and due <= now:
            missing = lifecycle.missing(m)
            note = _owed(m, "reminder", m.turn, now, missing=list(missing))
            saved = deps.repo.save(clock.mark_reminded(m), expected_version=m.version, owe=[note])
            return Reminder(saved, lifecycle.missing(saved))
        return None

    deps = _once(deps)
    done = _retry(step)
    if isinstance(done, Locked):  # at the deadline: resolved once its round is out
        saved, record = _finish(deps, (done.match, None))
        return None if record is None else Resolution(saved, record)
    if isinstance(done, Resumed) and done.record is None:  # every order was in: the same
        return Resumed(*_finish(deps, (done.match, None)))
    return done


def sweep(
    deps: Deps,
    limit: int = 50,
    on_error: Callable[[str, Exception], None] | None = None,
    *,
    park_after: int = PARK_AFTER,
    time_left: Callable[[], bool] | None = None,
) -> list[SweepResult]:
    """Everything the clock asks of all matches now (the Lambda sweeper and the local timer
    both call this), up to ``limit`` matches and while ``time_left()`` says so.

    One match's failure (a bug on a damaged state, throttling) neither stops the matches
    behind it in the index nor loses the results already saved, which no later sweep would
    return (those turns are no longer due): it goes to ``on_error`` (else the log) and the
    match stays due, so the next sweep tries it again - up to ``park_after`` failures in a
    row, then it is parked (:class:`Parked`) and no longer takes sweep time."""
    results: list[SweepResult] = []
    for match_id in deps.repo.due(deps.clock(), limit):
        if time_left is not None and not time_left():
            break
        try:
            result = tick(deps, match_id)
        except (CorruptRecordError, NotFoundError, TryAgainError):
            continue  # flagged or raced; the next sweep looks again
        except Exception as exc:
            if on_error is None:
                log.error("sweeping match %s failed: %s: %s", match_id, type(exc).__name__, exc)
            else:
                on_error(match_id, exc)
            detail = f"{PARKED}{type(exc).__name__}: {exc}"[:300]
            try:
                if deps.repo.note_failure(match_id, detail, park_after):
                    log.error("match %s parked after %d failed sweeps", match_id, park_after)
                    results.append(Parked(match_id, detail))
            except Exception as note_exc:  # the store itself is failing: next sweep
                log.error("could not count the failure of %s: %s", match_id, note_exc)
            continue
        if result is not None:
            results.append(result)
    return results
