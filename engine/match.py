"""The match lifecycle, pure: lobby -> running (turn k: collecting sealed orders -> resolved)
-> finished.

Every function takes a :class:`Match` (immutable) and returns a new one; the shell supplies
time (``now``, epoch seconds) and entropy (seeds, salts) as arguments, so the lifecycle stays
deterministic and testable. The ruleset state is kept serialized (``Match.state``) so a match
and its storage do not depend on which ruleset it plays.

Secrecy: sealed orders never live in :class:`Match`; they are :class:`SealedOrder` values the
repository keeps beside it, and only :func:`resolve` (and the owner's own view) read them.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from engine import ENGINE_VERSION
from engine import rulesets as registry
from engine.beacon import BeaconRound, mix
from engine.dice import CommittedDice, TurnLog, seed_commitment
from engine.errors import Rejection
from engine.events import Event
from engine.phase import Phase as Phase  # noqa: PLC0414 - re-exported for importers
from engine.ruleset import Entrant, Outcome, Ruleset, Sealed


@dataclass(frozen=True, slots=True)
class Seat:
    """A participant of a match. ``user_id`` is the Telegram user who seals its orders; NPCs
    have none (their orders come from the GM)."""

    pid: str
    name: str
    user_id: int | None = None
    side: str = ""
    character: Mapping[str, Any] | None = None
    npc: bool = False
    status: str = "active"  # active | forfeit | left
    reachable: bool = True


@dataclass(frozen=True, slots=True)
class SealedOrder:
    """One sealed order. ``fingerprint`` is public (posted in the group); the order and salt
    stay secret until the reveal."""

    pid: str
    turn: int
    order: Mapping[str, Any]
    by_user: int | None
    sealed_at: float
    seq: int
    salt: str
    fingerprint: str
    default: bool = False


@dataclass(frozen=True, slots=True)
class TurnRecord:
    """Everything a resolved turn revealed: orders with salts, the seed, every event."""

    match_id: str
    turn: int
    orders: tuple[SealedOrder, ...]
    events: tuple[Event, ...]
    state_before: Mapping[str, Any]
    state_after: Mapping[str, Any]
    seed: str
    commitment: str
    reason: str  # all_sealed | deadline | forced
    resolved_at: float
    ruleset_version: str
    engine_version: str = ENGINE_VERSION
    opened_at: float | None = None  # when the turn opened (its commitment was made)
    locked_at: float | None = None  # after this no order could be sealed, changed, withdrawn
    beacon_round: int | None = None  # the beacon round the lock fixed (None: no beacon asked)
    beacon: BeaconRound | None = None  # that round as published; None: "server seed only"
    commitment_message: int | None = None  # the group message that posted the commitment
    commitment_posted_at: float | None = None  # when it was posted (before any seal)
    lock_message: int | None = None  # the group message whose Telegram date is locked_at
    frozen_at: float | None = None  # server time the turn stopped taking orders

    @property
    def defaulted(self) -> tuple[str, ...]:
        return tuple(o.pid for o in self.orders if o.default)


@dataclass(frozen=True, slots=True)
class Match:
    """A match as stored. ``version`` is the optimistic-concurrency counter; the repository
    bumps it on every successful write."""

    id: str
    chat_id: int
    gm_user_id: int
    ruleset: str
    ruleset_version: str
    created_at: float
    lang: str = "ru"
    config: Mapping[str, Any] = field(default_factory=dict)
    phase: Phase = Phase.LOBBY
    turn: int = 0
    seats: tuple[Seat, ...] = ()
    state: Mapping[str, Any] | None = None
    sealed: tuple[str, ...] = ()  # pids who have sealed this turn: public, never the content
    seal_seq: int = 0
    turn_seed: str | None = None  # hex; secret until the turn's reveal
    commitment: str | None = None  # sha256(seed), posted when the turn opens
    turn_opened_at: float | None = None
    deadline: float | None = None
    locked_at: float | None = None  # the turn locked: no seal, change or withdrawal any more
    lock_reason: str | None = None  # all_sealed | deadline | forced: why it locked
    beacon_round: int | None = None  # the public beacon round the locked turn waits for
    commitment_message: int | None = None  # the group message posting this turn's commitment
    commitment_posted_at: float | None = None  # None: not posted yet (orders wait for it)
    lock_message: int | None = None  # the lock message (its Telegram date is locked_at)
    frozen_at: float | None = None  # server time the turn locked (orders frozen)
    outcome: Mapping[str, Any] | None = None
    ui: Mapping[str, Any] = field(default_factory=dict)  # message ids etc., for the edge
    attention: str | None = None  # set when a record is corrupt: the GM must look
    audit: tuple[Mapping[str, Any], ...] = ()  # GM interventions: who, when, what, why
    clock: Mapping[str, Any] = field(default_factory=dict)  # ClockConfig overrides
    paused_at: float | None = None
    paused_left: float | None = None  # seconds that were left on the deadline when paused
    reminded: bool = False  # this turn's reminder went out
    extended_turn: int = 0  # extensions granted this turn
    extended_total: int = 0  # extensions granted in the whole match
    missed: Mapping[str, int] = field(default_factory=dict)  # consecutive default orders by pid
    version: int = 0
    # Message ids remembered beside the document, not in it (``MatchRepository.
    # remember_messages``: key -> {"turn": t, "items": [[chat, message], ...]}): filled by
    # ``load`` and the listings, never written by ``save``; read with :func:`remembered_items`.
    remembered: Mapping[str, Mapping[str, Any]] = field(default_factory=dict, compare=False)

    def seat(self, pid: str) -> Seat:
        for s in self.seats:
            if s.pid == pid:
                return s
        raise Rejection("no_such_participant", pid=pid)

    def seat_of_user(self, user_id: int) -> Seat | None:
        return next((s for s in self.seats if s.user_id == user_id and not s.npc), None)

    def controlled_by(self, user_id: int) -> tuple[Seat, ...]:
        """Seats whose orders ``user_id`` may seal: their own, and every NPC if they are GM. A
        seat the ruleset hands to the GM (``Ruleset.controller``, e.g. D34) moves to the GM."""
        gm = gm_controlled(self)
        return tuple(
            s
            for s in self.seats
            if (s.user_id == user_id and not s.npc and s.pid not in gm)
            or ((s.npc or s.pid in gm) and user_id == self.gm_user_id)
        )

    @property
    def rules(self) -> Ruleset[Any, Any, Any]:
        return registry.get(self.ruleset)

    @property
    def paused(self) -> bool:
        return self.paused_at is not None

    @property
    def wake_at(self) -> float | None:
        """When the sweeper must look at this match next (a reminder, a deadline, the end of a
        pause), or None. Stores index this value; it never depends on anyone's sealed order."""
        from engine.clock import wake_at

        return wake_at(self)


