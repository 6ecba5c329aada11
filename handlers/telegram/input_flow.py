"""What the bot answers when a user types something it does not expect, and the notices a
player gets about orders given in their name.

- :func:`hint`: a plain private message with nothing waiting for a text gets a short answer
  naming what the user can do now (pick a character, send an order, wait), with an example
  made for them (:mod:`handlers.telegram.hints`), instead of silence.
- :func:`tell_defaulted`: when the GM forces a turn, each player who got the default order is
  told privately, as the deadline path does (:func:`handlers.telegram.clock.announce_deadline`).
"""

from __future__ import annotations

from engine import match as lifecycle
from engine.match import Match, Phase, TurnRecord
from handlers.telegram import bot, hints
from handlers.telegram.i18n import Raw, Tr
from handlers.telegram.ui import Screen, get_ui


def next_step(tr: Tr, matches: list[Match], user_id: int) -> str:
    """One line: the most useful thing ``user_id`` can do now in their ``matches``."""
    for m in matches:
        seat = m.seat_of_user(user_id)
        if seat is None:
            continue
        if m.phase is Phase.RUNNING and seat.pid in lifecycle.missing(m):
            if seat.pid in lifecycle.gm_controlled(m):
                continue
            example = hints.order_example(tr, m, seat.pid)
            return tr("input.next.order", turn=m.turn, id=m.id, example=example)
        if m.phase is Phase.LOBBY and seat.character is None:
            return tr("input.next.lobby", id=m.id, example=hints.character_example(m))
    for m in matches:
        if m.seat_of_user(user_id) is not None:
            return tr("input.next.wait", id=m.id)
    return tr("input.next.none")


async def hint(context: bot.Ctx, tr: Tr, user_id: int) -> None:
    """Answer an unexpected private message with what the user can do now."""
    svc = bot.services(context)
    matches = svc.deps.repo.active_for_user(user_id)
    text = tr("input.unknown_text", next=Raw(next_step(tr, matches, user_id)))
    await bot.send(context, user_id, Screen(text))


async def tell_defaulted(
    context: bot.Ctx, match: Match, record: TurnRecord, key: str = "input.forced_default"
) -> None:
    """Tell each player whose seat got the default order, privately (``key``: the message;
    a forced turn's by default, the deadline's from :mod:`handlers.telegram.clock`)."""
    svc = bot.services(context)
    ui = get_ui(match.ruleset)
    for o in record.orders:
        seat = match.seat(o.pid)
        if not o.default or seat.user_id is None or seat.npc:
            continue
        ptr = Tr(svc.lang_for(seat.user_id, match.lang))
        text = ptr(
            key,
            id=match.id,
            turn=record.turn,
            order=Raw(ui.order_text(ptr, o.order)),
        )
        await bot.dm(context, match, seat.user_id, Screen(text))
