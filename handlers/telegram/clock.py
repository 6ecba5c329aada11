"""The turn clock in the bot: lobby clock buttons, ``/clock``, and the announcement of what
the sweeper did (deadline resolutions with their default orders, the one reminder per turn,
pauses that ran out).

:func:`announce` is shared: the local runner's in-process timer (:func:`install_timer`, started
by ``sekundant run``) and the Lambda sweeper (through ``bot.announce_sweep``) both call
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
from telegram.ext import Application, CallbackContext, CommandHandler, filters

from engine import usecases
from engine.match import Match, Phase, TurnRecord
from engine.usecases import Parked, SweepResult
from handlers.telegram import bot, clock_text, outbox, render
from handlers.telegram.bot import Ctx, Services, command, send, services
from handlers.telegram.callbacks import Callback
from handlers.telegram.i18n import Raw, Tr
from handlers.telegram.ui import Button, Screen, get_ui, names_of

log = logging.getLogger("sekundant.clock")

TIMER_SECONDS = 20.0  # the local runner's sweep interval (the Lambda sweeper runs each minute)
_TIMER = "sekundant.timer"


# --------------------------------------------------------------------------- lobby and /clock


async def btn_clock(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    """A lobby clock button: the GM sets the turn deadline (``t``) or the reminder (``r``)."""
    svc = services(context)
    match = bot.gm_lobby(svc, tr, cb, user)
    what, value = cb.arg(0), int(cb.arg(1))
    if what == "t":
        match = usecases.configure_clock(svc.deps, match.id, user.id, turn_seconds=value or None)
    elif what == "r":
        match = usecases.configure_clock(svc.deps, match.id, user.id, reminder_before_seconds=value)
    else:
        raise ValueError(what)
    await bot.refresh_lobby(context, match)
    return None


@command
async def cmd_clock(update: Update, context: Ctx) -> None:
    """``/clock`` in a group: the clock settings; the GM changes them with ``key=value`` words
    (in play, a new turn length applies from the next turn)."""
    svc = services(context)
    user, chat = update.effective_user, update.effective_chat
    assert user is not None and chat is not None
    match = bot.group_match(svc, chat.id)
    tr = Tr(match.lang)
    words = list(context.args or [])
    if words:
        from handlers.telegram import plain

        with plain.with_example(lambda: "/clock turn=90m reminder=30m"):
            options = clock_text.parse_clock_args(words)
            match = usecases.configure_clock(svc.deps, match.id, user.id, **options)
        await bot.refresh_lobby(context, match)
        if match.phase is Phase.RUNNING:
            await send(context, chat.id, Screen(tr("clock.changed_running")))
    await send(context, chat.id, Screen(clock_text.settings_text(tr, match)))


# --------------------------------------------------------------------------- announcements


async def announce(app: Any, results: Sequence[SweepResult]) -> None:
    """Tell the chats what a sweep did: each result's announcement was saved with it in the
    outbox (``handlers.telegram.owed`` sends it); a parked match tells its GM. One match's
    failure does not hide the others' (it is logged and kept in ``Services.errors``)."""
    context: Any = CallbackContext(app)
    svc = services(context)
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


def beacon_late_screen(match: Match) -> Screen:
    """The beacon stayed silent: the group sees it, and the GM gets the way on (server seed
    only, marked in the reveal and the dossier)."""
    tr = Tr(match.lang)
    text = tr("fair.beacon_late", turn=match.turn, round=match.beacon_round or 0)
    return Screen(text, [[Button(tr("btn.force"), Callback("gfr", match.id, match.turn))]])


async def announce_parked(context: Ctx, match_id: str) -> None:
    """The match kept failing its sweeps and was parked: the GM is told privately, with the
    reason (the status shows it too) and what brings it back."""
    svc = services(context)
    match = svc.deps.repo.load(match_id).match
    tr = Tr(svc.lang_for(match.gm_user_id, match.lang))
    reason = (match.attention or "").removeprefix(usecases.PARKED)
    text = tr("outbox.parked", title=Raw(render.match_title(tr, match)), reason=reason)
    await bot.dm(context, match, match.gm_user_id, Screen(text))


def _default_lines(tr: Tr, match: Match, record: TurnRecord) -> list[str]:
    names = names_of(match)
    ui = get_ui(match.ruleset)
    return [
        tr(
            "clock.defaulted",
            name=Raw(names.get(o.pid, o.pid)),
            order=Raw(ui.order_text(tr, o.order)),
        )
        for o in record.orders
        if o.default
    ]


async def announce_deadline(context: Ctx, match: Match, record: TurnRecord) -> None:
    """The deadline resolved a turn: say so in the group with each player's default order and
    tell each of them privately (the reveal follows: ``handlers.telegram.owed``)."""
    gtr = Tr(match.lang)
    lines = [gtr("clock.deadline_passed", turn=record.turn)]
    lines += _default_lines(gtr, match, record) or [gtr("clock.all_were_in")]
    await send(context, match.chat_id, Screen("\n".join(lines)))
    from handlers.telegram import input_flow

    await input_flow.tell_defaulted(context, match, record, key="clock.you_defaulted")


async def remind(context: Ctx, match: Match, missing: Sequence[str]) -> None:
    """The turn's one reminder: a private message to each player who has not sealed (never to
    those who have); GM-run seats remind the GM once."""
    svc = services(context)
    now = svc.deps.clock()
    users: dict[int, list[str]] = {}
    for pid in missing:
        seat = match.seat(pid)
        uid = match.gm_user_id if seat.npc or seat.user_id is None else seat.user_id
        users.setdefault(uid, []).append(pid)
    for uid, pids in users.items():
        tr = Tr(svc.lang_for(uid, match.lang))
        left = clock_text.deadline_line(tr, match, now)
        text = tr("clock.reminder", title=Raw(render.match_title(tr, match)), deadline=Raw(left))
        rows = [
            [
                Button(
                    tr("btn.order_for", id=match.seat(p).name),
                    Callback("b", match.id, match.turn, (p,)),
                )
            ]
            for p in pids
        ]
        await bot.dm(context, match, uid, Screen(text, rows))


async def announce_resumed(
    context: Ctx, match: Match, record: TurnRecord | None, *, refresh: bool = True
) -> None:
    """A pause ran out by itself (``max_pause_seconds``); ``refresh``: update the status."""
    svc = services(context)
    gtr = Tr(match.lang)
    text = gtr("clock.auto_resumed")
    deadline = clock_text.deadline_line(gtr, match, svc.deps.clock())
    await send(context, match.chat_id, Screen(f"{text}\n{deadline}" if deadline else text))
    if record is not None:
        await bot.on_resolved(context, match, match, record)
    elif refresh:
        await bot.refresh_status(context, match)


# --------------------------------------------------------------------------- the local timer


async def sweep_once(app: Any) -> list[SweepResult]:
    """One sweep of every due match, announced."""
    svc: Services = app.bot_data[bot.SERVICES]
    results = usecases.sweep(svc.deps)
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


# --------------------------------------------------------------------------- wiring


def register(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    bot.BUTTONS["clk"] = btn_clock
    groups = filters.ChatType.GROUPS & filters.UpdateType.MESSAGE
    app.add_handler(CommandHandler("clock", cmd_clock, filters=groups))
