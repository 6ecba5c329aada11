"""Records: /history and /dossier (and its button) (moved from ``handlers.telegram.gm_panel``)."""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Sequence
from typing import Any

from telegram import InputFile, Message, Update, User
from telegram.error import Forbidden, TelegramError

from engine import usecases
from engine.dossier import build_dossier
from engine.errors import NotFoundError, Rejection
from engine.match import Match, Phase, TurnRecord
from handlers.telegram.callbacks import Callback
from handlers.telegram.i18n import Raw, Tr
from handlers.telegram.screens import fairness, render
from handlers.telegram.shared import finished
from handlers.telegram.shared.context import Ctx, Services
from handlers.telegram.shared.dossier_access import dossier_allowed
from handlers.telegram.shared.guards import (
    Alert,
    _load,
    command,
    group_match,
    sender,
)
from handlers.telegram.shared.page_button import proof_button
from handlers.telegram.shared.send import _api, markup, send
from handlers.telegram.ui import Screen, get_ui, names_of

log = logging.getLogger("sekundant.bot")


def history_text(tr: Tr, match: Match, records: Sequence[TurnRecord]) -> str:
    """Past turns, compact: each order, every die, every event."""
    ui = get_ui(match.ruleset)
    names = names_of(match)
    parts = [tr("history.title", title=Raw(render.match_title(tr, match)))]
    for r in records:
        lines = [tr("history.turn", turn=r.turn, reason=tr(f"history.reason_{r.reason}"))]
        for o in r.orders:
            key = "reveal.order_default" if o.default else "reveal.order"
            lines.append(
                tr(key, name=Raw(names.get(o.pid, o.pid)), order=Raw(ui.order_text(tr, o.order)))
            )
        lines += [ui.event_text(tr, names, e.kind, e.actor, e.data) for e in r.events]
        parts.append("\n".join(line for line in lines if line))
    if not records:
        parts.append(tr("history.none"))
    return "\n\n".join(parts)


def _history_match(svc: Services, update: Update, words: list[str]) -> Match:
    user, chat = sender(update)
    if words:
        with contextlib.suppress(NotFoundError):
            match = svc.deps.repo.load(words[0]).match
            if _may_see(match, user.id, chat.id):
                return match
        raise Rejection("not_a_participant")
    if chat.type != "private":
        with contextlib.suppress(NotFoundError):
            return group_match(svc, chat.id)
        ended = finished.last(svc, chat.id)  # after the final: the match just played here
        if ended is None:
            raise NotFoundError(chat.id)
        return ended
    mine = [m for m in svc.deps.repo.active_for_user(user.id) if m.phase is not Phase.LOBBY]
    if not mine:
        ended = finished.last(svc, user.id)
        if ended is not None:
            return ended
    if len(mine) != 1:
        raise Rejection("no_active_match" if not mine else "name_the_match")
    return mine[0]


def _may_see(match: Match, user_id: int, chat_id: int) -> bool:
    """Revealed turns are public to the match's group and its participants."""
    return (
        chat_id == match.chat_id
        or user_id == match.gm_user_id
        or any(s.user_id == user_id for s in match.seats)
    )


@command
async def cmd_history(update: Update, context: Ctx) -> None:
    """``/history [match]``: every resolved turn (orders, dice, results), split under limits."""
    svc = context.svc
    user, chat = sender(update)
    match = _history_match(svc, update, list(context.args or []))
    tr = Tr(match.lang if chat.type != "private" else svc.user_lang(user))
    records = usecases.history(svc.deps, match.id)
    await send(context, chat.id, Screen(history_text(tr, match, records)))


async def send_dossier(context: Ctx, match: Match, user: User, reply_chat: int) -> None:
    """Send the dossier privately to ``user``: the JSON (what ``sekundant verify`` checks) and
    a Markdown version in their language."""
    svc = context.svc
    tr = context.own_tr(user)  # the files go to the user's private chat
    if not dossier_allowed(match, user.id):
        raise Rejection("dossier_not_allowed")
    loaded = svc.deps.repo.load(match.id)
    current = list(loaded.orders.values()) if loaded.match.phase is Phase.RUNNING else []
    dossier = build_dossier(
        loaded.match, usecases.history(svc.deps, match.id), current, generated_at=svc.deps.clock()
    )
    data, md = fairness.dossier_files(dossier, tr)
    stem = f"sekundant-{match.id}-{time.strftime('%Y%m%d', time.gmtime(svc.deps.clock()))}"
    try:
        for content, name, caption in (
            (data, f"{stem}.json", tr("fair.dossier_caption_json")),
            (md, f"{stem}.md", tr("fair.dossier_caption_md")),
        ):
            doc = InputFile(content, filename=name)
            # The JSON carries the proof page's button: the same record, checked in the app.
            button = proof_button(svc, tr, match) if name.endswith(".json") else None
            keys = markup(svc, [[button]]) if button else None

            async def upload(
                doc: InputFile = doc, caption: str = caption, keys: Any = keys
            ) -> Message:
                return await context.bot.send_document(
                    user.id, doc, caption=caption, reply_markup=keys
                )

            await _api(svc, upload)
    except Forbidden:
        said = context.tr(user) if reply_chat != user.id else tr  # the group: its language
        await send(context, reply_chat, Screen(said("fair.dossier_open_private")))
        return
    if reply_chat != user.id:
        gtr = context.tr(user)  # the group's language
        await send(context, reply_chat, Screen(gtr("fair.dossier_sent", name=user.full_name)))


@command
async def cmd_dossier(update: Update, context: Ctx) -> None:
    """``/dossier [match]``: the match dossier as files, sent privately."""
    svc = context.svc
    user, chat = sender(update)
    match = _history_match(svc, update, list(context.args or []))
    await send_dossier(context, match, user, chat.id)


async def btn_dossier(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    svc = context.svc
    match = _load(svc, cb)
    try:
        chat = msg.chat.id if msg.chat.type == "private" else user.id
        await send_dossier(context, match, user, chat)
    except TelegramError:  # e.g. the private chat is closed: answer the press, say why
        log.warning("dossier of %s for %s not sent", match.id, user.id, exc_info=True)
        raise Alert(tr("input.dossier_failed")) from None
    return tr("fair.dossier_toast")
