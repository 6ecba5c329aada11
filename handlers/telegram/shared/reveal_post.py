"""A resolved turn's reveal in the group: the picture and the story, quietly (issue 24).

At most two new group messages per resolved turn: the picture (with a short caption) and the
reveal, which is the turn's lock message edited (``shared.lock``) - or, without a public
beacon, a new message. The next turn's commitment is folded into the reveal
(``shared.commitments``): after that edit the reveal is never edited again. The final turn's
reveal ends with the final summary and its buttons instead (``final``), the message an undo of
the final turn edits. Everything else the group reads is the status message, edited in place.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from telegram import InputFile, Message
from telegram.error import BadRequest

from engine.match import Match, Phase, TurnRecord
from handlers.telegram.i18n import Tr
from handlers.telegram.screens import render
from handlers.telegram.screens.reveal_text import reveal_text
from handlers.telegram.shared import commitments, outbox
from handlers.telegram.shared.context import Ctx
from handlers.telegram.shared.offloop import off_loop
from handlers.telegram.shared.send import _api, edit_strict, send
from handlers.telegram.ui import Button, Screen

log = logging.getLogger("sekundant.bot")

REVEAL_RETRIES = 2  # a reveal is sent again after a network error or a Telegram 5xx


async def send_reveal(
    context: Ctx,
    match: Match,
    record: TurnRecord,
    *,
    last: bool,
    preface: str = "",
    final: Screen | None = None,
) -> Match:
    """Post ``record``'s reveal: its picture (:func:`send_reveal_picture`), then the story with
    every die collapsed and the proof (``handlers.telegram.reveal``), tried again on a network
    hiccup. A turn locked by a lock message has that message edited into the reveal. When
    ``match`` (the latest) opened the next turn and ``last``, that turn's commitment is folded
    into the reveal and recorded as posted there; ``preface`` (the deadline's word) heads it.
    ``final``: the match's final summary (``shared.summary``), folded into the reveal's last
    message with its buttons - the message an undo of the final turn edits (issue 24: at most
    two new group messages for the final turn too). Returns the match as saved then."""
    with outbox.labelled(f"picture:{record.turn}"):
        await send_reveal_picture(context, match, record)
    tr = Tr(match.lang)
    text = story_text(tr, match, record, preface)
    if final is not None:
        text += "\n\n" + final.text
    nxt = record.turn + 1
    fold = last and match.phase is Phase.RUNNING and match.turn == nxt and match.commitment
    if fold and not commitments.foldable(match, nxt, record.lock_message):
        fold = False  # posted on its own meanwhile (an order typed before the reveal)
    if fold:
        text += "\n\n" + commitments.fold_text(tr, match)
    rows = [] if final is None else final.rows
    with outbox.labelled(f"reveal:{record.turn}"):
        carrier = await _post(context, match, record, text, rows)
    if fold:
        return commitments.folded(context.svc.deps, match, carrier)
    return match


def story_text(tr: Tr, match: Match, record: TurnRecord, preface: str = "") -> str:
    """The reveal's text: ``preface`` (the deadline's word), then the story and its proof."""
    text = reveal_text(tr, match, record)
    return preface + "\n\n" + text if preface else text


def final_screen(story: str, summary: Screen) -> Screen:
    """The last message of a final turn's reveal as posted: the end of ``story`` (the
    reveal's text) and the summary with its buttons (an undo of the final turn shows it
    again, edited: :func:`withdrawn_screen`)."""
    return Screen(render.split_text(story + "\n\n" + summary.text)[-1], summary.rows)


async def _post(
    context: Ctx, match: Match, record: TurnRecord, text: str, rows: Sequence[Sequence[Button]]
) -> int:
    """The reveal's text in the group (``rows``: the last message's buttons); the id of its
    last message (which carries the fold, or the final summary)."""
    parts = render.split_text(text)
    sent: Message | None = None
    first = 0
    if record.lock_message is not None:
        screen = Screen(parts[0], rows if len(parts) == 1 else [])
        try:
            await edit_strict(context, match.chat_id, record.lock_message, screen)
            first = 1
        except BadRequest as exc:  # the lock message is gone: the reveal is a new message
            log.warning("lock message of %s turn %s: %s", match.id, record.turn, exc.message)
    for i, part in enumerate(parts[first:], start=first):
        screen = Screen(part, rows if i == len(parts) - 1 else [])
        sent = await send(context, match.chat_id, screen, retries=REVEAL_RETRIES)
    if sent is None:
        assert record.lock_message is not None
        return record.lock_message
    return sent.message_id


async def send_reveal_picture(context: Ctx, match: Match, record: TurnRecord) -> bool:
    """The reveal's picture with a short caption (``handlers.telegram.screens.pictures``, which
    imports Pillow only now). Whatever fails here - drawing or sending - is logged and the
    text reveal still goes out: the picture is a convenience, the text is the record."""
    tr = Tr(match.lang)
    try:
        from handlers.telegram.screens import pictures

        png = await off_loop(pictures.reveal_picture, tr, match, record)  # CPU: off the loop
        if png is None:
            return False
        caption = tr("reveal.caption", turn=record.turn)
        photo = InputFile(png, filename=f"{match.id}-turn{record.turn}.png")
        await _api(
            context.svc,
            lambda: context.bot.send_photo(match.chat_id, photo, caption),
            chat_id=match.chat_id,
        )
    except Exception:
        log.warning("reveal picture of %s turn %s not sent", match.id, record.turn, exc_info=True)
        return False
    return True
