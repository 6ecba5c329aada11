"""No live-looking buttons on a resolved turn.

Each turn's private messages with buttons (the order builders a turn opens, a builder asked
for again, a typed order's receipt) are remembered beside the match's document
(``MatchRepository.remember_messages`` under ``"live"``: the turn and ``[chat, message]``
pairs; matches of older versions kept them in ``ui["live"]``, still read). When the turn
resolves, their keyboards are removed, so an old builder or receipt no longer offers Change
or Withdraw. A button-sealed receipt is the builder message edited, so it is already
remembered.

Budget (``docs/bot.md``): one store write when a turn opens (all its builders at once), one
per message sent later in the turn (unversioned: it never conflicts with a seal), and one
``editMessageReplyMarkup`` per remembered message when the turn resolves (none for the
message the resolving seal just edited). These are small functions so a later outbox can
send them after the save.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from telegram import Message, User
from telegram.error import BadRequest, Forbidden

from engine import usecases
from engine.errors import NotFoundError, Rejection
from engine.match import Match, remembered_items
from handlers.telegram.callbacks import Callback
from handlers.telegram.i18n import Raw, Tr
from handlers.telegram.shared import outbox
from handlers.telegram.ui import Button

if TYPE_CHECKING:
    from handlers.telegram.shared.context import Ctx

log = logging.getLogger("sekundant.bot")
KEY = "live"
PICKS = "picks"  # the lobby's character pickers (turn 0), made inert when the match starts
KIND = "done"  # the callback kind of the "turn N resolved" button


async def btn_done(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    """The "turn N resolved" button: it only says so."""
    from handlers.telegram.shared.guards import Alert

    raise Alert(tr("stale.resolved_alert", turn=cb.turn))


def live(match: Match, turn: int) -> list[tuple[int, int]]:
    """The remembered messages of ``turn`` with buttons, as (chat, message) pairs."""
    return [(c, m) for c, m in remembered_items(match, KEY, turn)]


async def remember(
    context: Ctx,
    match: Match,
    messages: Iterable[Message | None],
    *,
    known: Match | None = None,
) -> Match:
    """Remember ``messages`` (sent for ``match``'s current turn) as live: one store write
    that reads nothing and changes no version (``usecases.remember_messages``), or, in an
    outbox delivery, none of its own: they ride on its next journal write or its end
    (``outbox.Journal.remember``). Returns ``known`` (else ``match``) with them
    remembered."""
    pairs = [[m.chat.id, m.message_id] for m in messages if m is not None]
    kept = match if known is None else known
    if not pairs:
        return kept
    journal = outbox.current()
    if journal is not None and journal.item.match_id == match.id:
        journal.remember(KEY, match.turn, pairs)
        return usecases.with_remembered(kept, KEY, match.turn, pairs)
    svc = context.svc
    with contextlib.suppress(NotFoundError):
        return usecases.remember_messages(svc.deps, match.id, KEY, match.turn, pairs, known=kept)
    return kept


def done_row(tr: Tr, match: Match, turn: int) -> list[list[Button]]:
    """The keyboard a resolved turn's message keeps: one inert "turn N resolved" button. A
    press says the turn is over; a reply to the message (plans, powers) is refused as late
    (``text_reply``), which needs a signed button bound to the turn."""
    return [[Button(tr("stale.resolved", turn=turn), Callback(KIND, match.id, turn))]]


async def clear(context: Ctx, match: Match, turn: int, skip: int | None = None) -> int:
    """Replace the keyboards of ``turn``'s remembered messages (not ``skip``, the message the
    resolving seal just edited) by :func:`done_row`; returns the number of Bot API calls.
    The edits go out at once, not one after another: they touch different messages, each
    is final and repeatable, and the function is billed for the time it waits on Telegram
    (docs/deploy.md, "Load and cost")."""
    pairs = [(chat, mid) for chat, mid in live(match, turn) if mid != skip]
    done = await asyncio.gather(
        *(_clear_one(context, match, turn, chat, mid) for chat, mid in pairs),
        return_exceptions=True,
    )
    failed = [r for r in done if isinstance(r, BaseException)]
    if failed:  # all of them ended; the delivery fails as when they went one by one
        raise failed[0]
    return len(pairs)


async def _clear_one(context: Ctx, match: Match, turn: int, chat: int, mid: int) -> None:
    from handlers.telegram.shared.send import _api, markup

    svc = context.svc
    kb = markup(svc, done_row(Tr(svc.lang_for(chat, match.lang)), match, turn))

    async def call() -> Any:
        return await context.bot.edit_message_reply_markup(chat, mid, reply_markup=kb)

    try:
        await _api(svc, call, repeatable=True)  # a resolved turn's keyboard: final
    except (BadRequest, Forbidden) as exc:  # gone, not modified, or blocked: nothing live
        log.debug("keyboard of %s/%s not removed: %s", chat, mid, exc.message)


async def remember_picker(context: Ctx, match: Match, message: Message) -> None:
    """A character picker sent in ``match``'s lobby: it goes inert at the start
    (:func:`close_pickers`). One store write."""
    with contextlib.suppress(Rejection, NotFoundError, usecases.TryAgainError):
        pair = [message.chat.id, message.message_id]
        usecases.add_turn_ui(context.svc.deps, match.id, PICKS, 0, [pair])


async def close_pickers(context: Ctx, match: Match) -> None:
    """The match started: each remembered character picker becomes one plain line without
    buttons (issue 24: no live-looking lobby keyboards after the start)."""
    from handlers.telegram.screens import render
    from handlers.telegram.shared.send import edit
    from handlers.telegram.ui import Screen

    kept: Any = match.ui.get(PICKS) or {}
    items = kept.get("items", []) if isinstance(kept, dict) else []
    for chat, mid in items:
        tr = Tr(context.svc.lang_for(int(chat), match.lang))
        line = tr("traps.pickers_closed", title=Raw(render.match_title(tr, match)))
        await edit(context, int(chat), int(mid), Screen(line))