def gm_controlled(match: Match) -> frozenset[str]:
    """Player seats whose orders the GM gives now (``Ruleset.controller`` says "gm"). Only
    rulesets that override the hook pay for loading the state."""
    rules = match.rules
    if match.state is None or type(rules).controller is Ruleset.controller:
        return frozenset()
    state = rules.load_state(match.state)
    return frozenset(
        s.pid for s in match.seats if not s.npc and rules.controller(state, s.pid) == "gm"
    )


# --------------------------------------------------------------------------- fingerprints


def canonical_json(value: Any) -> str:
    """The canonical JSON used for fingerprints: sorted keys, no spaces, UTF-8."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def order_fingerprint(
    match_id: str, turn: int, pid: str, order: Mapping[str, Any], salt: str
) -> str:
    """SHA-256 over the canonical JSON of the order with its context and salt (hex)."""
    doc = {"match": match_id, "turn": turn, "pid": pid, "order": order, "salt": salt}
    return hashlib.sha256(canonical_json(doc).encode()).hexdigest()


# --------------------------------------------------------------------------- lobby


def new_match(
    match_id: str,
    chat_id: int,
    gm_user_id: int,
    ruleset_id: str,
    now: float,
    *,
    lang: str = "ru",
    config: Mapping[str, Any] | None = None,
    seed: bytes = b"",
) -> Match:
    """A fresh match in the lobby. ``seed`` is the secret seed of turn 0 (the start-of-match
    rolls, e.g. initiative); its commitment is public from the lobby on. Raises
    :class:`Rejection` for an unknown ruleset or bad configuration."""
    try:
        rules = registry.get(ruleset_id)
    except registry.UnknownRulesetError:
        raise Rejection("unknown_ruleset", ruleset=ruleset_id) from None
    rules.config(config or {})  # validate now: bad options are refused up front
    match = Match(
        id=match_id,
        chat_id=chat_id,
        gm_user_id=gm_user_id,
        ruleset=ruleset_id,
        ruleset_version=rules.version,
        created_at=now,
        lang=lang,
        config=dict(config or {}),
    )
    return open_turn(match, now, seed or match_id.encode())


def _require(match: Match, phase: Phase) -> None:
    if match.phase is not phase:
        raise Rejection(f"not_{phase.value}", phase=match.phase.value)


def configure(match: Match, user_id: int, options: Mapping[str, Any]) -> Match:
    """The GM changes match options in the lobby (validated by the ruleset)."""
    require_gm(match, user_id)
    _require(match, Phase.LOBBY)
    merged = {**match.config, **options}
    match.rules.config(merged)
    return replace(match, config=merged)


def require_gm(match: Match, user_id: int) -> None:
    if user_id != match.gm_user_id:
        raise Rejection("gm_only")


def join(match: Match, user_id: int, name: str, *, side: str = "") -> Match:
    """A user takes a seat (players only; NPCs are added by the GM with :func:`add_npc`)."""
    _require(match, Phase.LOBBY)
    if match.seat_of_user(user_id) is not None:
        raise Rejection("already_joined")
    rules = match.rules
    if len(match.seats) >= rules.max_participants:
        raise Rejection("match_full", limit=rules.max_participants)
    pid = _next_pid(match, "p")
    seat = Seat(pid=pid, name=name, user_id=user_id, side=side or pid)
    return replace(match, seats=(*match.seats, seat))


def _next_pid(match: Match, prefix: str) -> str:
    """A seat id never used in this lobby's current seats: ``prefix`` + (highest number + 1),
    so a seat that joins after another left (or an NPC added after one was removed) never
    takes an id still in use."""
    numbers = [s.pid[len(prefix) :] for s in match.seats if s.pid.startswith(prefix)]
    return f"{prefix}{max((int(n) for n in numbers if n.isdigit()), default=0) + 1}"


def add_npc(
    match: Match, user_id: int, name: str, side: str, character: Mapping[str, Any]
) -> Match:
    """The GM adds a GM-run participant."""
    require_gm(match, user_id)
    _require(match, Phase.LOBBY)
    rules = match.rules
    if len(match.seats) >= rules.max_participants:
        raise Rejection("match_full", limit=rules.max_participants)
    rules.check_character(rules.config(match.config), character)
    pid = _next_pid(match, "n")
    seat = Seat(pid=pid, name=name, side=side or pid, character=dict(character), npc=True)
    return replace(match, seats=(*match.seats, seat))


def remove_npc(match: Match, user_id: int, pid: str) -> Match:
    """The GM takes a GM-run participant out of the lobby (players leave themselves)."""
    require_gm(match, user_id)
    _require(match, Phase.LOBBY)
    if not match.seat(pid).npc:
        raise Rejection("not_an_npc", pid=pid)
    return replace(match, seats=tuple(s for s in match.seats if s.pid != pid))


def set_side(match: Match, user_id: int, pid: str, side: str) -> Match:
    """In the lobby, a player puts their own seat on ``side``; the GM may move any seat."""
    _require(match, Phase.LOBBY)
    seat = match.seat(pid)
    if user_id != match.gm_user_id and (seat.npc or seat.user_id != user_id):
        raise Rejection("not_your_seat")
    side = side.strip()
    # A side travels in the lobby's "Side X" button data (64 bytes in all): 20 bytes, not
    # characters (11 emoji are 44 bytes), leave room for the match id and a preset id.
    if not side or len(side.encode()) > 20 or ":" in side:
        raise Rejection(
            "invalid_field",
            what="side",
            field="side",
            expected="1-20 bytes (a Latin letter is 1, a Cyrillic one 2, an emoji 4), no ':'",
        )
    return _replace_seat(match, replace(seat, side=side))


def leave(match: Match, user_id: int) -> Match:
    """A player leaves the lobby."""
    _require(match, Phase.LOBBY)
    seat = match.seat_of_user(user_id)
    if seat is None:
        raise Rejection("not_a_participant")
    return replace(match, seats=tuple(s for s in match.seats if s.pid != seat.pid))


def set_character(match: Match, user_id: int, pid: str, character: Mapping[str, Any]) -> Match:
    """A player picks or enters a character (validated; refused with a specific reason)."""
    _require(match, Phase.LOBBY)
    seat = match.seat(pid)
    if seat not in match.controlled_by(user_id):
        raise Rejection("not_your_seat")
    rules = match.rules
    rules.check_character(rules.config(match.config), character)
    return _replace_seat(match, replace(seat, character=dict(character)))


def _replace_seat(match: Match, seat: Seat) -> Match:
    return replace(match, seats=tuple(seat if s.pid == seat.pid else s for s in match.seats))


def start(
    match: Match,
    user_id: int,
    now: float,
    next_seed: bytes,
    *,
    beacon_round: int | None = None,
    beacon: BeaconRound | None = None,
) -> tuple[Match, TurnRecord]:
    """The GM starts the match: characters are checked and the ruleset sets up, rolling with the
    lobby's committed turn-0 seed mixed with ``beacon`` (the first beacon round after the start,
    ``beacon_round``; None: server seed only). The setup is recorded as turn 0 (its seed
    revealed), and turn 1 opens committed to ``next_seed``."""
    require_gm(match, user_id)
    _require(match, Phase.LOBBY)
    rules = match.rules
    if len(match.seats) < rules.min_participants:
        raise Rejection("not_enough_players", need=rules.min_participants, have=len(match.seats))
    missing_names = [s.name for s in match.seats if s.character is None]
    if missing_names:
        raise Rejection("characters_missing", names=", ".join(missing_names))
    if match.turn_seed is None or match.commitment is None:
        raise Rejection("turn_not_open")
    config = rules.config(match.config)
    entrants = [
        Entrant(s.pid, s.side, s.character or {}, npc=s.npc, name=s.name) for s in match.seats
    ]
    key = mix(bytes.fromhex(match.turn_seed), beacon)
    log = TurnLog(CommittedDice(key, match.id, 0))
    state = rules.dump_state(rules.setup(config, entrants, log))
    record = TurnRecord(
        match_id=match.id,
        turn=0,
        orders=(),
        events=tuple(log.events),
        state_before={},
        state_after=state,
        seed=match.turn_seed,
        commitment=match.commitment,
        reason="setup",
        resolved_at=now,
        ruleset_version=rules.version,
        opened_at=match.turn_opened_at,
        locked_at=now,
        beacon_round=beacon_round,
        beacon=beacon,
        commitment_message=match.commitment_message,
        commitment_posted_at=match.commitment_posted_at,
    )
    opened = replace(match, phase=Phase.RUNNING, state=state, turn=1)
    return open_turn(opened, now, next_seed), record


def open_turn(match: Match, now: float, seed: bytes) -> Match:
    """Open ``match.turn`` for sealing with a fresh secret seed and its public commitment; in a
    running match the turn's deadline starts (unless paused: it starts on resume)."""
    from engine.clock import clock_config

    deadline = None
    paused_left = match.paused_left
    seconds = clock_config(match).turn_seconds
    if match.phase is Phase.RUNNING and seconds is not None:
        if match.paused:
            paused_left = float(seconds)
        else:
            deadline = now + seconds
    return replace(
        match,
        sealed=(),
        seal_seq=0,
        turn_seed=seed.hex(),
        commitment=seed_commitment(seed),
        turn_opened_at=now,
        deadline=deadline,
        paused_left=paused_left,
        reminded=False,
        extended_turn=0,
        locked_at=None,
        lock_reason=None,
        beacon_round=None,
        commitment_message=None,
        commitment_posted_at=None,
        lock_message=None,
        frozen_at=None,
    )


