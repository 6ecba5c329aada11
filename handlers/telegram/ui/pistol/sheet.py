"""The ``pistol`` character screen: weapon, perk and preset labels, the typed sheet."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.rulesets.pistol import RULESET
from handlers.telegram.i18n import Tr
from handlers.telegram.ui import (
    alias_words,
    aliases,
    parse_words,
)
from handlers.telegram.ui.pistol.common import _label
from handlers.telegram.ui.pistol.lobby import PistolLobby
from handlers.telegram.ui.words import replace_names, shown_names

ALIASES = aliases("pistol")
NAMES = shown_names("weapon.", "perk.", "preset.")  # what the buttons and sheets show


class PistolSheet(PistolLobby):
    def character_label(self, tr: Tr, character: Mapping[str, Any]) -> str:
        weapon = str(character.get("weapon", "?"))
        perks = [_label(tr, "perk", str(p)) for p in character.get("perks", ()) or ()]
        text = _label(tr, "weapon", weapon)
        return f"{text} + {', '.join(perks)}" if perks else text

    def preset_label(self, tr: Tr, preset_id: str, character: Mapping[str, Any]) -> str:
        return f"{_label(tr, 'preset', preset_id)}: {self.character_label(tr, character)}"

    def parse_character(self, words: Sequence[str]) -> dict[str, Any]:
        """``weapon=rifle perks=lucky`` (or JSON), or a preset's name alone; every name the
        bot shows (weapons, perks, presets) and the words of ``pistol/aliases.json`` read in
        either language: ``оружие=винтовка особенности=везунчик``, ``Стрелок``."""
        text = " ".join(words).strip()
        if not text.startswith("{"):
            text = replace_names(NAMES, text)
            presets = RULESET.presets(RULESET.config({}))
            if text.lower() in presets:
                return dict(presets[text.lower()])
            words = alias_words(ALIASES.get("character", {}), text.replace("=", " ")).split()
        sheet = parse_words(words, what="character")
        perks = sheet.get("perks")
        if isinstance(perks, str):
            sheet["perks"] = [perks]
        return sheet
