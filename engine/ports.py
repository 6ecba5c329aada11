"""The repository port: what the use cases need from storage, named for those needs.

Adapters (``infra/``): in-memory (tests), SQLite (``make run``), DynamoDB (Lambda). All three
pass one contract suite (``tests/storage/test_contract.py``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from engine.match import Match, SealedOrder, TurnRecord


@dataclass(frozen=True, slots=True)
class Loaded:
    """A match with the current turn's sealed orders (by pid). Only use cases see ``orders``;
    they reach a user only as that user's own orders, or revealed in a :class:`TurnRecord`."""

    match: Match
    orders: dict[str, SealedOrder] = field(default_factory=dict)


# How long a processed update id is remembered, so a redelivery is not applied twice
# (Telegram keeps an undelivered update about 24 h).
UPDATE_TTL_SECONDS = 48 * 3600


@dataclass(frozen=True, slots=True)
class UpdateClaim:
    """What :meth:`MatchRepository.claim_update` found: ``"claimed"`` (this caller holds the
    lease; ``token`` names it), ``"processing"`` (another attempt's lease has not run out) or
    ``"done"`` (processed within the dedup window)."""

    status: Literal["claimed", "processing", "done"]
    token: str = ""
    attempt: int = 1  # with "claimed": how many times this update was claimed, this one too
    error: str = ""  # with "claimed": the error a previous attempt released it with


# How long one deliverer holds an owed message (a webhook and the sweeper never both send it).
OWED_LEASE_SECONDS = 60.0


@dataclass(frozen=True, slots=True)
class Owed:
    """A message owed to a match's chats after a save: an item of the match's *outbox*,
    written in the same conditional write as the state change that owes it.

    Data, not text: ``kind`` names what is owed (the edge maps it to a send function and
    renders from the latest stored state when it sends), ``turn`` and ``data`` (e.g. the
    status message to close) say for what. ``key`` is unique within the match: an item saved
    with the key of a pending one replaces it. ``seq`` orders a match's items. ``sent`` is the
    delivery journal: each Bot API message already sent for it (what it is -> ``[chat id,
    message id, Telegram's date]``; ``handlers.telegram.shared.outbox``), so a delivery that
    resumes after a failure sends nothing twice. ``attempts``,
    ``next_at`` (backoff, Telegram's ``retry_after``) and ``error`` describe failed
    deliveries; ``token``/``lease`` the deliverer holding it; ``done`` when delivered (or given
    up, with ``error``)."""

    match_id: str
    key: str
    kind: str
    chat_id: int
    turn: int
    seq: int
    created_at: float
    data: Mapping[str, Any] = field(default_factory=dict)
    sent: Mapping[str, Sequence[int]] = field(default_factory=dict)
    attempts: int = 0
    next_at: float = 0.0
    error: str = ""
    token: str = ""
    lease: float = 0.0
    done: bool = False

    def to_doc(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any]) -> Owed:
        known = {k: doc[k] for k in cls.__dataclass_fields__ if k in doc}
        return cls(**known)


@dataclass(frozen=True, slots=True)
class Remember:
    """Message ids to remember (:meth:`MatchRepository.remember_messages`: ``items``, the
    ``[chat, message]`` pairs of ``turn`` under ``key``) with an outbox write that is made
    anyway (:meth:`MatchRepository.update_owed`), instead of a write of their own."""

    key: str
    turn: int
    items: tuple[tuple[int, int], ...]


