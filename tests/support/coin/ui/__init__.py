"""Telegram UI of the toy ``coin`` ruleset, in the package shape of every ruleset UI
(``docs/rulesets.md``): :mod:`.sheet` (character labels), :mod:`.builder` (the order builder
keyboards), :mod:`.typed` (typed orders), :mod:`.reveal` (the reveal); its messages in
``locale/`` (``ru.po``, ``en.po``), added to the bot's catalogs when it registers
(:mod:`tests.support.coin.plugin`), so no shared catalog names the toy."""

from __future__ import annotations

from tests.support.coin.ui.builder import CoinBuilder
from tests.support.coin.ui.reveal import CoinReveal
from tests.support.coin.ui.sheet import CoinSheet
from tests.support.coin.ui.typed import CoinTyped


class CoinUI(CoinSheet, CoinBuilder, CoinTyped, CoinReveal):
    ruleset = "coin"
    help_key = "help.coin"


UI = CoinUI()
