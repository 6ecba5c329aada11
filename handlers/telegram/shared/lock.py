"""A turn's lock, in one place: lock message -> wait for the round -> resolve -> reveal.

When a turn locks (every order in, the deadline, the GM's force) with a public beacon, the
use case saves the lock and owes a ``lock`` item (``engine.usecases``, ``Deps.lock_by_message``).
Its delivery (:func:`lock_and_resolve`) posts a NEW group message, "🔒 Turn N locked - rolling
the public dice...": Telegram's ``date`` of that message, as the Bot API returns it, is the
turn's lock time and fixes its beacon round (the first published strictly after it), so the
operator can neither move the lock back nor choose among rounds it has seen
(``docs/fairness.md``, "The lock message"). Then the round is awaited (the beacon port waits up
to one period) and the turn resolved; the resolution owes the ``resolved`` item, whose
delivery edits this same message into the reveal (``shared.reveal_post.send_reveal``). A round not
out yet is the sweeper's (``usecases.tick``). On Lambda nothing waits: ``resolve_locked`` hands
the turn to the resolve queue (``Deps.later``) and the resolver function resolves it when the
round is due (``docs/deploy.md``, "The beacon wait").

The lock message's date is recorded with the lock item's end, in one write
(``outbox.with_save``): sent and not recorded, it is the outbox's one-send window (a resumed
delivery sends it again); recorded, the item is done, and what follows - the status edit,
the resolution - is repeatable: a failure or a stop there leaves the locked turn to the
sweeper (``usecases.tick``) or the resolve queue. One lock message per turn is recorded
(``usecases.lock_posted`` keeps the first).
"""

from __future__ import annotations

import logging

from telegram.error import TelegramError

from engine import usecases
from engine.match import Match, Phase
from handlers.telegram.i18n import Raw, Tr
from handlers.telegram.screens import render
from handlers.telegram.shared import outbox, turns
from handlers.telegram.shared.context import Ctx
from handlers.telegram.shared.offloop import off_loop
from handlers.telegram.shared.send import send
from handlers.telegram.ui import Screen

log = logging.getLogger("sekundant.bot")

LOCK_RETRIES = 2  # the lock message is tried again at once after a network error or a 5xx


def lock_screen(match: Match) -> Screen:
    tr = Tr(match.lang)
    title = Raw(render.match_title(tr, match))
    return Screen(tr("lock.posted_title", turn=match.turn, title=title))


async def lock_and_resolve(context: Ctx, match_id: str, turn: int) -> Match | None:
    """Post ``turn``'s lock message (unless it is posted), record its date as the lock, wait
    for the round and resolve. Returns the match as saved after the lock, or None when the
    turn is no longer locked and waiting (resolved, undone meanwhile)."""
    deps = context.svc.deps
    got = outbox.known(match_id)  # the locking invocation's own save: nothing to read
    match = got.match if got is not None else deps.repo.load(match_id).match
    if match.phase is not Phase.RUNNING or match.turn != turn or match.locked_at is None:
        return None
    latest = match
    if match.lock_message is None:
        with outbox.labelled(f"lock:{turn}"):
            msg = await send(context, match.chat_id, lock_screen(match), retries=LOCK_RETRIES)
        date = msg.date.timestamp()
        # From ``match`` as the locking save left it (remembered ids no longer change the
        # version, so another player's receipt remembered meanwhile does not conflict), the
        # lock message's journal entry and the item's end in the same write: what follows
        # is repeatable (the status edit; the resolution, also the sweeper's: ``tick``).
        mid = msg.message_id
        match = outbox.with_save(
            lambda entry: usecases.lock_posted(
                deps, match_id, turn, mid, date, known=match, entry=entry
            ),
            end=True,
        )
        fps = None if got is None else got.fingerprints  # the lock froze the sealed orders
        try:
            latest = await turns.refresh_status(context, match, fps)  # "waits for round N"
        except TelegramError as exc:  # the resolution closes the status anyway
            log.warning("status of %s after the lock: %s", match_id, exc)
            latest = match
    # Waits for the round (off the event loop: long polling answers other chats meanwhile);
    # owes the reveal, else the sweeper resolves it. On Lambda (``Deps.later``) it does not
    # wait: the turn goes to the resolve queue unless its round is out already.
    resolved = await off_loop(usecases.resolve_locked, deps, match_id, turn, known=latest)
    if resolved is not None:  # its reveal is owed: delivered in the same call
        outbox.owes_more("resolved")
    return match
