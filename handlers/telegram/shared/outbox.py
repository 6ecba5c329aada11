"""Delivery of the outbox: messages a save owes (:class:`engine.ports.Owed`), sent once.

A use case that changes what the chats must be told (a turn resolved, a reminder is due, a
pause ran out) writes an owed item in the same conditional write as the change. Whoever
handled it then calls :func:`deliver` at once; what is left (Telegram down or rate limited,
the function killed between the save and the send) is delivered by the sweeper
(:func:`deliver_due`; locally by the polling process's timer), with bounded retries and
backoff that honours Telegram's ``retry_after``.

Each kind of item maps to a send function (:func:`add_senders`, per application: the wiring
adds the Telegram layer's, ``handlers.telegram.shared.owed``) that renders from the latest stored
state when it runs.
Every Bot API call it makes goes through the item's :class:`Journal` (``shared.send._api`` asks
:func:`current`): a sent message's id is recorded on the item before the next send (or with the
write that ends the delivery), under what
the message IS - its :func:`labelled` identity (e.g. ``status:2``, ``builder:2``), its chat and
its occurrence among the sends of that identity to that chat - never under its position in the
delivery. A delivery that resumes after a failure replays the recorded sends instead of
repeating them (edits are simply made again: the same edit twice changes nothing; only the
lock message turned into the reveal picture, ``editMessageMedia``, is recorded like a send,
on the next write the delivery makes anyway: once the commitment folded into it or into the
story after it is recorded it is never made again), and a send
skipped on the resumed run (the commitment the group already has) shifts nothing: the status
stays the status and the next builder is still sent (issue 28). A Bot API call made around
``shared.send._api`` is not journaled. A delivery holds a
lease on the item (:data:`engine.ports.OWED_LEASE_SECONDS`), so a webhook and the sweeper never
send it both; a match's items go out in order, and a failed one holds back the later ones of its
chat (a player's failed receipt does not hold back the group's reveal)."""

from __future__ import annotations

import contextvars
import logging
import warnings
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any

from telegram.error import BadRequest, Forbidden, RetryAfter

from engine.match import Match, TurnRecord
from engine.ports import OWED_LEASE_SECONDS, MatchRepository, Owed
from handlers import observe
from handlers.metrics import metric
from handlers.telegram.shared.context import SekundantContext
from handlers.telegram.shared.journal import Journal, Superseded, current, labelled, with_save

# The journal's API is the outbox's too (``outbox.labelled``, ``outbox.current`` ...).
__all__ = [
    "BACKOFF_MAX_SECONDS",
    "BACKOFF_SECONDS",
    "KEEPS_KNOWN",
    "MAX_ATTEMPTS",
    "PASSES",
    "SENDERS",
    "Journal",
    "Known",
    "Sender",
    "Superseded",
    "add_senders",
    "current",
    "deliver",
    "deliver_due",
    "known",
    "labelled",
    "owes_more",
    "retry_after",
    "with_save",
]

log = logging.getLogger("sekundant.outbox")

MAX_ATTEMPTS = 8  # then the item is given up (logged at ERROR, metric OwedGivenUp)
BACKOFF_SECONDS = 30.0  # after the first failed delivery; doubles with each attempt
BACKOFF_MAX_SECONDS = 1800.0

Sender = Callable[[Any, Owed], Awaitable[None]]
SENDERS = "sekundant.senders"  # the application's send functions by kind (bot_data)


def add_senders(app: Any, senders: Mapping[str, Sender]) -> None:
    """Let ``sender(context, item)`` deliver the owed items of each kind, in this application."""
    app.bot_data.setdefault(SENDERS, {}).update(senders)


def _sender(context: Any, kind: str) -> Sender | None:
    found: Mapping[str, Sender] = context.application.bot_data.get(SENDERS, {})
    return found.get(kind)


@dataclass(frozen=True, slots=True)
class Known:
    """What the invocation calling :func:`deliver` knows of the match without reading it:
    ``match`` as its own save just returned it (or as it just read it), with the turn
    ``record`` that save stored and the sealed orders' public ``fingerprints``, when it has
    them. A send function starts from it instead of a read (:func:`known`) while nothing of
    this invocation has written the match since that save: the first item's, and the next
    ones' after items that do not write it (:data:`KEEPS_KNOWN`; an item's claim and journal
    are the outbox's own writes). A read would return the same - or a later change of another
    invocation's, which could just as well land a moment after the read. What renders "the
    latest" after a send (``turns._show_latest``) still reads."""

    match: Match
    record: TurnRecord | None = None
    fingerprints: Mapping[str, str] | None = None


_KNOWN: contextvars.ContextVar[Known | None] = contextvars.ContextVar(
    "sekundant_known", default=None
)


def known(match_id: str) -> Known | None:
    """What :func:`deliver`'s caller knows of ``match_id`` (:class:`Known`), for a send
    function to start from, before it writes anything."""
    got = _KNOWN.get()
    return got if got is not None and got.match.id == match_id else None


PASSES = 3
_MORE: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar(
    "sekundant_owes_more", default=None
)


def owes_more(kind: str) -> None:
    """The delivery running owed another item of its match (the lock message's resolution
    owes the reveal, when its round was out): :func:`deliver` makes another pass for it.
    Without this, no pass reads the outbox again (the resolve queue resolves most turns)."""
    more = _MORE.get()
    if more is not None:
        more.append(kind)


KEEPS_KNOWN = frozenset({"receipt"})  # kinds whose delivery never writes the match


