"""The 🎲 Odds button of the lobby (pure), apart from its handler (:mod:`.odds`, which uses
the bot's helpers): the lobby screen (:mod:`.render`) shows the button without importing the
bot, as with the clock's :mod:`.clock_text` and :mod:`.clock`."""

from __future__ import annotations

from engine.match import Match
from handlers.telegram.callbacks import Callback
from handlers.telegram.i18n import Tr
from handlers.telegram.ui import Button

KIND = "odds"  # the button's callback kind (wire format: buttons live in chats)


def lobby_rows(tr: Tr, match: Match) -> list[list[Button]]:
    """The lobby's 🎲 Odds button."""
    return [[Button(tr("odds.button"), Callback(KIND, match.id))]]
