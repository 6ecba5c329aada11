"""Orders that carry free text: the text is the player's next private message.

Free text (a plan's role-play text, C22; what a dragon's power does, D34a) is too long for
callback data. The confirmation message carries the complete order in its signed "✍️" button
(``pt`` callback: the seat, then the ruleset's builder tokens). When that screen is shown to a
player, the button's signed data is stored as the player's **pending text step** (the store's
per-user prefs, so it survives restarts and works across Lambda containers): the player's next
plain private message is the text, no reply gesture needed. A *reply* to the confirmation
still works the same way (Telegram hands us the replied message with its keyboard). Either way
the order is rebuilt from the button (MAC-checked, bound to match, turn and seat) by
:meth:`RulesetUI.order_with_text` plus the text, then sealed; the pending step is cleared by
any seal of that seat. Each ruleset's typed syntax is the alternative (``/plan … -- text``,
``/order …; power text``).

A plain private message with nothing pending gets a short hint of what the user can do now
(:func:`on_text`).
"""

from __future__ import annotations

from typing import Any

from telegram import Message, Update, User
from telegram.ext import Application, MessageHandler, filters

from engine import match as lifecycle
from engine.errors import NotFoundError, Rejection
from engine.match import Match, Phase
from engine.ports import PrefsRepository
from engine.usecases import SealResult
from handlers.telegram import bot, stale
from handlers.telegram import callbacks as cbcodec
from handlers.telegram.callbacks import Callback
from handlers.telegram.i18n import Tr
from handlers.telegram.ui import RulesetUI, Screen, get_ui

KIND = "pt"  # the callback kind of the "✍️" button (first used by plans: kept for old buttons)


PENDING = "text_step"  # the prefs key of a user's pending text step: the "✍️" button's data