def commitment_posted(
    match: Match, turn: int, commitment: str, message_id: int, now: float
) -> Match:
    """Record that the group got ``turn``'s commitment as its own message (never edited). A
    stale report (another turn, another commitment after an undo) or a second one changes
    nothing: the first posting is the public record."""
    if match.turn != turn or match.commitment != commitment or match.commitment_posted_at:
        return match
    return replace(match, commitment_message=message_id, commitment_posted_at=now)


# --------------------------------------------------------------------------- sealing


def acting(match: Match) -> frozenset[str]:
    """Participants who must seal this turn (the ruleset decides; forfeited seats never act)."""
    if match.phase is not Phase.RUNNING or match.state is None:
        return frozenset()
    rules = match.rules
    gone = {s.pid for s in match.seats if s.status != "active"}
    return rules.acting(rules.load_state(match.state)) - gone


def seal(
    match: Match,
    user_id: int,
    pid: str,
    raw_order: Mapping[str, Any],
    now: float,
    salt: str,
) -> tuple[Match, SealedOrder]:
    """Seal (or replace) ``pid``'s order for the current turn. Raises :class:`Rejection` when
    the user may not act for ``pid``, the turn is not open, or the order is illegal."""
    _require(match, Phase.RUNNING)
    _require_unlocked(match)
    seat = match.seat(pid)
    if seat not in match.controlled_by(user_id):
        raise Rejection("not_your_seat")
    if pid not in acting(match):
        raise Rejection("not_acting_now")
    rules = match.rules
    state = rules.load_state(match.state or {})
    order = rules.check_order(state, pid, raw_order)
    dumped = rules.dump_order(order)
    seq = match.seal_seq + 1
    sealed = SealedOrder(
        pid=pid,
        turn=match.turn,
        order=dumped,
        by_user=user_id,
        sealed_at=now,
        seq=seq,
        salt=salt,
        fingerprint=order_fingerprint(match.id, match.turn, pid, dumped, salt),
    )
    names = match.sealed if pid in match.sealed else (*match.sealed, pid)
    return replace(match, sealed=names, seal_seq=seq), sealed


