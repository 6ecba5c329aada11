"""The Mini App's buttons (``handlers.webapp``, docs/bot.md "The order page", "The proof
page"): on a private turn message a ``web_app`` button opening the order page for that seat,
when the bot knows the page's URL (``Services.webapp_url``) and the ruleset has a page; the
"📜 Proof" page of a match: a ``web_app`` button in private, and in the group (where Telegram
opens no ``web_app`` button) a link to the bot's private chat, whose ``/start proof_<id>``
answers with that button."""

from __future__ import annotations

from urllib.parse import urlencode

from telegram import User

from engine.match import Match
from handlers.telegram.i18n import Tr
from handlers.telegram.shared.context import Ctx, Services
from handlers.telegram.ui import Button, Screen

# The rulesets with an order page (handlers/webapp/views.py PAGES; a test keeps them equal).
PAGE_RULESETS = frozenset({"pistol", "plans", "dragons"})


def page_url(base: str, match: Match, pid: str) -> str:
    return f"{base}?{urlencode({'m': match.id, 'p': pid})}"


def with_page(svc: Services, tr: Tr, match: Match, pid: str, screen: Screen) -> Screen:
    """``screen`` with the page's button as its last row (the chat's buttons keep their
    places), or unchanged."""
    if not svc.webapp_url or match.ruleset not in PAGE_RULESETS:
        return screen
    button = Button(tr("webapp.btn.open"), web_app=page_url(svc.webapp_url, match, pid))
    return Screen(screen.text, [*screen.rows, [button]])


def proof_url(base: str, match_id: str) -> str:
    return f"{base}?{urlencode({'proof': match_id})}"


def proof_button(svc: Services, tr: Tr, match: Match) -> Button | None:
    """The proof page's ``web_app`` button (private chats only), or None without a page."""
    if not svc.webapp_url:
        return None
    return Button(tr("webapp.btn.proof"), web_app=proof_url(svc.webapp_url, match.id))


def proof_link(context: Ctx, match: Match) -> str | None:
    """For the group's final message: the private chat's deep link that opens the proof."""
    if not context.svc.webapp_url:
        return None
    from handlers.telegram.shared.send import deep_link

    return deep_link(context, f"proof_{match.id}")


async def open_proof(context: Ctx, user: User, match_id: str) -> None:
    """``/start proof_<id>`` (the final message's "📜 Proof" link): the page's button, in
    private, for who may have the record (``/dossier``'s rule). An old link on a bot without
    the page says where the record is."""
    from engine.errors import Rejection
    from handlers.telegram.i18n import Raw
    from handlers.telegram.screens.render import match_title
    from handlers.telegram.shared.dossier_access import dossier_allowed
    from handlers.telegram.shared.send import send

    tr = context.own_tr(user)
    match = context.svc.deps.repo.load(match_id).match
    if not dossier_allowed(match, user.id):
        raise Rejection("dossier_not_allowed")
    button = proof_button(context.svc, tr, match)
    if button is None:
        await send(context, user.id, Screen(tr("webapp.proof.no_page")))
        return
    title = Raw(match_title(tr, match))
    await send(context, user.id, Screen(tr("webapp.proof.open", title=title), [[button]]))
