"""Orders: /order, the order builder and its seal button (moved from ``handlers.telegram.bot``)."""

from __future__ import annotations

import logging

from telegram import Message, Update, User

from engine.match import Phase
from handlers.telegram import hints, plain, stale
from handlers.telegram.callbacks import Callback
from handlers.telegram.i18n import Tr
from handlers.telegram.screens import render
from handlers.telegram.shared.builders import refuse_if_before_turn
from handlers.telegram.shared.context import Ctx
from handlers.telegram.shared.guards import (
    _choose,
    _load,
    _load_with_orders,
    _order_example,
    _own_seat,
    _pick_match,
    _require_turn,
    command,
    not_yours,
    user_of,
)
from handlers.telegram.shared.page_button import with_page
from handlers.telegram.shared.send import dm, edit, send
from handlers.telegram.shared.turns import _seal
from handlers.telegram.ui import get_ui

log = logging.getLogger("sekundant.bot")


@command
async def cmd_order(update: Update, context: Ctx) -> None:
    """``/order [match] <typed order>`` in private; with no order, the builder."""
    svc = context.svc
    user = user_of(update)
    tr = context.tr(user)
    words = list(context.args or [])
    match, candidates, words = _pick_match(svc, user.id, words, Phase.RUNNING)
    if match is None:
        example = _order_example(tr, candidates, user.id)
        await _choose(context, tr, user.id, candidates, user.id, example)
        return
    pid = _own_seat(match, user.id)
    assert pid is not None
    if not words:
        screen = with_page(svc, tr, match, pid, render.builder_screen(tr, match, pid, ()))
        msg = await send(context, user.id, screen)
        await stale.remember(context, match, [msg])
        return
    refuse_if_before_turn(update, match)
    with plain.with_example(lambda: hints.order_example(tr, match, pid)):
        order = get_ui(match.ruleset).parse_typed_in(match, words)
        await _seal(context, tr, match, pid, user.id, order, message=None)


async def btn_builder(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    svc = context.svc
    match = _load(svc, cb)
    _require_turn(tr, match, cb)
    pid = cb.arg(0)
    if match.seat(pid) not in match.controlled_by(user.id):
        raise not_yours(tr, match, user.id)
    screen = render.builder_screen(tr, match, pid, cb.args[1:])
    if msg.chat.type == "private":
        await edit(context, msg.chat.id, msg.message_id, screen)
    else:
        await stale.remember(context, match, [await dm(context, match, user.id, screen)])
    from handlers.telegram.shared import text_steps

    if text_steps.has_text_orders(match.ruleset):  # a text step: the next message is its text
        text_steps.remember(context, user.id, screen)
    return None


async def btn_seal(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    svc = context.svc
    loaded = _load_with_orders(svc, cb)  # the seal starts from it: one read for the press
    match = loaded.match
    _require_turn(tr, match, cb)
    pid = cb.arg(0)
    order = get_ui(match.ruleset).order_for(match, pid, cb.args[1:])
    await _seal(context, tr, match, pid, user.id, order, message=msg, loaded=loaded)
    return tr("receipt.toast")
