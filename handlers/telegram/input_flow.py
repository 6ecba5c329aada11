"""What the bot answers when a user types something it does not expect, and the notices a
player gets about orders given in their name.

- :func:`hint`: a plain private message with nothing waiting for a text gets a short answer
  naming what the user can do now (pick a character, send an order, wait), with an example
  made for them (:mod:`handlers.telegram.hints`), instead of silence.
- :func:`tell_defaulted`: when the GM forces a turn, each player who got the default order is
  told privately, as the deadline path does
  (:func:`handlers.telegram.shared.clock_notices.announce_deadline`).
"""

from __future__ import annotations

from engine import match as lifecycle
from engine.match import Match, Phase, TurnRecord
from handlers.telegram import hints
from handlers.telegram.i18n import Raw, Tr
from handlers.telegram.shared.context import Ctx
from handlers.telegram.shared.send import dm, send
from handlers.telegram.ui import Screen, get_ui


def next_step(tr: Tr, matches: list[Match], user_id: int) -> str:
    """One line: the most useful thing ``user_id`` can do now in their ``matches``. It claims
    a sealed order only when there is one (issue 24: a lobby has no order yet)."""
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
            return tr("input.next.lobby", id=m.id, example=hints.character_example(m, lang=tr.lang))
    for m in matches:
        seat = m.seat_of_user(user_id)
        if seat is None:
            continue
        return tr(_waiting_key(m, seat.pid), id=m.id, turn=m.turn)
    return tr("input.next.none")


def _waiting_key(m: Match, pid: str) -> str:
    """Why nothing is asked of ``pid`` in ``m`` now, in words that claim only what is true."""
    if m.phase is Phase.LOBBY:
        return "traps.next.lobby_ready"
    if pid in m.sealed:
        return "input.next.wait"
    if pid in lifecycle.gm_controlled(m):
        return "traps.next.gm_seat"
    return "traps.next.not_acting"


async def hint(context: Ctx, tr: Tr, user_id: int) -> None:
    """Answer an unexpected private message with what the user can do now."""
    svc = context.svc
    matches = svc.deps.repo.active_for_user(user_id)
    text = tr("input.unknown_text", next=Raw(next_step(tr, matches, user_id)))
    await send(context, user_id, Screen(text))


async def tell_defaulted(
    context: Ctx, match: Match, record: TurnRecord, key: str = "input.forced_default"
) -> None:
    """Tell each player whose seat got the default order, privately (``key``: the message;
    a forced turn's by default, the deadline's from :mod:`handlers.telegram.features.clock`)."""
    svc = context.svc
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
        await dm(context, match, seat.user_id, Screen(text))