async def deliver(context: Any, match_id: str, known: Known | None = None) -> int:
    """Deliver the match's owed items that are due, in order; returns how many were
    delivered. Never raises: what fails stays owed (with its backoff) for the sweeper. An
    item a delivery owed (the lock message's resolution owes the reveal: :func:`owes_more`)
    goes out in the same call. ``known``: the match as the caller just saved it (:class:`Known`)."""
    delivered = 0
    for _ in range(PASSES):
        more: list[str] = []
        token = _MORE.set(more)
        try:
            kinds = await _deliver_pass(context, match_id, known)
        finally:
            _MORE.reset(token)
        known = None
        delivered += len(kinds)
        if not more:
            break
    return delivered


async def _deliver_pass(context: Any, match_id: str, known: Known | None = None) -> list[str]:
    """One pass over the match's owed items; the kinds delivered."""
    deps = context.svc.deps
    repo: MatchRepository = deps.repo
    observe.note(match_id=match_id)  # the invocation's log field (handlers.observe)
    delivered: list[str] = []
    waiting: set[int] = set()  # chats whose next item is not delivered now
    try:
        for item in repo.owed(match_id):
            if item.chat_id in waiting:
                continue  # in order: a chat's later items wait for its earlier one
            now = deps.clock()
            claimed = None
            if item.next_at <= now:  # else backing off
                claimed = repo.claim_owed(match_id, item.key, now, OWED_LEASE_SECONDS)
            # Not claimed: another deliverer holds it (and goes on with the rest).
            if claimed is None:
                waiting.add(item.chat_id)
                continue
            token = _KNOWN.set(known)
            try:
                done = await _deliver_one(context, repo, claimed, deps.clock)
            finally:
                _KNOWN.reset(token)
            if item.kind not in KEEPS_KNOWN:  # it may have written the match
                known = None
            if not done:
                waiting.add(item.chat_id)
                continue
            delivered.append(item.kind)
    except Exception as exc:  # the store failed: the leases run out, the sweeper goes on
        log.error("delivering the outbox of %s failed: %s: %s", match_id, type(exc).__name__, exc)
    return delivered


async def _deliver_one(
    context: Any, repo: MatchRepository, item: Owed, clock: Callable[[], float]
) -> bool:
    sender = _sender(context, item.kind)
    journal = Journal(repo, item)
    token = journal.start()
    try:
        if sender is None:
            raise LookupError(f"no sender for owed items of kind {item.kind!r}")
        await sender(context, item)
    except Superseded:
        return False
    except Exception as exc:
        if journal.ended:  # what followed the item's end (repeatable): nothing to resume
            log.warning("after owed %s of match %s: %s", item.key, item.match_id, exc)
            return True
        _failed(journal, exc, clock())
        return False
    finally:
        journal.stop(token)
    if journal.ended:
        return True
    try:
        journal.update(replace(journal.item, done=True, lease=0.0, error=""))
    except Exception as exc:  # the store failed; the last send rode on that write
        if not journal.pending:
            raise  # nothing to lose: the lease runs out, a resumed delivery replays it all
        _failed(journal, exc, clock())  # recorded: a resumed one sends nothing
        return False
    return True


def _failed(journal: Journal, exc: Exception, now: float) -> None:
    """The delivery failed: the item backs off (or is given up), with what the journal
    has not written yet."""
    item = journal.item
    attempts = item.attempts + 1
    error = f"{type(exc).__name__}: {exc}"[:300]
    if isinstance(exc, BadRequest | Forbidden | LookupError) or attempts >= MAX_ATTEMPTS:
        log.error(
            "gave up the owed %s of match %s after %d attempts: %s",
            item.key,
            item.match_id,
            attempts,
            error,
        )
        metric("OwedGivenUp", 1)
        journal.update(replace(item, attempts=attempts, error=error, done=True, lease=0.0))
        return
    delay = max(retry_after(exc), min(BACKOFF_SECONDS * 2 ** (attempts - 1), BACKOFF_MAX_SECONDS))
    log.warning(
        "owed %s of match %s not delivered (attempt %d, again in %.0f s): %s",
        item.key,
        item.match_id,
        attempts,
        delay,
        error,
    )
    journal.update(replace(item, attempts=attempts, error=error, next_at=now + delay, lease=0.0))


def retry_after(exc: BaseException) -> float:
    """Telegram's ``retry_after`` of a 429 (seconds), else 0."""
    if not isinstance(exc, RetryAfter):
        return 0.0
    with warnings.catch_warnings():  # PTB 22.2+: int now, timedelta later; both handled
        warnings.simplefilter("ignore")
        delay = exc.retry_after
    return delay.total_seconds() if isinstance(delay, timedelta) else float(delay)


async def deliver_due(
    app: Any, *, limit: int = 100, time_left: Callable[[], bool] | None = None
) -> dict[str, float]:
    """The sweeper's part: deliver every match's owed items that are due (backoff passed).
    Returns counts and ``oldest_owed_age`` (seconds; the alarm's metric)."""
    context: Any = SekundantContext(app)
    deps = context.svc.deps
    repo: MatchRepository = deps.repo
    delivered = 0
    for match_id in repo.owed_due(deps.clock(), limit):
        if time_left is not None and not time_left():
            break
        delivered += await deliver(context, match_id)
    now = deps.clock()
    oldest = 0.0
    for match_id in repo.owed_due(now + 10 * BACKOFF_MAX_SECONDS, limit):  # every pending one
        for item in repo.owed(match_id):
            oldest = max(oldest, now - item.created_at)
    metric("OldestOwedAge", oldest, unit="Seconds")
    return {"delivered": delivered, "oldest_owed_age": oldest}