def register(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Add the handler of private plain text (replies included) and the "✍️" button."""
    private = filters.ChatType.PRIVATE & filters.UpdateType.MESSAGE
    app.add_handler(MessageHandler(private & filters.TEXT & ~filters.COMMAND, on_text))
    bot.BUTTONS[KIND] = btn_text_hint
    if forget_after_seal not in bot.SEAL_HOOKS:
        bot.SEAL_HOOKS.append(forget_after_seal)


# --------------------------------------------------------------------------- the pending step


def _prefs(svc: bot.Services) -> PrefsRepository | None:
    repo = svc.deps.repo
    return repo if isinstance(repo, PrefsRepository) else None


_MEMORY: dict[int, str] = {}  # stores without prefs (none in production): this process only


def pending(svc: bot.Services, user_id: int) -> str | None:
    """The signed "✍️" data of ``user_id``'s pending text step, if any."""
    repo = _prefs(svc)
    if repo is None:
        return _MEMORY.get(user_id)
    value = repo.load_prefs(user_id).get(PENDING)
    return value if isinstance(value, str) else None


def set_pending(svc: bot.Services, user_id: int, data: str | None) -> None:
    """Store (or with None clear) ``user_id``'s pending text step."""
    repo = _prefs(svc)
    if repo is None:
        if data is None:
            _MEMORY.pop(user_id, None)
        else:
            _MEMORY[user_id] = data
        return
    prefs = repo.load_prefs(user_id)
    if prefs.get(PENDING) == data:
        return
    if data is None:
        prefs.pop(PENDING, None)
    else:
        prefs[PENDING] = data
    repo.save_prefs(user_id, prefs)


def text_button(screen: Screen) -> Callback | None:
    """The "✍️" callback of a builder screen, if it waits for a text."""
    for row in screen.rows:
        for b in row:
            if b.cb is not None and b.cb.kind == KIND:
                return b.cb
    return None


def remember(context: bot.Ctx, user_id: int, screen: Screen) -> None:
    """A builder screen was shown to ``user_id``: when it waits for a text, that is now the
    user's pending step; when it does not (Back, Start over), no step is pending any more."""
    svc = bot.services(context)
    cb = text_button(screen)
    if cb is not None:
        set_pending(svc, user_id, svc.cb(cb))
    elif pending(svc, user_id) is not None:
        set_pending(svc, user_id, None)


async def forget_after_seal(context: bot.Ctx, before: Match, res: SealResult) -> None:
    """Any seal of a seat ends the text step its controller had pending for that seat."""
    if not has_text_orders(before.ruleset):
        return
    svc = bot.services(context)
    seat = before.seat(res.order.pid)
    gm_runs = seat.npc or seat.user_id is None or seat.pid in lifecycle.gm_controlled(before)
    uid = before.gm_user_id if gm_runs else seat.user_id
    if uid is not None:  # the one who gives this seat's orders
        data = pending(svc, uid)
        cb = cbcodec.decode(data, svc.secret) if data else None
        if cb is not None and cb.match == before.id and cb.arg(0) == res.order.pid:
            set_pending(svc, uid, None)


def has_text_orders(ruleset: str) -> bool:
    """Whether the ruleset's orders carry free text (its UI draws a "✍️" button)."""
    return get_ui(ruleset).reply_alert_key != RulesetUI.reply_alert_key


def _prompt_callback(reply: Message, secret: bytes) -> Callback | None:
    """The signed "✍️" button of the replied-to builder message, if that is what it is."""
    if reply.from_user is None or not reply.from_user.is_bot or reply.reply_markup is None:
        return None
    for row in reply.reply_markup.inline_keyboard:
        for button in row:
            data = button.callback_data if isinstance(button.callback_data, str) else None
            cb = cbcodec.decode(data, secret)
            if cb is not None and cb.kind in (KIND, stale.KIND):  # stale: a resolved turn's
                return cb
    return None


@bot.command
async def on_text(update: Update, context: bot.Ctx) -> None:
    """A private plain message: the text of the order whose confirmation it replies to, else
    of the user's pending text step; else a hint of what the user can do now."""
    svc = bot.services(context)
    msg, user = update.effective_message, update.effective_user
    if msg is None or user is None or not msg.text:
        return
    tr = Tr(svc.user_lang(user))
    cb = None
    if msg.reply_to_message is not None:
        cb = _prompt_callback(msg.reply_to_message, svc.secret)
        if cb is not None:  # a reply to a confirmation: stale or not, it is meant for it
            await _seal_text(context, tr, user.id, cb, msg.text)
            return
    data = pending(svc, user.id)
    cb = cbcodec.decode(data, svc.secret) if data else None
    if cb is not None and _still_open(svc, cb):
        await _seal_text(context, tr, user.id, cb, msg.text)
        return
    if data is not None:
        set_pending(svc, user.id, None)  # its turn is over: nothing waits for a text
    from handlers.telegram import input_flow

    await input_flow.hint(context, tr, user.id)


def _still_open(svc: bot.Services, cb: Callback) -> bool:
    try:
        match = svc.deps.repo.load(cb.match).match
    except NotFoundError:
        return False
    return match.phase is Phase.RUNNING and match.turn == cb.turn


async def _seal_text(context: bot.Ctx, tr: Tr, user_id: int, cb: Callback, text: str) -> None:
    svc = bot.services(context)
    match = svc.deps.repo.load(cb.match).match
    if match.phase is not Phase.RUNNING or match.turn != cb.turn:
        raise Rejection("stale_turn", turn=cb.turn)
    pid = cb.arg(0)
    if match.seat(pid) not in match.controlled_by(user_id):
        raise Rejection("not_your_seat")
    if not text.strip():
        raise Rejection("text_empty")
    order = get_ui(match.ruleset).order_with_text(match, pid, cb.args[1:], text.strip())
    await bot._seal(context, tr, match, pid, user_id, order, message=None)


async def btn_text_hint(
    context: bot.Ctx, msg: Message, user: User, tr: Tr, cb: Callback
) -> str | None:
    """The "✍️" button itself: the text is awaited from this user now; say how to send it."""
    svc = bot.services(context)
    match = bot._load(svc, cb)
    bot._require_turn(tr, match, cb)
    if match.seat(cb.arg(0)) not in match.controlled_by(user.id):
        raise bot.Alert(tr("err.not_yours"))
    set_pending(svc, user.id, svc.cb(cb))
    raise bot.Alert(tr(get_ui(match.ruleset).reply_alert_key))
