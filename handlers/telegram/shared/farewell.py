"""Players who leave a running match by the GM's hand (removed, replaced, or the match ended
by the GM) get one private line, and the buttons of their open turn go inert (issue 24: no
"not for you" or "use the latest message" when no later message exists).

The private lines and the keyboards dropped are owed with the GM's action (``*_notes``: the
use cases' ``notes``, delivered by the outbox, issue 28).
"""

from __future__ import annotations

import logging
from typing import Any

from telegram.error import BadRequest, Forbidden

from engine.match import Match
from handlers.telegram import stale
from handlers.telegram.shared.context import Ctx
from handlers.telegram.shared.notes import show
from handlers.telegram.shared.send import _api

log = logging.getLogger("sekundant.bot")


def _keyboards(match: Match, user_id: int | None = None) -> dict[str, Any]:
    """The dropping of the open turn's remembered private keyboards (``user_id``'s only, or
    everyone's: builders and receipts of a seat that is no longer theirs), owed: the messages
    are named now, since the turn may move on before it is sent."""
    live = [[c, m] for c, m in stale.live(match, match.turn) if user_id in (None, c)]
    return show("inert", chat=user_id, messages=live)


async def inert(context: Ctx, messages: list[list[int]]) -> None:
    """Drop the keyboards of ``messages`` (``[chat, message]`` pairs): the owed ``inert``."""
    svc = context.svc
    for chat, mid in messages:

        async def call(chat: int = chat, mid: int = mid) -> Any:
            return await context.bot.edit_message_reply_markup(chat, mid, reply_markup=None)

        try:
            await _api(svc, call, chat_id=chat, repeatable=True)  # no keyboard: final
        except (BadRequest, Forbidden) as exc:
            log.debug("keyboard of %s/%s not removed: %s", chat, mid, exc.message)


def _line(match: Match, user_id: int, key: str, **params: Any) -> dict[str, Any]:
    from handlers.telegram.shared.turns import note

    return note(key, chat=user_id, user=user_id, id=match.id, **params)


def removed_notes(match: Match, user_id: int | None) -> list[dict[str, Any]]:
    """The private line owed to ``user_id`` whose seat the GM removed, and their open
    keyboards dropped."""
    if user_id is None:
        return []
    return [_line(match, user_id, "traps.gone.removed"), _keyboards(match, user_id)]


def replaced_notes(before: Match, user_id: int | None, new: str) -> list[dict[str, Any]]:
    """The private line owed to ``user_id`` whose seat went to ``new``, and their open
    keyboards dropped."""
    if user_id is None:
        return []
    return [_line(before, user_id, "traps.gone.replaced", new=new), _keyboards(before, user_id)]


def ended_notes(before: Match) -> list[dict[str, Any]]:
    """The private lines owed to every player when the GM ends the match, and every open
    keyboard dropped."""
    return [
        *(
            _line(before, s.user_id, "traps.gone.ended")
            for s in before.seats
            if s.user_id is not None and not s.npc and s.user_id != before.gm_user_id
        ),
        _keyboards(before),
    ]