class MatchRepository(Protocol):
    def create(self, match: Match, *, lock_chat: bool = False) -> Match:
        """Store a new match (version 1). Raises ``ConflictError`` if the id exists. With
        ``lock_chat``, in the same write, take the chat's creation lock (one item per chat):
        while an unfinished match holds it, raise ``ChatBusyError`` naming that match (a lock
        whose match is finished or gone is taken over)."""
        ...

    def load(self, match_id: str) -> Loaded:
        """The match and its current turn's sealed orders. Raises ``NotFoundError`` or
        ``CorruptRecordError``."""
        ...

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
        """Atomically: write ``match`` if the stored version is still ``expected_version``;
        seal (or replace) one order, or withdraw one pid's order; append a resolved turn's
        ``record`` (which also removes that turn's sealed-order items); ``discard_orders``
        drops the current turn's orders (undo, GM end); ``drop_record`` deletes the record of
        that turn (undo); ``owe`` puts messages in the match's outbox (replacing items of the
        same key); ``entry``: an owed item of this match the caller is delivering, written as
        :meth:`update_owed` writes it (its journal; ``done`` ends it), in the same write and
        only if the stored item still holds ``entry.token`` (a delivery's journal rides on a
        save it makes anyway: docs/deploy.md, "The outbox's writes"). Returns the match with
        its new version. Raises ``ConflictError`` when the version moved on, else
        ``LeaseLostError`` when the entry is no longer held with its token (nothing written
        either way)."""
        ...

    def active_in_chat(self, chat_id: int) -> list[Match]:
        """Matches of a group chat that are not finished, oldest first."""
        ...

    def active_for_user(self, user_id: int) -> list[Match]:
        """Matches (lobby or running) in which the user holds a seat or is the GM."""
        ...

    def due(self, now: float, limit: int = 50) -> list[str]:
        """Ids of running matches whose ``wake_at`` (next reminder, deadline or end of a pause;
        stored in the match document) is at or before ``now``, earliest first."""
        ...

    def history(self, match_id: str, *, since: int = 0) -> list[TurnRecord]:
        """Resolved turns of a match, in order; with ``since``, only those of turn ``since``
        and later (what a turn's delivery needs: its own record and whether a later one
        exists, read without the whole history, which grows with every turn)."""
        ...

    def claim_update(self, update_id: int, now: float, lease: float) -> UpdateClaim:
        """Claim a Telegram update for processing: a lease of ``lease`` seconds from ``now``,
        with a fresh token. Succeeds when the id is unknown, its record expired
        (:data:`UPDATE_TTL_SECONDS`), or it holds a lease that ran out (that attempt died);
        otherwise says whether another attempt is still within its lease or the update is
        done. A record written before leases existed counts as done."""
        ...

    def confirm_update(self, update_id: int, token: str, now: float) -> bool:
        """Mark the update done for :data:`UPDATE_TTL_SECONDS` from ``now``, if the lease is
        still the one claimed with ``token`` (expired or not). False, writing nothing, when
        it is not (released, or claimed again after it ran out)."""
        ...

    def release_update(self, update_id: int, token: str, error: str = "") -> None:
        """End the lease claimed with ``token`` after a failure (noting ``error``), so
        Telegram's redelivery is claimed again (its ``attempt`` counting on); nothing when the
        lease is no longer that one."""
        ...

    def flag(self, match_id: str, detail: str) -> None:
        """Mark a match for the GM's attention (a record could not be read)."""
        ...

    def remember_messages(
        self, match_id: str, key: str, turn: int, items: Sequence[Sequence[int]]
    ) -> None:
        """Remember message ids (``[chat, message]`` pairs) of ``turn`` under ``key``
        beside the match's document (``Match.remembered``, read by ``load`` and the
        listings): ``engine.match.merge_remembered`` - an earlier turn's are replaced, the
        same turn's kept (two at once both stay), a later turn's left as they are. One atomic
        write that neither needs nor changes the match's version: it never conflicts with a
        save, and a save never overwrites it. Raises ``NotFoundError``."""
        ...

    # --- the outbox (messages owed after a save; see :class:`Owed`) ---

    def owed(self, match_id: str) -> list[Owed]:
        """The match's pending (not done) owed items, in ``seq`` order."""
        ...

    def claim_owed(self, match_id: str, key: str, now: float, lease: float) -> Owed | None:
        """Take the pending item ``key`` for delivery: a lease of ``lease`` seconds with a
        fresh token. None when it is done, gone, not due (``next_at``) or leased by another
        deliverer whose lease has not run out."""
        ...

    def update_owed(self, item: Owed, *, remember: Remember | None = None) -> bool:
        """Write ``item`` (journal, attempts, backoff, ``done``) if the stored item still holds
        ``item.token``; False, writing nothing, when it does not (replaced by a newer item of
        the same key, or taken over after the lease ran out). ``remember``: message ids
        remembered in the same write, as :meth:`remember_messages` would (not when False)."""
        ...

    def owed_due(self, now: float, limit: int = 100) -> list[str]:
        """Ids of matches with a pending owed item whose ``next_at`` is at or before ``now``,
        earliest first (each once)."""
        ...

    def note_failure(self, match_id: str, detail: str, park_after: int) -> bool:
        """Count one more failed sweep of the match in a row (a successful save resets the
        count). At ``park_after`` the match is *parked*: ``attention`` set to ``detail`` and
        out of :meth:`due` until its next save. True when this call parked it."""
        ...


