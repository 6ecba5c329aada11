"""The "📜 Proof" page's way in from the group (docs/bot.md "The proof page"): the final
message's link opens the private chat with ``/start proof_<id>``, answered here with the
page's ``web_app`` button (Telegram opens those in private chats only). Without a page
(no ``SEKUNDANT_WEBAPP_URL``) the link is not shown; an old one gets the dossier files."""

from __future__ import annotations

from telegram import User

from engine.errors import Rejection
from handlers.telegram.features.records import dossier_allowed, send_dossier
from handlers.telegram.i18n import Raw
from handlers.telegram.screens import render
from handlers.telegram.shared.context import Ctx
from handlers.telegram.shared.page_button import proof_button
from handlers.telegram.shared.send import send
from handlers.telegram.ui import Screen


async def open_proof(context: Ctx, user: User, match_id: str) -> None:
    svc = context.svc
    tr = context.own_tr(user)
    match = svc.deps.repo.load(match_id).match
    button = proof_button(svc, tr, match)
    if button is None:
        await send_dossier(context, match, user, user.id)
        return
    if not dossier_allowed(match, user.id):
        raise Rejection("dossier_not_allowed")
    title = Raw(render.match_title(tr, match))
    await send(context, user.id, Screen(tr("webapp.proof.open", title=title), [[button]]))
