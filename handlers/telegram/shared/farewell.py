"""Players who leave a running match by the GM's hand (removed, replaced, or the match ended
by the GM) get one private line, and the buttons of their open turn go inert (issue 24: no
"not for you" or "use the latest message" when no later message exists).

Each function sends and edits, nothing else, so a later change can route them through the
outbox (``shared/outbox.py``) as owed messages.
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
