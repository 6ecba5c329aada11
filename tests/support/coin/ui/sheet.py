"""The ``coin`` character screen: preset and sheet labels (K3)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from handlers.telegram.i18n import Tr
from handlers.telegram.ui import RulesetUI


class CoinSheet(RulesetUI):
    def character_label(self, tr: Tr, character: Mapping[str, Any]) -> str:
        return tr("coin.lucky" if character.get("lucky") else "coin.plain")

    def preset_label(self, tr: Tr, preset_id: str, character: Mapping[str, Any]) -> str:
        return self.character_label(tr, character)

    def character_example(self) -> str:
        return "/character lucky=true"