def index_users(match: Match) -> Sequence[int]:
    """User ids that should find this match through ``active_for_user``."""
    users = {match.gm_user_id}
    users.update(s.user_id for s in match.seats if s.user_id is not None)
    return sorted(users)


@runtime_checkable
class PrefsRepository(Protocol):
    """Optional per-user preferences (the bot's ``/lang``). An adapter may implement it beside
    :class:`MatchRepository`; the bot falls back to process memory when it does not."""

    def load_prefs(self, user_id: int) -> dict[str, Any]:
        """The user's preferences (empty when none were saved)."""
        ...

    def save_prefs(self, user_id: int, prefs: Mapping[str, Any]) -> None:
        """Replace the user's preferences (all fields: a concurrent :meth:`set_pref` of
        another field can be lost; the bot uses :meth:`set_pref`)."""
        ...

    def set_pref(self, user_id: int, field: str, value: Any) -> None:
        """Set one field of the user's preferences (None removes it) in one atomic write
        that leaves the other fields as they are: features sharing the document (``/lang``,
        the pending text step) never lose each other's writes (issue 28)."""
        ...


@runtime_checkable
class CampaignRepository(Protocol):
    """Optional storage of what outlives a match (``engine.campaign``; docs/storage.md
    "Campaigns"): players' rosters, groups' libraries and match results. Documents are plain
    JSON objects made and read by ``engine.campaign``; the adapters only key and keep them."""

    def roster(self, user_id: int, ruleset: str) -> list[dict[str, Any]]:
        """The user's saved characters of ``ruleset``, by ``key`` (their names' fold)."""
        ...

    def put_characters(self, user_id: int, entries: Sequence[Mapping[str, Any]]) -> None:
        """Save (or replace, by ``ruleset`` and ``key``) entries, all in one write."""
        ...

    def delete_character(self, user_id: int, ruleset: str, key: str) -> bool:
        """Remove one entry; False when there was none."""
        ...

    def library(self, chat_id: int, ruleset: str) -> dict[str, Any] | None:
        """The group's library document of ``ruleset`` (None: none uploaded)."""
        ...

    def put_library(self, chat_id: int, ruleset: str, doc: Mapping[str, Any]) -> None:
        """Replace the group's library of ``ruleset`` with ``doc`` (one write)."""
        ...

    def delete_library(self, chat_id: int, ruleset: str) -> bool:
        """Remove the group's library of ``ruleset``; False when there was none."""
        ...

    def results(self, chat_id: int) -> list[dict[str, Any]]:
        """Every stored match result of the group (any order)."""
        ...

    def user_results(self, user_id: int) -> list[dict[str, Any]]:
        """Every stored result the user played in (any group, any order)."""
        ...

    def put_result(self, doc: Mapping[str, Any]) -> None:
        """Store a match's result (``doc["chat_id"]``, ``doc["match_id"]``; its members
        ``doc["teams"][*][*]["user_id"]`` find it with :meth:`user_results`), replacing the
        match's earlier result, in one write."""
        ...

    def delete_result(self, chat_id: int, match_id: str) -> bool:
        """Remove a match's result (an undone final turn); False when there was none."""
        ...


def result_users(doc: Mapping[str, Any]) -> list[int]:
    """The user ids of a result's members (NPCs have none)."""
    users = {m["user_id"] for t in doc.get("teams", ()) for m in t if m.get("user_id") is not None}
    return sorted(int(u) for u in users)


class Later(Protocol):
    """Work handed to later instead of waited for: the serverless way of waiting
    (``docs/deploy.md``, "The beacon wait"). Production: a delayed SQS message to the
    resolver function (:mod:`infra.later`); tests: an in-memory list. Locally (long polling)
    there is none: the wait runs off the event loop instead."""

    def resolve_at(self, match_id: str, turn: int, due: float, attempt: int) -> None:
        """Have the locked ``turn`` of ``match_id`` resolved (``usecases.resolve_locked``)
        at ``due`` (epoch seconds) or soon after, at least once: a duplicate, or one that
        finds the turn resolved, does nothing. ``attempt`` counts the tries so far (bounded by
        the use case). Raises when it cannot be handed over (the sweeper then resolves it)."""
        ...
