"""The ``pistol`` character screen: weapon, perk and preset labels, the typed sheet."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from handlers.telegram.i18n import Tr
from handlers.telegram.ui import (
    parse_words,
)
from handlers.telegram.ui.pistol.common import _label
from handlers.telegram.ui.pistol.lobby import PistolLobby


class PistolSheet(PistolLobby):
    def character_label(self, tr: Tr, character: Mapping[str, Any]) -> str:
        weapon = str(character.get("weapon", "?"))
        perks = [_label(tr, "perk", str(p)) for p in character.get("perks", ()) or ()]
        text = _label(tr, "weapon", weapon)
        return f"{text} + {', '.join(perks)}" if perks else text

    def preset_label(self, tr: Tr, preset_id: str, character: Mapping[str, Any]) -> str:
        return f"{_label(tr, 'preset', preset_id)}: {self.character_label(tr, character)}"

    def parse_character(self, words: Sequence[str]) -> dict[str, Any]:
        sheet = parse_words(words, what="character")
        perks = sheet.get("perks")
        if isinstance(perks, str):
            sheet["perks"] = [perks]
        return sheet