def withdraw(match: Match, user_id: int, pid: str) -> Match:
    """Take back a sealed order before the turn resolves."""
    _require(match, Phase.RUNNING)
    _require_unlocked(match)
    seat = match.seat(pid)
    if seat not in match.controlled_by(user_id):
        raise Rejection("not_your_seat")
    if pid not in match.sealed:
        raise Rejection("nothing_sealed")
    return replace(match, sealed=tuple(p for p in match.sealed if p != pid))


def _require_unlocked(match: Match) -> None:
    if match.locked_at is not None:
        raise Rejection("turn_locked", turn=match.turn)


def lock(match: Match, now: float, reason: str, beacon_round: int | None) -> Match:
    """Lock the current turn: from ``now`` on no order is sealed, changed or withdrawn, and
    the turn resolves with ``beacon_round`` (the first beacon round published after ``now``,
    so nobody who can still move an order can move the round). A locked turn stays locked."""
    _require(match, Phase.RUNNING)
    if match.locked_at is not None:
        return match
    return replace(
        match, locked_at=now, lock_reason=reason, beacon_round=beacon_round, frozen_at=now
    )


def lock_posted(
    match: Match, turn: int, message_id: int, date: float, beacon_round: int | None
) -> Match:
    """The locked turn's lock message is in the group: its Telegram ``date`` becomes the lock
    time and fixes ``beacon_round`` (the first round published strictly after it; see
    ``docs/fairness.md``, "The lock message"). A stale report (another turn, not locked) or a
    second one changes nothing: the first lock message is the public record."""
    if match.turn != turn or match.locked_at is None or match.lock_message is not None:
        return match
    return replace(match, locked_at=date, lock_message=message_id, beacon_round=beacon_round)


