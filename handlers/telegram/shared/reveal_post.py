"""A resolved turn's reveal in the group: the picture and the story, quietly (issue 24).

At most two new group messages per resolved turn, usually one: the picture with the story as
its caption when the story fits Telegram's caption limit (1024 characters after the entities
are parsed), else the picture with a short caption and the story in the message after it.
A turn locked by a lock message (``shared.lock``: a text message, posted at the lock, whose
Telegram date is the turn's lock time) has that message turned into the picture
(``editMessageMedia``, which Bot API 10.0 lets add a photo to a text message: the message and
its date stay, nothing is posted before the lock); without a public beacon the picture is a
new message. No picture (a ruleset without one, drawing or sending failed): the story alone,
in the lock message or a new one, as before.

The next turn's commitment is folded into the reveal's last message (``shared.commitments``):
after that the message is never edited again. The final turn's reveal ends with the final
summary and its buttons instead (``final``), the message an undo of the final turn edits.
Everything else the group reads is the status message, edited in place.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from telegram import InputFile, InputMediaPhoto, Message
from telegram.constants import ParseMode
from telegram.error import BadRequest

from engine.match import Match, Phase, TurnRecord
from handlers.telegram.i18n import Tr
from handlers.telegram.screens import render
from handlers.telegram.screens.reveal_text import reveal_pieces
from handlers.telegram.shared import commitments, outbox
from handlers.telegram.shared.context import Ctx
from handlers.telegram.shared.offloop import off_loop
from handlers.telegram.shared.send import _api, edit, edit_strict, markup, send
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
    """Post ``record``'s reveal: its picture (:func:`draw_picture`) with the story as its
    caption when it fits, the details collapsed and the proof (``screens.reveal_text``) in
    the message after it (:func:`_post`), tried again on a network hiccup. A turn locked by a
    lock message has that message turned into the picture (or the text reveal). When
    ``match`` (the latest) opened the next turn and ``last``, that turn's commitment is folded
    into the reveal and recorded as posted there; ``preface`` (the deadline's word) heads it.
    ``final``: the match's final summary (``shared.summary``), folded into the story's message
    (the picture's caption, or the text) with its buttons - the message an undo of the final
    turn edits (issue 24: at most two new group messages for the final turn too). Returns the
    match as saved then."""
    tr = Tr(match.lang)
    png = await draw_picture(match, record)
    story, rest = reveal_pieces(tr, match, record)
    if preface:
        story = preface + "\n\n" + story
    if final is not None:  # the result ends the story: the undo of a final turn edits it
        story += "\n\n" + final.text
    nxt = record.turn + 1
    fold = last and match.phase is Phase.RUNNING and match.turn == nxt and match.commitment
    if fold and not commitments.foldable(match, nxt, record.lock_message):
        fold = False  # posted on its own meanwhile (an order typed before the reveal)
    if fold:
        rest += "\n\n" + commitments.fold_text(tr, match)
    rows = [] if final is None else final.rows
    with outbox.labelled(f"reveal:{record.turn}"):
        carrier = await _post(context, match, record, (story, rest), rows, png)
    if fold:
        return commitments.folded(context.svc.deps, match, carrier)
    return match


async def edit_buttons(context: Ctx, msg: Message, rows: Sequence[Sequence[Button]]) -> None:
    """Change only the buttons of ``msg`` (a text or a picture): "not modified" is fine."""
    kb = markup(context.svc, rows)
    try:
        await _api(
            context.svc,
            lambda: context.bot.edit_message_reply_markup(
                msg.chat.id, msg.message_id, reply_markup=kb
            ),
            repeatable=True,
        )
    except BadRequest as exc:
        if "not modified" not in exc.message.lower():
            log.warning("buttons of %s/%s: %s", msg.chat.id, msg.message_id, exc.message)


async def edit_final(context: Ctx, msg: Message, screen: Screen) -> None:
    """Edit the final message (``msg``, the last turn's reveal): its text, or its caption when
    the picture carries the story. "Not modified" is fine; a refusal is logged."""
    if not msg.photo:
        await edit(context, msg.chat.id, msg.message_id, screen)
        return
    kb = markup(context.svc, screen.rows)

    async def call() -> object:
        return await context.bot.edit_message_caption(
            msg.chat.id, msg.message_id, caption=screen.text, parse_mode=ParseMode.HTML,
            reply_markup=kb,
        )  # fmt: skip

    try:
        await _api(context.svc, call, repeatable=True)
    except BadRequest as exc:
        if "not modified" not in exc.message.lower():
            log.warning("final message %s/%s: %s", msg.chat.id, msg.message_id, exc.message)


def fits_caption(text: str) -> bool:
    """Whether ``text`` (HTML) is within Telegram's caption limit, counted as Telegram counts
    it (after the entities are parsed, in UTF-16 units)."""
    return render.shown_length(text) <= render.MAX_CAPTION


async def _post(
    context: Ctx,
    match: Match,
    record: TurnRecord,
    pieces: tuple[str, str],
    rows: Sequence[Sequence[Button]],
    png: bytes | None,
) -> int:
    """The reveal in the group (``pieces``: the story, and the details with the proof and
    whatever ends the reveal; ``rows``: its last message's buttons); the id of its last
    message (which carries the fold, or the final summary). With a picture: all of it as the
    picture's caption when it fits; else the story as the caption and the rest in the
    message after it; else a short caption and the whole text after it."""
    story, rest = pieces
    whole = story + "\n\n" + rest
    lock = record.lock_message
    if png is not None:
        caption, text = Tr(match.lang)("reveal.caption", turn=record.turn), whole
        if fits_caption(whole):
            caption, text = whole, ""
        elif fits_caption(story):
            caption, text = story, rest
        photo_rows = rows if caption != Tr(match.lang)("reveal.caption", turn=record.turn) else []
        photo = await _picture(context, match, record, png, Screen(caption, photo_rows))
        if photo is not None and not text:
            return photo  # one message: the picture and the whole reveal
        if photo is not None:  # the buttons stay with the story (the final summary's)
            rest_rows = [] if caption == story else rows
            return await _text(context, match, None, record.turn, text, rest_rows)
    return await _text(context, match, lock, record.turn, whole, rows)


async def _text(
    context: Ctx,
    match: Match,
    lock: int | None,
    turn: int,
    text: str,
    rows: Sequence[Sequence[Button]],
) -> int:
    """The story as text: the lock message edited into its first part (if ``lock``), the
    rest new messages; the id of the last one."""
    parts = render.split_text(text)
    sent: Message | None = None
    first = 0
    if lock is not None:
        screen = Screen(parts[0], rows if len(parts) == 1 else [])
        try:
            await edit_strict(context, match.chat_id, lock, screen)
            first = 1
        except BadRequest as exc:  # the lock message is gone: the reveal is a new message
            log.warning("lock message of %s turn %s: %s", match.id, turn, exc.message)
    for i, part in enumerate(parts[first:], start=first):
        screen = Screen(part, rows if i == len(parts) - 1 else [])
        sent = await send(context, match.chat_id, screen, retries=REVEAL_RETRIES)
    if sent is None:
        assert lock is not None
        return lock
    return sent.message_id


async def draw_picture(match: Match, record: TurnRecord) -> bytes | None:
    """The reveal's picture (``handlers.telegram.screens.pictures``, which imports Pillow only
    now), drawn off the event loop; None for a ruleset without one or when drawing fails (the
    picture is a convenience, the text is the record)."""
    try:
        from handlers.telegram.screens import pictures

        return await off_loop(pictures.reveal_picture, Tr(match.lang), match, record)
    except Exception:
        log.warning("reveal picture of %s turn %s not drawn", match.id, record.turn, exc_info=True)
        return None


async def _picture(
    context: Ctx, match: Match, record: TurnRecord, png: bytes, screen: Screen
) -> int | None:
    """The picture with ``screen`` as its caption and buttons: the lock message turned into
    it (``editMessageMedia``), else a new photo; its message id, or None when it could not
    be sent (logged: the story still goes out as text)."""
    svc, chat = context.svc, match.chat_id
    name = f"{match.id}-turn{record.turn}.png"
    kb = markup(svc, screen.rows)
    try:
        if record.lock_message is not None:
            media = InputMediaPhoto(InputFile(png, filename=name), screen.text, ParseMode.HTML)
            lock = record.lock_message
            # Recorded like a send, on the delivery's next write (``redoable``): until then a
            # resumed delivery makes it again, identically (no commitment is recorded before
            # that write: the commitment's save is the one that carries it, or comes later).
            try:
                await _api(
                    svc,
                    lambda: context.bot.edit_message_media(media, chat, lock, reply_markup=kb),
                    REVEAL_RETRIES,
                    chat_id=chat,
                    redoable=True,
                )
                return lock
            except BadRequest as exc:
                if "not modified" in exc.message.lower():  # made again: it is the picture
                    return lock
                # the lock message is gone: the picture is a new one
                log.warning("lock message of %s turn %s: %s", match.id, record.turn, exc.message)
        photo = InputFile(png, filename=name)
        msg: Message = await _api(
            svc,
            lambda: context.bot.send_photo(
                chat, photo, screen.text, parse_mode=ParseMode.HTML, reply_markup=kb
            ),
            REVEAL_RETRIES,
            chat_id=chat,
        )
        return msg.message_id
    except Exception:
        log.warning("reveal picture of %s turn %s not sent", match.id, record.turn, exc_info=True)
        return None
