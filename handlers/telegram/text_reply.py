"""Orders that carry free text, sealed by replying to the order builder's confirmation.

Free text (a plan's role-play text, C22; what a dragon's power does, D34a) is too long for
callback data. Stateless design: the confirmation message carries the complete order in its
signed "✍️" button (``pt`` callback: the seat, then the ruleset's builder tokens); the player
*replies* to that message with the text, Telegram hands us the replied message with its
keyboard, and the order is rebuilt from the button (MAC-checked, bound to match, turn and seat)
by :meth:`RulesetUI.order_with_text` plus the reply's text, then sealed. No pending state
anywhere. Each ruleset's typed syntax is the alternative (``/plan … -- text``,
``/order …; power text``).
"""

from __future__ import annotations

from typing import Any

from telegram import Message, Update, User
from telegram.ext import Application, MessageHandler, filters

from engine.errors import Rejection
from engine.match import Phase
from handlers.telegram import bot, stale
from handlers.telegram import callbacks as cbcodec
from handlers.telegram.callbacks import Callback
from handlers.telegram.i18n import Tr
from handlers.telegram.ui import get_ui

KIND = "pt"  # the callback kind of the "✍️" button (first used by plans: kept for old buttons)


def register(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Add the handler of private replies and the "✍️" button's hint."""
    private = filters.ChatType.PRIVATE & filters.UpdateType.MESSAGE
    app.add_handler(
        MessageHandler(private & filters.REPLY & filters.TEXT & ~filters.COMMAND, on_reply)
    )
    bot.BUTTONS[KIND] = btn_text_hint


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
async def on_reply(update: Update, context: bot.Ctx) -> None:
    """A private reply: when it answers an order's confirmation message, its text completes
    the order, which is sealed."""
    svc = bot.services(context)
    msg, user = update.effective_message, update.effective_user
    if msg is None or user is None or msg.reply_to_message is None or not msg.text:
        return
    cb = _prompt_callback(msg.reply_to_message, svc.secret)
    if cb is None:
        return  # a reply to something else: not ours to interpret
    tr = Tr(svc.user_lang(user))
    match = svc.deps.repo.load(cb.match).match
    if match.phase is not Phase.RUNNING or match.turn != cb.turn:
        raise Rejection("stale_turn", turn=cb.turn)
    pid = cb.arg(0)
    if match.seat(pid) not in match.controlled_by(user.id):
        raise Rejection("not_your_seat")
    order = get_ui(match.ruleset).order_with_text(match, pid, cb.args[1:], msg.text.strip())
    await bot._seal(context, tr, match, pid, user.id, order, message=None)


async def btn_text_hint(
    context: bot.Ctx, msg: Message, user: User, tr: Tr, cb: Callback
) -> str | None:
    """The "✍️" button itself: explain that the text is sent as a reply to this message."""
    svc = bot.services(context)
    match = bot._load(svc, cb)
    raise bot.Alert(tr(get_ui(match.ruleset).reply_alert_key))
