"""An order typed in the group (``/order …``, ``/plan …``, ``/npcorder …``): never sealed (it
is public now) and never left unanswered (issue 24 point 3).

The typed message is deleted when the bot has the right to (an admin with "delete messages");
the sender is told privately what happened and where orders go; a sender the bot cannot write
to (never started it, or blocked it) is answered in the group, with a button that opens the
private chat. Orders are sealed in private (README, "How a duel is played").
"""

from __future__ import annotations

import contextlib

from telegram import Message, Update
from telegram.error import BadRequest, Forbidden, TelegramError

from engine.match import Match
from handlers.telegram.i18n import Tr
from handlers.telegram.shared.context import Ctx
from handlers.telegram.shared.guards import command
from handlers.telegram.shared.send import _api, deep_link, send
from handlers.telegram.ui import Button, Screen

COMMANDS = ("order", "plan", "npcorder")


@command
async def cmd_order_in_group(update: Update, context: Ctx) -> None:
    """``/order …`` in a group: delete it if allowed, tell the sender privately, else here."""
    msg, user = update.effective_message, update.effective_user
    if msg is None or user is None:
        return
    match = _group_match(context, msg.chat_id)
    typed = len((msg.text or "").split()) > 1  # an order was written, not just the command
    deleted = typed and await _delete(context, msg)
    if await _tell_privately(context, context.own_tr(user), user.id, typed, deleted):
        return
    gtr = Tr(match.lang) if match is not None else context.tr(user)
    await _tell_in_group(context, gtr, msg, match, user.full_name, (typed, deleted))


def _group_match(context: Ctx, chat_id: int) -> Match | None:
    matches = context.svc.deps.repo.active_in_chat(chat_id)
    return matches[0] if matches else None


async def _delete(context: Ctx, msg: Message) -> bool:
    """Delete the public order; False when the bot may not (no admin right) or it is gone."""
    try:
        await _api(context.svc, msg.delete)
    except (BadRequest, Forbidden, TelegramError):
        return False
    return True


def _key(typed: bool, deleted: bool) -> str:
    if not typed:
        return "traps.group_order.empty"
    return "traps.group_order.deleted" if deleted else "traps.group_order.public"


async def _tell_privately(context: Ctx, tr: Tr, user_id: int, typed: bool, deleted: bool) -> bool:
    """The private answer; False when the bot cannot write to the user."""
    text = tr(_key(typed, deleted)) + "\n" + tr("traps.group_order.how")
    try:
        await send(context, user_id, Screen(text))
    except Forbidden:
        return False
    return True


async def _tell_in_group(
    context: Ctx,
    tr: Tr,
    msg: Message,
    match: Match | None,
    name: str,
    what: tuple[bool, bool],
) -> None:
    """The answer in the group, for a sender the bot cannot write to privately (``what``:
    whether an order was typed, whether it was deleted)."""
    if match is not None:
        url = deep_link(context, f"play_{match.id}")
    else:
        url = f"https://t.me/{context.bot.username}"
    text = tr("traps.group_order.group", name=name) + " " + tr(_key(*what))
    screen = Screen(text, [[Button(tr("btn.open_private"), url=url)]])
    with contextlib.suppress(Forbidden, BadRequest):
        await send(context, msg.chat_id, screen)
