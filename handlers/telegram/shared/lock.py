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

The outbox journals the lock message with its date, so a resumed delivery finds it again and
records the same lock (``usecases.lock_posted`` is idempotent): one lock message per turn.
"""

from __future__ import annotations

from engine import usecases
from engine.match import Match, Phase
from handlers.telegram.i18n import Raw, Tr
from handlers.telegram.screens import render
from handlers.telegram.shared import outbox, turns
from handlers.telegram.shared.context import Ctx
from handlers.telegram.shared.offloop import off_loop
from handlers.telegram.shared.send import send
from handlers.telegram.ui import Screen

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
        # Read again, not ``match``: a write that lands while the message travels (the
        # other player's receipt remembered) would make a save from ``match`` conflict.
        match = usecases.lock_posted(deps, match_id, turn, msg.message_id, date)
        fps = None if got is None else got.fingerprints  # the lock froze the sealed orders
        latest = await turns.refresh_status(context, match, fps)  # "waits for round N"
    # Waits for the round (off the event loop: long polling answers other chats meanwhile);
    # owes the reveal, else the sweeper resolves it. On Lambda (``Deps.later``) it does not
    # wait: the turn goes to the resolve queue unless its round is out already.
    resolved = await off_loop(usecases.resolve_locked, deps, match_id, turn, known=latest)
    if resolved is not None:  # its reveal is owed: delivered in the same call
        outbox.owes_more("resolved")
    return match
