"""The order page's button (``handlers.webapp``, docs/bot.md "The order page") on a private
turn message: a ``web_app`` button opening the page for that seat, when the bot knows the
page's URL (``Services.webapp_url``) and the ruleset has a page."""

from __future__ import annotations

from urllib.parse import urlencode

from engine.match import Match
from handlers.telegram.i18n import Tr
from handlers.telegram.shared.context import Services
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
