"""Sending to Telegram: screens as messages and edits, private messages, the Bot API retry
policy, inline keyboards, deep links (moved from ``handlers.telegram.bot``)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import warnings
from collections.abc import Awaitable, Callable, Sequence
from datetime import timedelta
from typing import Any, TypeVar

from telegram import InlineKeyboardMarkup, Message
from telegram.constants import ParseMode
from telegram.error import BadRequest, Forbidden, NetworkError, RetryAfter
from telegram.helpers import create_deep_linked_url
from telegram.warnings import PTBUserWarning

from engine import usecases
from engine.errors import NotFoundError, Rejection
from engine.match import Match
from engine.usecases import TryAgainError
from handlers.telegram.callbacks import Callback
from handlers.telegram.i18n import Tr
from handlers.telegram.screens import render
from handlers.telegram.shared import outbox
from handlers.telegram.shared.context import Ctx, Services
from handlers.telegram.ui import Button, Screen, label

log = logging.getLogger("sekundant.bot")
T = TypeVar("T")

_NO_PREVIEW = {"is_disabled": True}


_RAW_NO_PREVIEW = {"link_preview_options": _NO_PREVIEW}


# edit() calls editMessageText through do_api_request on purpose (see there); PTB warns that a
# typed method exists.
warnings.filterwarnings(
    "ignore", message=r"Please use 'Bot\.editMessageText'", category=PTBUserWarning
)


class _Keyboard(InlineKeyboardMarkup):
    """An inline keyboard we only send: its JSON built straight from our rows.

    PTB would build an :class:`InlineKeyboardButton` per button and turn each back into a dict
    on every call (~50 µs a button; the pistol aim keyboard has 42). ``inline_keyboard`` stays
    empty: nothing reads a keyboard we send, incoming messages carry PTB's parsed one.
    """

    __slots__ = ("_rows",)

    def __init__(self, rows: list[list[dict[str, Any]]]) -> None:
        super().__init__(())
        self._rows = rows

    def to_dict(self, recursive: bool = True) -> dict[str, Any]:
        return {"inline_keyboard": self._rows}


def markup(svc: Services, rows: Sequence[Sequence[Button]]) -> InlineKeyboardMarkup | None:
    if not rows:
        return None
    return _Keyboard(
        [
            [
                {"text": label(b.label), "url": b.url}
                if b.url
                else {"text": label(b.label), "web_app": {"url": b.web_app}}
                if b.web_app
                else {"text": label(b.label), "callback_data": svc.cb(b.cb or Callback("x"))}
                for b in row
            ]
            for row in rows
        ]
    )


async def _api(
    svc: Services,
    call: Callable[[], Awaitable[Any]],
    retries: int = 0,
    chat_id: int | None = None,
    repeatable: bool = False,
    redoable: bool = False,
) -> Any:
    """Run one Bot API call, honouring a short ``RetryAfter`` once (a long one re-raises, so a
    webhook answers 500 and Telegram retries later). ``retries``: how many times a network
    error or a Telegram 5xx is tried again after a short pause. Inside an outbox delivery the
    call goes through its journal (:mod:`handlers.telegram.shared.outbox`): a message sent by
    an earlier attempt is not sent again (``chat_id``: where it goes, part of its identity);
    ``repeatable``: an edit that a resumed delivery makes again (to the latest state; the
    same edit twice changes nothing), so it is not recorded (no store write); ``redoable``:
    an edit recorded on the delivery's next write, harmless made again until then
    (``outbox.Journal``)."""
    journal = outbox.current()
    if journal is None:
        return await _api_call(svc, call, retries)
    return await journal.run(lambda: _api_call(svc, call, retries), chat_id, repeatable, redoable)


async def _api_call(svc: Services, call: Callable[[], Awaitable[Any]], retries: int = 0) -> Any:
    for attempt in range(retries):
        try:
            return await _api_call(svc, call)
        except NetworkError as exc:
            if isinstance(exc, BadRequest | Forbidden | RetryAfter):
                raise  # permanent, or already waited for
            log.warning("Bot API call failed (%s), trying again", exc.message)
            await svc.sleep(0.5 * (attempt + 1))
    try:
        return await call()
    except RetryAfter as exc:
        with warnings.catch_warnings():  # PTB 22.2+: int now, timedelta later; both handled
            warnings.simplefilter("ignore")
            delay = exc.retry_after
        seconds = delay.total_seconds() if isinstance(delay, timedelta) else float(delay)
        if seconds > svc.retry_after_max:
            raise
        await svc.sleep(seconds)
        return await call()


async def at_once(*calls: Awaitable[T]) -> list[T]:
    """Independent Bot API calls made at once, so the function waits for Telegram once, not
    once per call (it is billed for the wait: docs/deploy.md, "Load and cost"). Only calls
    whose order no chat sees: each to a chat of its own (a chat's own messages stay one after
    another inside one of ``calls``), or edits. All of them end; then the first failure is
    raised, as when they went one by one. Inside an outbox delivery the sends are journaled
    as ever, each under its own identity (its chat is part of it): what was sent before a
    failure is recorded with the failure (``outbox``, "at once")."""
    # no exception left: every one is a T
    return list(_raise_first(await asyncio.gather(*calls, return_exceptions=True)))


A = TypeVar("A")
B = TypeVar("B")


async def both(first: Awaitable[A], second: Awaitable[B]) -> tuple[A, B]:
    """:func:`at_once` for two calls of different results."""
    a, b = _raise_first(await asyncio.gather(first, second, return_exceptions=True))
    return a, b  # neither is an exception


def _raise_first(results: Sequence[Any]) -> Sequence[Any]:
    """``results`` of calls that all ended (``gather(return_exceptions=True)``), once none
    of them failed; else the first failure, raised."""
    for result in results:
        if isinstance(result, BaseException):
            raise result
    return results


async def send(context: Ctx, chat_id: int, screen: Screen, retries: int = 0) -> Message:
    """Send a screen (split under 4096 characters; the keyboard goes on the last part);
    ``retries`` as in :func:`_api`."""
    svc = context.svc
    parts = render.split_text(screen.text)
    msg: Message | None = None
    for i, part in enumerate(parts):
        kb = markup(svc, screen.rows) if i == len(parts) - 1 else None

        async def call(part: str = part, kb: InlineKeyboardMarkup | None = kb) -> Message:
            return await context.bot.send_message(
                chat_id,
                part,
                parse_mode=ParseMode.HTML,
                reply_markup=kb,
                api_kwargs=_RAW_NO_PREVIEW,  # as JSON: no LinkPreviewOptions object per send
            )

        msg = await _api(svc, call, retries, chat_id)
    assert msg is not None
    return msg


async def edit(context: Ctx, chat_id: int, message_id: int, screen: Screen) -> None:
    """Edit a message in place; "not modified" is fine, a vanished message is logged."""
    # Raw (edit_strict): Telegram answers with the whole edited message, keyboard included,
    # and PTB would parse it into objects nobody reads (~2 ms for the 42-button aim keyboard).
    try:
        await edit_strict(context, chat_id, message_id, screen)
    except BadRequest as exc:
        log.warning("edit of %s/%s failed: %s", chat_id, message_id, exc.message)


async def edit_strict(context: Ctx, chat_id: int, message_id: int, screen: Screen) -> None:
    """:func:`edit`, but a refusal other than "not modified" raises (a message that must
    carry what it is edited to: the reveal in the lock message)."""
    svc = context.svc
    params = {
        "chat_id": chat_id,
        "message_id": message_id,
        "text": render.split_text(screen.text)[0],
        "parse_mode": ParseMode.HTML,
        "reply_markup": markup(svc, screen.rows),
        "link_preview_options": _NO_PREVIEW,
    }
    try:
        await _api(
            svc, lambda: context.bot.do_api_request("editMessageText", params), repeatable=True
        )
    except BadRequest as exc:
        if "not modified" not in exc.message.lower():
            raise


async def dm(context: Ctx, match: Match, user_id: int, screen: Screen) -> Message | None:
    """A private message to a player. ``Forbidden`` (never started the bot, or blocked it)
    marks them unreachable and tells the group with a deep-link button; the match goes on."""
    try:
        return await send(context, user_id, screen)
    except Forbidden:
        await mark_unreachable(context, match, user_id)
        return None


async def mark_unreachable(context: Ctx, match: Match, user_id: int) -> None:
    svc = context.svc
    seat = match.seat_of_user(user_id)
    if seat is None:
        if user_id == match.gm_user_id:  # e.g. the NPCs' order screens: the turn waits on them
            url = deep_link(context, f"play_{match.id}")
            tr = Tr(match.lang)
            button = [[Button(tr("btn.open_private"), url=url)]]
            await send(context, match.chat_id, Screen(tr("group.gm_unreachable"), button))
        return
    if seat.reachable:
        with contextlib.suppress(Rejection, NotFoundError, TryAgainError):
            usecases.set_reachable(svc.deps, match.id, user_id, False)
    tr = Tr(match.lang)
    url = deep_link(context, f"play_{match.id}")
    screen = Screen(
        tr("group.unreachable", name=seat.name), [[Button(tr("btn.open_private"), url=url)]]
    )
    # Journaled as what it is, the player's: builders go to several players at once
    # (``at_once``), so their notices must not be told apart by their order in the group.
    with outbox.labelled(f"unreachable:{user_id}"):
        await send(context, match.chat_id, screen)


def deep_link(context: Ctx, payload: str) -> str:
    return create_deep_linked_url(context.bot.username, payload)
