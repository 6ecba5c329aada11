"""Install the toy ``coin`` as a plug-in, the way a fourth ruleset would be added without a
shared module: the engine part through :func:`engine.rulesets.register`, the Telegram UI with
its own catalogs through :func:`handlers.telegram.ui.register`."""

from __future__ import annotations

from pathlib import Path

from engine import rulesets
from handlers.telegram import ui
from tests.support.coin import RULESET
from tests.support.coin.ui import UI

CATALOGS = Path(__file__).with_name("ui") / "locale"


def install() -> None:
    rulesets.register(RULESET)
    ui.register(RULESET.id, UI, catalogs=CATALOGS)


def uninstall() -> None:
    """Remove the UI (the ``/duel`` picker stops offering coin). The engine part stays: the
    core tests play coin without a UI (``tests/conftest.py`` registers it for every test)."""
    ui.unregister(RULESET.id)