def missing(match: Match) -> tuple[str, ...]:
    """Acting participants who have not sealed, in seat order."""
    need = acting(match)
    return tuple(s.pid for s in match.seats if s.pid in need and s.pid not in match.sealed)


def ready(match: Match) -> bool:
    """Every participant who must act has sealed (a paused match waits for its resume; a
    match whose GM reviews orders waits for the GM, see :func:`gm_reviews`)."""
    return (
        match.phase is Phase.RUNNING
        and not match.paused
        and not missing(match)
        and not gm_reviews(match)
    )


def gm_reviews(match: Match) -> bool:
    """Whether this match's GM reads sealed orders before the reveal (and approves the turn).
    A GM who holds a seat never does (C22: he would read his opponents' plans), so nobody
    reviews and the turn resolves when every order is in."""
    rules = match.rules
    if not rules.gm_reviews_orders(rules.config(match.config)):
        return False
    return match.seat_of_user(match.gm_user_id) is None


# --------------------------------------------------------------------------- resolution


def resolve(
    match: Match,
    orders: Mapping[str, SealedOrder],
    now: float,
    next_seed: bytes,
    *,
    reason: str = "all_sealed",
    beacon: BeaconRound | None = None,
) -> tuple[Match, TurnRecord]:
    """Resolve the current turn with the sealed ``orders``; missing orders become the
    ruleset's default order. Dice come from the turn's committed seed mixed with ``beacon``
    (the round the lock fixed; None: server seed only). A locked turn resolves for the reason
    it locked. Opens the next turn (committing to ``next_seed``) or finishes the match."""
    _require(match, Phase.RUNNING)
    if match.turn_seed is None or match.commitment is None or match.state is None:
        raise Rejection("turn_not_open")
    rules = match.rules
    state = rules.load_state(match.state)
    need = acting(match)
    current = {pid: o for pid, o in orders.items() if o.turn == match.turn and pid in need}
    pids = [s.pid for s in match.seats if s.pid in need]  # seat order, as the verifier reads
    given = {
        pid: Sealed(rules.parse_order(state, pid, so.order), seq=so.seq)
        for pid, so in current.items()
    }
    full = rules.with_defaults(state, given, pids)
    sealed = {pid: full[pid] for pid in pids}
    revealed = [
        current[pid]
        if pid in current
        else SealedOrder(
            pid, match.turn, rules.dump_order(o.order), None, now, o.seq, "", "", default=True
        )
        for pid, o in sealed.items()
    ]
    reason = match.lock_reason or reason
    seed = mix(bytes.fromhex(match.turn_seed), beacon)
    log = TurnLog(CommittedDice(seed, match.id, match.turn))
    new_state = rules.resolve(state, sealed, log)
    dumped_state = rules.dump_state(new_state)
    record = TurnRecord(
        match_id=match.id,
        turn=match.turn,
        orders=tuple(revealed),
        events=tuple(log.events),
        state_before=match.state,
        state_after=dumped_state,
        seed=match.turn_seed,
        commitment=match.commitment,
        reason=reason,
        resolved_at=now,
        ruleset_version=rules.version,
        opened_at=match.turn_opened_at,
        locked_at=match.locked_at if match.locked_at is not None else now,
        beacon_round=match.beacon_round,
        beacon=beacon,
        commitment_message=match.commitment_message,
        commitment_posted_at=match.commitment_posted_at,
        lock_message=match.lock_message,
        frozen_at=match.frozen_at,
    )
    result = rules.outcome(new_state)
    missed = {pid: (match.missed.get(pid, 0) + 1 if o.default else 0) for pid, o in sealed.items()}
    after = replace(
        match, state=dumped_state, turn=match.turn + 1, missed={**match.missed, **missed}
    )
    if result.finished:
        return finish(after, outcome_json(result)), record
    return open_turn(after, now, next_seed), record


