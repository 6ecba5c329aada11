"""The ``dragons`` character screen (D1-D2): sheet and preset labels, the typed sheet."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from engine.errors import Rejection
from engine.match import Match
from engine.rulesets import dragons as dr
from engine.rulesets.dragons import DragonsConfig
from handlers.telegram.i18n import Raw, Tr
from handlers.telegram.ui import (
    esc,
    parse_words,
)
from handlers.telegram.ui.dragons.common import ALIASES, _label, config_of, weapon_name
from handlers.telegram.ui.dragons.lobby import DragonsLobby
from handlers.telegram.ui.words import bare_name, leading_phrase, shown_names

PRESET_NAMES = shown_names("dr.preset.")  # typed in either language (docs/glossary.md)

# --------------------------------------------------------------------------- typed sheets

_DICE_KEYS = ("piloting", "fighting", "shooting", "spirit", "arcane", "strength")
_INT_KEYS = ("top_speed", "toughness", "armor", "speed", "altitude")
_NO = frozenset({"none", "no", "-", "нет"})
_YES = frozenset({"yes", "true", "1", "да"})
_CHARACTER_KEYS = ("preset", "name", "wild_card", *_DICE_KEYS, *_INT_KEYS, "weapon")
WEAPON_SYNTAX = "NAME:DAMAGE[:melee][:apN][:SHORT/MEDIUM/LONG]"


def _weapon(value: str) -> dict[str, Any]:
    """``breath:2d8:ap2:12/24/48`` / ``claws:str+d6:melee`` -> a weapon of the sheet."""
    parts = [p for p in value.split(":") if p]
    if len(parts) < 2:
        raise Rejection("invalid_field", what="character", field="weapon", expected=WEAPON_SYNTAX)
    weapon: dict[str, Any] = {"name": parts[0].lower(), "damage": parts[1]}
    for flag in parts[2:]:
        low = flag.lower()
        if low in ("melee", "ближний"):
            weapon["melee"] = True
        elif low.startswith("ap") and low[2:].isdigit():
            weapon["ap"] = int(low[2:])
        elif low.count("/") == 2 and all(b.isdigit() for b in low.split("/")):
            weapon["range"] = [int(b) for b in low.split("/")]
        else:
            raise Rejection(
                "invalid_field", what="character", field="weapon", expected=WEAPON_SYNTAX
            )
    return weapon


def parse_character_words(words: Sequence[str]) -> dict[str, Any]:
    """The typed stat block (see :meth:`DragonsUI.parse_character`); every value is checked
    later by the ruleset (:class:`engine.rulesets.dragons.CharacterSpec`)."""
    text = " ".join(words).strip()
    if not text or text.startswith("{"):
        return parse_words(words, what="character")
    known = dr.presets(DragonsConfig())
    aliases = {**PRESET_NAMES, **ALIASES.get("character", {})}
    sheet: dict[str, Any] = {}
    rest = list(words)
    found = leading_phrase(PRESET_NAMES, rest)  # a preset's shown name: "Боевой дракон"
    if found is not None:
        rest = [found[0], *rest[found[1] :]]
    first = aliases.get(rest[0].lower(), rest[0].lower())
    if "=" not in rest[0] and first in known:
        sheet, rest = dict(known[first]), rest[1:]
    weapons: list[dict[str, Any]] | None = None
    for w in rest:
        raw_key, eq, value = w.partition("=")
        key = aliases.get(raw_key.lower(), raw_key.lower())
        if not eq or not value:
            raise Rejection("typed_pairs", what="character", word=w)
        if key not in _CHARACTER_KEYS:
            expected = ", ".join(_CHARACTER_KEYS)
            raise Rejection("character_unknown_word", word=raw_key, expected=expected)
        if key == "preset":
            base = known.get(aliases.get(value.lower(), value.lower()))
            if base is None:
                raise Rejection(
                    "invalid_field", what="character", field="preset", expected=", ".join(known)
                )
            sheet = {**base, **sheet}
        elif key == "name":
            sheet["name"] = value.replace("_", " ")
        elif key == "wild_card":
            sheet["wild_card"] = value.lower() in _YES
        elif key in _DICE_KEYS:
            sheet[key] = None if value.lower() in _NO and key != "spirit" else value.lower()
        elif key in _INT_KEYS:
            try:
                sheet[key] = int(value)
            except ValueError:
                raise Rejection(
                    "invalid_field", what="character", field=key, expected="a whole number"
                ) from None
        else:
            weapons = [*(weapons or []), _weapon(value)]
    if weapons is not None:
        sheet["weapons"] = weapons
    return sheet


def damage_words(tr: Tr, damage: str) -> str:
    """A damage formula in the reader's words: ``str+d6`` -> "Сила+d6" (the dice stay)."""
    return esc(re.sub(r"\bstr\b", tr("dr.damage_strength"), damage, flags=re.I))


