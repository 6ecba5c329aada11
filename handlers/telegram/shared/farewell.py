"""Players who leave a running match by the GM's hand (removed, replaced, or the match ended
by the GM) get one private line, and the buttons of their open turn go inert (issue 24: no
"not for you" or "use the latest message" when no later message exists).

The private lines are owed with the GM's action (``*_notes``: the use cases' ``notes``,
delivered by the outbox, issue 28); the functions below drop the keyboards.
"""

from __future__ import annotations

import contextlib
import logging
from typing import Any

from telegram.error import BadRequest, Forbidden

from engine.match import Match
from handlers.telegram import stale
from handlers.telegram.i18n import Tr
from handlers.telegram.shared.context import Ctx
from handlers.telegram.shared.send import _api, send
from handlers.telegram.ui import Screen

log = logging.getLogger("sekundant.bot")


async def tell(context: Ctx, match: Match, user_id: int, key: str, **params: Any) -> None:
    """One private line to ``user_id`` in their language (a closed private chat: nothing)."""
    tr = Tr(context.svc.lang_for(user_id, match.lang))
    with contextlib.suppress(Forbidden, BadRequest):
        await send(context, user_id, Screen(tr(key, id=match.id, **params)))


async def inert(context: Ctx, match: Match, user_id: int | None = None) -> None:
    """Drop the keyboards of the open turn's remembered private messages (``user_id``'s only,
    or everyone's): builders and receipts of a seat that is no longer theirs."""
    svc = context.svc
    for chat, mid in stale.live(match, match.turn):
        if user_id is not None and chat != user_id:
            continue

        async def call(chat: int = chat, mid: int = mid) -> Any:
            return await context.bot.edit_message_reply_markup(chat, mid, reply_markup=None)

        try:
            await _api(svc, call)
        except (BadRequest, Forbidden) as exc:
            log.debug("keyboard of %s/%s not removed: %s", chat, mid, exc.message)


def _line(match: Match, user_id: int, key: str, **params: Any) -> dict[str, Any]:
    from handlers.telegram.shared.turns import note

    return note(key, chat=user_id, user=user_id, id=match.id, **params)


def removed_notes(match: Match, user_id: int | None) -> list[dict[str, Any]]:
    """The private line owed to ``user_id`` whose seat the GM removed."""
    return [] if user_id is None else [_line(match, user_id, "traps.gone.removed")]


def replaced_notes(before: Match, user_id: int | None, new: str) -> list[dict[str, Any]]:
    """The private line owed to ``user_id`` whose seat went to ``new``."""
    return [] if user_id is None else [_line(before, user_id, "traps.gone.replaced", new=new)]


def ended_notes(before: Match) -> list[dict[str, Any]]:
    """The private lines owed to every player when the GM ends the match."""
    return [
        _line(before, s.user_id, "traps.gone.ended")
        for s in before.seats
        if s.user_id is not None and not s.npc and s.user_id != before.gm_user_id
    ]


async def removed(context: Ctx, match: Match, user_id: int | None) -> None:
    """The GM removed ``user_id``'s seat (a forfeit by the GM)."""
    if user_id is None:
        return
    await tell(context, match, user_id, "traps.gone.removed")
    await inert(context, match, user_id)


async def replaced(context: Ctx, before: Match, user_id: int | None, new: str) -> None:
    """``user_id``'s seat went to ``new`` (the GM's replacement, claimed)."""
    if user_id is None:
        return
    await tell(context, before, user_id, "traps.gone.replaced", new=new)
    await inert(context, before, user_id)


async def ended(context: Ctx, before: Match) -> None:
    """The GM ended the match: every player is told, every open keyboard goes."""
    for seat in before.seats:
        if seat.user_id is not None and not seat.npc and seat.user_id != before.gm_user_id:
            await tell(context, before, seat.user_id, "traps.gone.ended")
    await inert(context, before)