def intervene(
    match: Match, by_user: int, action: str, now: float, reason: str = "", **data: Any
) -> Match:
    """Append a GM intervention to the match's public audit log (undo, forced resolution, state
    edit...): who, when, what and why. The dossier publishes it."""
    entry = {
        "at": now,
        "by": by_user,
        "action": action,
        "turn": match.turn,
        "reason": reason,
        **data,
    }
    return replace(match, audit=(*match.audit, entry))


def outcome_json(outcome: Outcome) -> dict[str, Any]:
    return {"status": outcome.status, "winners": list(outcome.winners), "reason": outcome.reason}


def end(match: Match, user_id: int, outcome: Outcome) -> Match:
    """The GM ends the match with a result."""
    require_gm(match, user_id)
    if match.phase is Phase.FINISHED:
        raise Rejection("already_finished")
    return finish(match, {**outcome_json(outcome), "by_gm": True})


def finish(match: Match, outcome: Mapping[str, Any]) -> Match:
    """The match is over: no open turn, no seed, no clock, the result recorded."""
    return replace(
        match,
        phase=Phase.FINISHED,
        sealed=(),
        turn_seed=None,
        commitment=None,
        deadline=None,
        paused_at=None,
        paused_left=None,
        outcome=outcome,
        locked_at=None,
        lock_reason=None,
        beacon_round=None,
    )