def preset_name(tr: Tr, name: str | None) -> str | None:
    """A sheet's name in the reader's words when it is a preset's own name ("War dragon" ->
    "Боевой дракон"); a name the player gave is kept."""
    for pid, sheet in dr.presets(DragonsConfig()).items():
        if name and name == sheet.get("name") and tr.has(f"dr.preset.{pid}"):
            return bare_name(tr(f"dr.preset.{pid}"))
    return name


def format_character(sheet: Mapping[str, Any]) -> str:
    """A sheet in the typed syntax (inverse of :func:`parse_character_words`)."""
    words = []
    if sheet.get("name"):
        words.append("name=" + str(sheet["name"]).replace(" ", "_"))
    if sheet.get("wild_card") is False:
        words.append("wild_card=no")
    for key in (*_DICE_KEYS, *_INT_KEYS):
        if key in sheet:
            value = sheet[key]
            words.append(f"{key}={'none' if value is None else value}")
    for w in sheet.get("weapons") or ():
        parts = [str(w["name"]), str(w["damage"])]
        if w.get("melee"):
            parts.append("melee")
        if w.get("ap"):
            parts.append(f"ap{w['ap']}")
        if w.get("range"):
            parts.append("/".join(str(b) for b in w["range"]))
        words.append("weapon=" + ":".join(parts))
    return " ".join(words)


class DragonsSheet(DragonsLobby):
    def character_label(self, tr: Tr, character: Mapping[str, Any]) -> str:
        try:
            spec = dr.CharacterSpec.model_validate(character)
        except ValueError:
            return super().character_label(tr, character)
        weapons = ", ".join(
            f"{weapon_name(tr, w.name)} {damage_words(tr, w.damage)}"
            + (f" {tr('dr.ap', n=w.ap)}" if w.ap else "")
            + (f" {w.range[0]}/{w.range[1]}/{w.range[2]}" if w.range else "")
            for w in spec.weapons
        )
        return tr(
            "dr.sheet",
            name=preset_name(tr, spec.name) or "—",
            kind=tr("dr.wild_card" if spec.wild_card else "dr.extra"),
            piloting=spec.piloting or "—",
            fighting=spec.fighting or "—",
            shooting=spec.shooting or "—",
            spirit=spec.spirit,
            top=spec.top_speed,
            toughness=spec.toughness,
            armor=spec.armor,
            strength=spec.strength,
            weapons=Raw(weapons),
            speed=spec.speed,
            altitude=spec.altitude,
        )

    def sheet_name(self, tr: Tr, name: str) -> str:
        return preset_name(tr, name) or name

    def preset_label(self, tr: Tr, preset_id: str, character: Mapping[str, Any]) -> str:
        return _label(tr, f"dr.preset.{preset_id}", preset_id)

    def parse_character(self, words: Sequence[str]) -> dict[str, Any]:
        """A stat block (D1-D2, docs/rules/dragons.md "Typed characters"): JSON, or words - an
        optional preset first, then ``key=value`` edits (``young name=Ember piloting=d10
        weapon=breath:2d8:12/24/48 weapon=claws:str+d6:melee``)."""
        return parse_character_words(words)

    def character_words(self, match: Match) -> str:
        """The first preset written out in full in the typed syntax (every key), renamed."""
        sheet = dict(next(iter(dr.presets(config_of(match)).values())))
        sheet["name"] = "Ember"
        return format_character(sheet)
