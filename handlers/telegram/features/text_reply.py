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

from telegram import Message, Update, User

from engine.errors import NotFoundError, Rejection
from engine.match import Phase
from handlers.telegram import callbacks as cbcodec
from handlers.telegram import stale
from handlers.telegram.callbacks import Callback
from handlers.telegram.i18n import Tr
from handlers.telegram.shared.context import Ctx, Services
from handlers.telegram.shared.guards import Alert, _load, _require_turn, command
from handlers.telegram.shared.text_steps import KIND, pending, set_pending
from handlers.telegram.shared.turns import _seal
from handlers.telegram.ui import get_ui

# --------------------------------------------------------------------------- the pending step


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


@command
async def on_text(update: Update, context: Ctx) -> None:
    """A private plain message: the text of the order whose confirmation it replies to, else
    of the user's pending text step; else a hint of what the user can do now."""
    svc = context.svc
    msg, user = update.effective_message, update.effective_user
    if msg is None or user is None or not msg.text:
        return
    tr = context.tr(user)
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


def _still_open(svc: Services, cb: Callback) -> bool:
    try:
        match = svc.deps.repo.load(cb.match).match
    except NotFoundError:
        return False
    return match.phase is Phase.RUNNING and match.turn == cb.turn


async def _seal_text(context: Ctx, tr: Tr, user_id: int, cb: Callback, text: str) -> None:
    svc = context.svc
    match = svc.deps.repo.load(cb.match).match
    if match.phase is not Phase.RUNNING or match.turn != cb.turn:
        raise Rejection("stale_turn", turn=cb.turn)
    pid = cb.arg(0)
    if match.seat(pid) not in match.controlled_by(user_id):
        raise Rejection("not_your_seat")
    if not text.strip():
        raise Rejection("text_empty")
    order = get_ui(match.ruleset).order_with_text(match, pid, cb.args[1:], text.strip())
    await _seal(context, tr, match, pid, user_id, order, message=None)


async def btn_text_hint(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    """The "✍️" button itself: the text is awaited from this user now; say how to send it."""
    svc = context.svc
    match = _load(svc, cb)
    _require_turn(tr, match, cb)
    if match.seat(cb.arg(0)) not in match.controlled_by(user.id):
        raise Alert(tr("err.not_yours"))
    set_pending(svc, user.id, svc.cb(cb))
    raise Alert(tr(get_ui(match.ruleset).reply_alert_key))
