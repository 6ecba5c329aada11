"""The repository port: what the use cases need from storage, named for those needs.

Adapters (``infra/``): in-memory (tests), SQLite (``make run``), DynamoDB (Lambda). All three
pass one contract suite (``tests/storage/test_contract.py``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
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


class MatchRepository(Protocol):
    def create(self, match: Match) -> Match:
        """Store a new match (version 1). Raises ``ConflictError`` if the id exists."""
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
    ) -> Match:
        """Atomically: write ``match`` if the stored version is still ``expected_version``;
        seal (or replace) one order, or withdraw one pid's order; append a resolved turn's
        ``record`` (which also removes that turn's sealed-order items); ``discard_orders``
        drops the current turn's orders (undo, GM end); ``drop_record`` deletes the record of
        that turn (undo). Returns the match with its new version. Raises ``ConflictError``
        when the version moved on (nothing written)."""
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

    def history(self, match_id: str) -> list[TurnRecord]:
        """Resolved turns of a match, in order."""
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

    def release_update(self, update_id: int, token: str) -> None:
        """Drop the lease claimed with ``token`` after a transient failure, so Telegram's
        redelivery is processed; nothing when the lease is no longer that one."""
        ...

    def flag(self, match_id: str, detail: str) -> None:
        """Mark a match for the GM's attention (a record could not be read)."""
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
        """Replace the user's preferences."""
        ...
