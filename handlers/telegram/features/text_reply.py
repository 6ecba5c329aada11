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

from engine.errors import NotFoundError, Rejection
from engine.match import Match, Phase
from handlers.telegram import callbacks as cbcodec
from handlers.telegram import stale
from handlers.telegram.callbacks import Callback
from handlers.telegram.i18n import Raw, Tr
from handlers.telegram.shared.context import Ctx, Services
from handlers.telegram.shared.guards import Alert, _load, _require_turn, command, not_yours
from handlers.telegram.shared.send import edit, send
from handlers.telegram.shared.text_steps import (
    KIND,
    digest,
    draft,
    pending,
    set_draft,
    set_pending,
)
from handlers.telegram.shared.turns import _seal
from handlers.telegram.ui import Button, Screen, get_ui

SEAL, REWRITE = "ptS", "ptW"  # the callback kinds of 🔒 Seal / ✏️ Rewrite under a text

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
            await _show_back(context, tr, user.id, cb, msg.text)
            return
    data = pending(svc, user.id)
    cb = cbcodec.decode(data, svc.secret) if data else None
    if cb is not None and _still_open(svc, cb):
        await _show_back(context, tr, user.id, cb, msg.text)
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


def _open_match(svc: Services, user_id: int, cb: Callback) -> Match:
    """The match of a text step, its turn still open and its seat still the user's."""
    match = svc.deps.repo.load(cb.match).match
    if match.phase is not Phase.RUNNING or match.turn != cb.turn:
        raise Rejection("stale_turn", turn=cb.turn)
    if match.seat(cb.arg(0)) not in match.controlled_by(user_id):
        raise Rejection("not_your_seat")
    return match


def _text_order(
    svc: Services, user_id: int, cb: Callback, text: str
) -> tuple[Match, dict[str, Any]]:
    """The order of the "✍️" button ``cb`` with ``text``, checked as sealing would check it."""
    match = _open_match(svc, user_id, cb)
    pid = cb.arg(0)
    if not text.strip():
        raise Rejection("text_empty")
    order = get_ui(match.ruleset).order_with_text(match, pid, cb.args[1:], text.strip())
    rules = match.rules
    rules.check_order(rules.load_state(match.state or {}), pid, order)  # e.g. its length
    return match, order


async def _show_back(context: Ctx, tr: Tr, user_id: int, cb: Callback, text: str) -> None:
    """The text, shown back with 🔒 Seal / ✏️ Rewrite: a chat message is never sealed
    silently (issue 24: a question once became a revealed plan)."""
    svc = context.svc
    match, order = _text_order(svc, user_id, cb, text)
    pid, kept = cb.arg(0), text.strip()
    set_draft(svc, user_id, svc.cb(cb), kept)
    ui = get_ui(match.ruleset)
    body = tr("traps.text.shown_back", order=Raw(ui.order_text(tr, order)))
    seal = Callback(SEAL, match.id, match.turn, (pid, digest(kept)))
    rewrite = Callback(REWRITE, match.id, match.turn, (pid,))
    rows = [[Button(tr("traps.btn.seal"), seal), Button(tr("traps.btn.rewrite"), rewrite)]]
    msg = await send(context, user_id, Screen(body, rows))
    await stale.remember(context, match, [msg])  # no live 🔒 once the turn resolved


def _draft_for(svc: Services, tr: Tr, user: User, cb: Callback) -> tuple[Callback, str]:
    """The stored draft a 🔒/✏️ press is about; refused when another text replaced it."""
    found = draft(svc, user.id)
    step = cbcodec.decode(found[0], svc.secret) if found else None
    if found is None or step is None or (step.match, step.turn) != (cb.match, cb.turn):
        raise Rejection("stale_turn", turn=cb.turn)
    if step.arg(0) != cb.arg(0) or (cb.kind == SEAL and digest(found[1]) != cb.arg(1)):
        raise Alert(tr("traps.text.replaced"))
    return step, found[1]


async def btn_text_seal(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    """🔒 under a text shown back: seal it (pressed again: the same order, a no-op)."""
    svc = context.svc
    step, text = _draft_for(svc, tr, user, cb)
    match, order = _text_order(svc, user.id, step, text)
    await _seal(context, tr, match, step.arg(0), user.id, order, message=msg)
    return None


async def btn_text_rewrite(
    context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback
) -> str | None:
    """✏️ under a text shown back: the next message is the text again."""
    svc = context.svc
    step, _ = _draft_for(svc, tr, user, cb)
    _open_match(svc, user.id, step)
    set_pending(svc, user.id, svc.cb(step))
    await edit(context, msg.chat.id, msg.message_id, Screen(tr("traps.text.rewrite")))
    return None


async def btn_text_hint(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    """The "✍️" button itself: the text is awaited from this user now; say how to send it."""
    svc = context.svc
    match = _load(svc, cb)
    _require_turn(tr, match, cb)
    if match.seat(cb.arg(0)) not in match.controlled_by(user.id):
        raise not_yours(tr, match, user.id)
    set_pending(svc, user.id, svc.cb(cb))
    raise Alert(tr(get_ui(match.ruleset).reply_alert_key))
