"""Each turn's seed commitment as its own group message that is never edited (issue 18).

Posted when the turn opens (turn 0's with the lobby), its message id and time recorded in the
match and so in the turn's record and the dossier. Orders wait for it
(``Deps.require_commitment_post``), and a seal first retries a posting that failed, so no
order is ever sealed under a commitment the group did not get. The caller passes its ``send``
(the bot's), so this module does not import the bot."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from telegram import Message
from telegram.error import TelegramError

from engine import usecases
from engine.match import Match
from handlers.telegram.i18n import Tr
from handlers.telegram.screens import fairness
from handlers.telegram.ui import Screen

log = logging.getLogger("sekundant.bot")

Send = Callable[[int, Screen], Awaitable[Message]]


async def post(send: Send, deps: usecases.Deps, match: Match) -> Match:
    """Post the open turn's commitment unless the group already has it; the match as saved."""
    if match.commitment is None or match.commitment_posted_at is not None:
        return match
    msg = await send(match.chat_id, Screen(fairness.commitment_post(Tr(match.lang), match)))
    return usecases.commitment_posted(deps, match.id, match.turn, match.commitment, msg.message_id)


async def try_post(send: Send, deps: usecases.Deps, match: Match) -> Match:
    """:func:`post`, a failure logged (orders keep waiting; the next seal tries again)."""
    try:
        return await post(send, deps, match)
    except TelegramError as exc:
        log.warning("commitment of match %s turn %s not posted: %s", match.id, match.turn, exc)
        return match
