"""The turn clock in the bot: lobby clock buttons, ``/clock``, and the announcement of what
the sweeper did (deadline resolutions with their default orders, the one reminder per turn,
pauses that ran out).

:func:`announce` is shared: the local runner's in-process timer (:func:`install_timer`, started
by ``sekundant run``) and the Lambda sweeper (through ``app.announce_sweep``) both call
:func:`engine.usecases.sweep` and hand its results here. Every sweep step is conditional on the
match version and turn, so a stale or repeated firing changes and announces nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence
from typing import Any

from telegram import Message, Update, User
from telegram.ext import Application

from engine import usecases
from engine.match import Phase
from engine.usecases import Parked, SweepResult
from handlers.telegram.callbacks import Callback
from handlers.telegram.i18n import Tr
from handlers.telegram.screens import clock_text
from handlers.telegram.shared import outbox
from handlers.telegram.shared.clock_notices import announce_parked
from handlers.telegram.shared.context import SERVICES, Ctx, SekundantContext, Services
from handlers.telegram.shared.guards import command, gm_lobby, group_match, sender
from handlers.telegram.shared.notes import show
from handlers.telegram.shared.offloop import off_loop
from handlers.telegram.shared.send import send
from handlers.telegram.shared.turns import note, refresh_lobby
from handlers.telegram.ui import Screen

log = logging.getLogger("sekundant.clock")

TIMER_SECONDS = 20.0  # the local runner's sweep interval (the Lambda sweeper runs each minute)
_TIMER = "sekundant.timer"


# --------------------------------------------------------------------------- lobby and /clock


async def btn_clock(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    """A lobby clock button: the GM sets the turn deadline (``t``) or the reminder (``r``)."""
    svc = context.svc
    match = gm_lobby(svc, tr, cb, user)
    what, value = cb.arg(0), int(cb.arg(1))
    if what == "t":
        match = usecases.configure_clock(svc.deps, match.id, user.id, turn_seconds=value or None)
    elif what == "r":
        match = usecases.configure_clock(svc.deps, match.id, user.id, reminder_before_seconds=value)
    else:
        raise ValueError(what)
    await refresh_lobby(context, match)
    return None


@command
async def cmd_clock(update: Update, context: Ctx) -> None:
    """``/clock`` in a group: the clock settings; the GM changes them with ``key=value`` words
    (in play, a new turn length applies from the next turn)."""
    svc = context.svc
    user, chat = sender(update)
    match = group_match(svc, chat.id)
    tr = Tr(match.lang)
    words = list(context.args or [])
    if words:
        from handlers.telegram import plain

        with plain.with_example(lambda: "/clock turn=90m reminder=30m"):
            options = clock_text.parse_clock_args(words)
            # What the change says is owed with it (the outbox, issue 28).
            notes = [show("lobby")]
            if match.phase is Phase.RUNNING:
                notes.append(note("clock.changed_running"))
            notes.append(show("clock"))
            match = usecases.configure_clock(svc.deps, match.id, user.id, notes=notes, **options)
        await outbox.deliver(context, match.id)
        return
    await send(context, chat.id, Screen(clock_text.settings_text(tr, match)))


# --------------------------------------------------------------------------- announcements


async def announce(app: Any, results: Sequence[SweepResult]) -> None:
    """Tell the chats what a sweep did: each result's announcement was saved with it in the
    outbox (``handlers.telegram.shared.owed`` sends it); a parked match tells its GM. One match's
    failure does not hide the others' (it is logged and kept in ``Services.errors``)."""
    context: Any = SekundantContext(app)
    svc = context.svc
    for result in results:
        match_id = result.match_id if isinstance(result, Parked) else result.match.id
        try:
            if isinstance(result, Parked):
                await announce_parked(context, match_id)
            else:
                await outbox.deliver(context, match_id)
        except Exception as exc:  # reported; the other results go on
            log.exception("announcing %s for %s failed", type(result).__name__, match_id)
            svc.errors.append(exc)


# --------------------------------------------------------------------------- the local timer


async def sweep_once(app: Any) -> list[SweepResult]:
    """One sweep of every due match, announced."""
    svc: Services = app.bot_data[SERVICES]
    results = await off_loop(usecases.sweep, svc.deps)
    if results:
        await announce(app, results)
    await outbox.deliver_due(app)  # what earlier deliveries could not send
    return results


async def _tick_forever(app: Any, interval: float) -> None:
    while True:
        try:
            await sweep_once(app)
        except Exception:  # the timer must outlive one bad sweep
            log.exception("sweep failed")
        await asyncio.sleep(interval)


def install_timer(
    app: Application[Any, Any, Any, Any, Any, Any], interval: float = TIMER_SECONDS
) -> None:
    """Run a sweep every ``interval`` seconds while ``app`` runs (``sekundant run``): started
    in ``post_init`` (after any hook already set there), cancelled in ``post_stop``."""
    before_init, before_stop = app.post_init, app.post_stop

    async def post_init(a: Application[Any, Any, Any, Any, Any, Any]) -> None:
        if before_init is not None:
            await before_init(a)
        a.bot_data[_TIMER] = asyncio.get_running_loop().create_task(_tick_forever(a, interval))

    async def post_stop(a: Application[Any, Any, Any, Any, Any, Any]) -> None:
        task = a.bot_data.pop(_TIMER, None)
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        if before_stop is not None:
            await before_stop(a)

    app.post_init = post_init
    app.post_stop = post_stop
