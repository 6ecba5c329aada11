"""A turn's order builders, one per acting player in private, sent at once (``send.at_once``):
each chat gets its own builders one after another, the chats all together, so the function
waits for Telegram once rather than once per player (docs/deploy.md, "Load and cost"); then
the GM's builders of the seats the GM runs (``gm_seats.open_turn_gm``), after the players'
(the GM may play a seat too: that chat's order stays as it was). A builder is the turn's
first message in its chat: what is typed before it was meant for an earlier turn
(:func:`refuse_if_before_turn`)."""

from __future__ import annotations

from collections.abc import Sequence

from telegram import Message, Update

from engine import match as lifecycle
from engine.errors import Rejection
from engine.match import Match
from handlers.telegram import stale
from handlers.telegram.i18n import Tr
from handlers.telegram.screens import render
from handlers.telegram.screens.clock_text import with_deadline
from handlers.telegram.shared import outbox
from handlers.telegram.shared.context import Ctx
from handlers.telegram.shared.gm_seats import open_turn_gm
from handlers.telegram.shared.page_button import with_page
from handlers.telegram.shared.send import at_once, dm
from handlers.telegram.ui import Screen


async def send_builders(context: Ctx, match: Match, now: float) -> list[Message | None]:
    """Each acting player's order builder for ``match``'s open turn, then the GM's; the
    messages (None for a player the bot cannot write to)."""
    svc = context.svc
    need = lifecycle.acting(match)
    gm_run = lifecycle.gm_controlled(match)
    by_chat: dict[int, list[Screen]] = {}
    for seat in match.seats:
        if seat.user_id is None or seat.pid not in need or seat.pid in gm_run:
            continue
        ptr = Tr(svc.lang_for(seat.user_id, match.lang))
        screen = render.builder_screen(ptr, match, seat.pid, ())
        screen = with_page(svc, ptr, match, seat.pid, with_deadline(ptr, match, screen, now))
        by_chat.setdefault(seat.user_id, []).append(screen)
    label = f"builder:{match.turn}"

    async def to_chat(user_id: int, screens: Sequence[Screen]) -> list[Message | None]:
        with outbox.labelled(label):  # each chat's identities count within that chat
            return [await dm(context, match, user_id, screen) for screen in screens]

    sent = await at_once(*(to_chat(user_id, screens) for user_id, screens in by_chat.items()))
    builders = [msg for chat in sent for msg in chat]
    with outbox.labelled(f"npc_builder:{match.turn}"):
        builders += await open_turn_gm(context, match)  # NPC builders in the GM's chat
    return builders


def refuse_if_before_turn(update: Update, match: Match) -> None:
    """Refuse a typed command for the current turn written before that turn opened: it was
    meant for an earlier one. A redelivered update does this when its first attempt resolved
    the turn and then died (``handlers.lambda_webhook``: the lease); so does an order typed
    while another player's resolved the turn. Buttons need no such check: they carry their
    turn.

    Telegram orders the messages of a chat: a message id below the id of the turn's first
    message in that chat (its builder, remembered by :func:`open_turn` with the turn's live
    messages, ``stale.live``) was written before the turn opened there; one above it after,
    whatever the clocks say, even in the same second.
    Without a recorded message (e.g. a player the builder did not reach) the dates decide, to
    the second: only a message dated a whole second before the turn opened is refused; date
    0 (the in-process fake API) is unknown and never refused."""
    msg = update.effective_message
    if msg is None or match.turn_opened_at is None:
        return
    first = min((m for c, m in stale.live(match, match.turn) if c == msg.chat_id), default=None)
    if first is not None:
        if msg.message_id < first:
            raise Rejection("typed_before_turn", turn=match.turn)
        return
    written = int((msg.edit_date or msg.date).timestamp())
    if 0 < written < int(match.turn_opened_at):
        raise Rejection("typed_before_turn", turn=match.turn)