def public_view(match: Match) -> dict[str, Any]:
    """Everything about a match that anyone in the group may see (no order, no seed)."""
    state_view: dict[str, Any] | None = None
    if match.state is not None:
        rules = match.rules
        state_view = rules.view(rules.load_state(match.state), None)
    return {
        "id": match.id,
        "ruleset": match.ruleset,
        "phase": match.phase.value,
        "turn": match.turn,
        "seats": [
            {"pid": s.pid, "name": s.name, "side": s.side, "npc": s.npc} for s in match.seats
        ],
        "sealed": list(match.sealed),
        "commitment": match.commitment,
        "deadline": match.deadline,
        "outcome": match.outcome,
        "state": state_view,
    }


def own_orders(orders: Sequence[SealedOrder], match: Match, user_id: int) -> list[SealedOrder]:
    """The sealed orders ``user_id`` may see before the reveal: only those they control."""
    mine = {s.pid for s in match.controlled_by(user_id)}
    return [o for o in orders if o.pid in mine]


def merge_remembered(
    kept: Mapping[str, Any] | None, turn: int, items: Sequence[Sequence[int]]
) -> dict[str, Any] | None:
    """What ``MatchRepository.remember_messages`` makes of a key's remembered ids ``kept``
    when ``items`` (``[chat, message]`` pairs) of ``turn`` are added: an earlier turn's are
    replaced, the same turn's kept beside them (each pair once), and a later turn's stay as
    they are (None: nothing to write, ``turn`` is stale)."""
    stored = -1 if kept is None else int(kept.get("turn", -1))
    if stored > turn:
        return None
    old = [[int(c), int(m)] for c, m in kept.get("items", ())] if kept and stored == turn else []
    pairs = [[int(c), int(m)] for c, m in items]
    return {"turn": turn, "items": old + [p for p in pairs if p not in old]}


def remembered_items(match: Match, key: str, turn: int) -> list[list[int]]:
    """The ``[chat, message]`` pairs remembered under ``key`` for ``turn``: those the store
    keeps beside the document (:attr:`Match.remembered`) and those an older version kept in the
    document (``ui[key]``, of the same shape), each once."""
    out: list[list[int]] = []
    for kept in (match.ui.get(key), match.remembered.get(key)):
        if isinstance(kept, Mapping) and kept.get("turn") == turn:
            out += [p for p in ([int(c), int(m)] for c, m in kept.get("items", ())) if p not in out]
    return out
