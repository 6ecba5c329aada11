"""Each turn's seed commitment in a group message that is never edited again (issue 18).

A quiet group (issue 24): turn N+1's commitment is folded into turn N's reveal (turn 1's into
the start message), the last edit those messages get (:func:`fold_text`, :func:`folded`); a
commitment that has no such message (a turn reopened by an undo) is posted on its own.

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
from handlers.telegram.shared import outbox
from handlers.telegram.ui import Screen

log = logging.getLogger("sekundant.bot")

Send = Callable[[int, Screen], Awaitable[Message]]


def foldable(match: Match, turn: int, message_id: int | None) -> bool:
    """Whether ``match``'s open turn (``turn``) has its commitment folded into the message
    ``message_id`` (a reveal, the start): not posted yet, or posted in that very message (a
    delivery resumed: the message is sent or edited again exactly as before)."""
    if match.commitment is None or match.turn != turn:
        return False
    return match.commitment_posted_at is None or match.commitment_message == message_id


def fold_text(tr: Tr, match: Match) -> str:
    """The open turn's commitment as the last lines of the message it is folded into: in
    words, the digest one tap away."""
    digest = tr("commit.digest", turn=match.turn, commitment=match.commitment or "")
    return tr("commit.fold", turn=match.turn) + f"\n<blockquote expandable>{digest}</blockquote>"


def folded(deps: usecases.Deps, match: Match, message_id: int) -> Match:
    """Record that the group got the open turn's commitment in ``message_id``, with the
    running delivery's journal (the message carrying it: ``outbox.with_save``)."""
    commitment = match.commitment
    if commitment is None:
        return match
    return outbox.with_save(
        lambda entry: usecases.commitment_posted(
            deps, match.id, match.turn, commitment, message_id, known=match, entry=entry
        )
    )


async def post(send: Send, deps: usecases.Deps, match: Match) -> Match:
    """Post the open turn's commitment unless the group already has it; the match as saved."""
    if match.commitment is None or match.commitment_posted_at is not None:
        return match
    tr = Tr(match.lang)
    # A turn's own commitment message (an undo reopened it) reads like the folded one.
    text = fold_text(tr, match) if match.turn else fairness.commitment_post(tr, match)
    msg = await send(match.chat_id, Screen(text))
    mid, commitment = msg.message_id, match.commitment
    return outbox.with_save(  # the message's journal entry rides on it, in a delivery
        lambda entry: usecases.commitment_posted(
            deps, match.id, match.turn, commitment, mid, known=match, entry=entry
        )
    )


async def try_post(send: Send, deps: usecases.Deps, match: Match) -> Match:
    """:func:`post`, a failure logged (orders keep waiting; the next seal tries again)."""
    try:
        return await post(send, deps, match)
    except TelegramError as exc:
        log.warning("commitment of match %s turn %s not posted: %s", match.id, match.turn, exc)
        return match
