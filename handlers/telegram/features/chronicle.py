"""``/chronicle [match id]`` in the group (docs/campaign.md "The chronicle"): the fight as
files for a forum thread - BBCode and Markdown posts and the turn pictures as one tall image.
Without an id: the group's running match (the chronicle so far), else its most recently
finished rated one; with an id, any match of this group. Only resolved turns are told."""

from __future__ import annotations

import logging

from telegram import InputFile, Update

from engine.errors import NotFoundError, Rejection
from engine.match import Match
from handlers.telegram.i18n import Tr
from handlers.telegram.screens import chronicle_text
from handlers.telegram.shared import campaign
from handlers.telegram.shared.context import Ctx, Services
from handlers.telegram.shared.guards import command, sender
from handlers.telegram.shared.send import _api

log = logging.getLogger("sekundant.bot")


def _target(svc: Services, chat_id: int, asked: str) -> Match:
    repo = svc.deps.repo
    if asked:
        try:
            match = repo.load(asked).match
        except NotFoundError:
            raise Rejection("chronicle_no_match", id=asked) from None
        if match.chat_id != chat_id:
            raise Rejection("chronicle_no_match", id=asked)
        return match
    running = [m for m in repo.active_in_chat(chat_id) if m.state is not None]
    if running:
        return running[0]
    store = campaign.store(svc)
    results = store.results(chat_id) if store is not None else []
    if not results:
        raise Rejection("chronicle_none")
    latest = max(results, key=lambda r: (float(r["ended_at"]), str(r["match_id"])))
    return repo.load(str(latest["match_id"])).match


@command
async def cmd_chronicle(update: Update, context: Ctx) -> None:
    svc = context.svc
    _, chat = sender(update)
    match = _target(svc, chat.id, (context.args or [""])[0])
    tr = Tr(match.lang)
    history = svc.deps.repo.history(match.id)
    files = []
    for target, ext in (("bbcode", "bbcode.txt"), ("markdown", "md")):
        found = chronicle_text.posts(tr, match, history, target)
        caption = tr.n(f"chronicle.caption_{target}", len(found))
        data = chronicle_text.as_file(tr, found, target)
        files.append((data, f"chronicle-{match.id}.{ext}", caption))
    try:
        png = chronicle_text.tall_picture(tr, match, history)
    except Exception:  # the pictures are a convenience; the text is the chronicle
        log.warning("chronicle pictures of %s not drawn", match.id, exc_info=True)
        png = None
    if png is not None:
        files.append((png, f"chronicle-{match.id}.png", tr("chronicle.caption_picture")))
    for data, name, caption in files:
        doc = InputFile(data, filename=name)

        async def upload(doc: InputFile = doc, caption: str = caption) -> object:
            return await context.bot.send_document(chat.id, doc, caption=caption)

        await _api(svc, upload)
