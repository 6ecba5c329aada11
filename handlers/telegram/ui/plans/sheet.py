"""The ``plans`` character screen: sheet and preset labels, the typed sheet."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.errors import Rejection
from engine.rulesets.plans.config import ATTRIBUTES, GROUP_ATTRIBUTES, GROUPS
from engine.rulesets.plans.sheet import PRESETS
from engine.rulesets.plans.typed import GROUP_WORDS
from handlers.telegram.i18n import Raw, Tr
from handlers.telegram.ui import (
    esc,
    parse_words,
)
from handlers.telegram.ui.plans.common import ICON, skill_name, weapon_name
from handlers.telegram.ui.plans.lobby import PlansLobby
from handlers.telegram.ui.words import bare_name, shown_names

# The names the bot shows, typed in either language (docs/glossary.md).
PRESET_NAMES = shown_names("plans.preset.")
SKILL_NAMES = shown_names("plans.skill.")
WEAPON_NAMES = shown_names("plans.weapon.")

# Typed sheets: short and Russian names of the nine attributes (C1).
ATTRIBUTE_WORDS: dict[str, str] = {
    **{a: a for a in ATTRIBUTES},
    **{a[:3]: a for a in ATTRIBUTES},
    "src": "source",
    "ловкость": "dexterity", "сила": "strength", "выносливость": "stamina",
    "искусность": "artistry", "одарённость": "giftedness", "одаренность": "giftedness",
    "исток": "source", "реакция": "reaction", "концентрация": "concentration", "воля": "will",
}  # fmt: skip


def preset_name(tr: Tr, name: Any) -> str | None:
    """A sheet's name in the reader's words when it is a preset's own name ("Pyromancer" ->
    "Пиромант"); a name the player gave is kept."""
    for pid, sheet in PRESETS.items():
        if name and name == sheet.get("name") and tr.has(f"plans.preset.{pid}"):
            return bare_name(tr(f"plans.preset.{pid}"))
    return str(name) if name else None


def _is_int(text: str) -> bool:
    try:
        int(text)
    except ValueError:
        return False
    return True


class PlansSheet(PlansLobby):
    # --- characters (C1, C2) -------------------------------------------------------------------

    def character_label(self, tr: Tr, character: Mapping[str, Any]) -> str:
        attrs = character.get("attributes") or {}
        blocks = []
        for g in GROUPS:
            values = "/".join(str(attrs.get(a, "?")) for a in GROUP_ATTRIBUTES[g])
            blocks.append(f"{ICON[g]}{values}")
        skills = ", ".join(
            f"{skill_name(tr, sid)} {esc((s or {}).get('level', '?'))}"
            for sid, s in (character.get("skills") or {}).items()
        )
        weapon = character.get("weapon") or {}
        name = esc(preset_name(tr, character.get("name")) or "")
        return tr(
            "plans.character",
            name=Raw(f"<b>{name}</b> " if name else ""),
            groups=" ".join(blocks),
            skills=Raw(skills or "—"),
            weapon=Raw(weapon_name(tr, weapon.get("name")) if weapon.get("name") else "")
            or tr("plans.unarmed"),
            lethality=int(weapon.get("lethality", 0) or 0),
        )

    def sheet_name(self, tr: Tr, name: str) -> str:
        return preset_name(tr, name) or name

    def preset_label(self, tr: Tr, preset_id: str, character: Mapping[str, Any]) -> str:
        # Button labels are plain text: no HTML here.
        name = tr(f"plans.preset.{preset_id}") if tr.has(f"plans.preset.{preset_id}") else preset_id
        skills = ", ".join(
            f"{skill_name(tr, sid)} {s['level']}" for sid, s in character["skills"].items()
        )
        return f"{name}: {skills}"

    def character_example(self) -> str:
        return "/character preset=fencer name=Ivan dex=5 fencing=4:physical weapon=saber:2"

    def parse_character(self, words: Sequence[str]) -> dict[str, Any]:
        """A typed sheet: JSON, or ``key=value`` words. ``preset=ID`` starts from a preset;
        ``attrs=9,numbers`` (C1 order) or ``dex=4 str=3 …``; ``SKILL=LEVEL:GROUP[,GROUP]``;
        ``weapon=NAME:LETHALITY``; ``name=NAME`` (``_`` for spaces)."""
        text = " ".join(words).strip()
        if text.startswith("{") or not text:
            return parse_words(words, what="character")
        sheet: dict[str, Any] = {"attributes": {}, "skills": {}}
        pairs: list[tuple[str, str]] = []
        for w in words:
            key, eq, value = w.partition("=")
            if not eq or not value:
                raise Rejection("typed_pairs", what="character", word=w)
            key = key.lower()
            key = {"заготовка": "preset", "имя": "name"}.get(key, SKILL_NAMES.get(key, key))
            pairs.append((key, value))
        for key, value in pairs:  # the preset first, whatever its position
            if key == "preset":
                base = PRESETS.get(PRESET_NAMES.get(value.lower(), value.lower()))
                if base is None:
                    raise Rejection(
                        "invalid_field",
                        what="character",
                        field="preset",
                        expected=", ".join(PRESETS),
                    )
                sheet = {
                    "name": base["name"],
                    "attributes": dict(base["attributes"]),
                    "skills": {k: dict(v) for k, v in base["skills"].items()},
                    "weapon": dict(base["weapon"]),
                }
        for key, value in pairs:
            if key == "preset":
                continue
            if key == "name":
                sheet["name"] = value.replace("_", " ")
            elif key in ("attrs", "attributes"):
                nums = value.split(",")
                if len(nums) != len(ATTRIBUTES) or not all(_is_int(n) for n in nums):
                    raise Rejection(
                        "invalid_field",
                        what="character",
                        field="attrs",
                        expected="9 numbers: " + ",".join(ATTRIBUTES),
                    )
                sheet["attributes"] = dict(zip(ATTRIBUTES, map(int, nums), strict=True))
            elif key in ATTRIBUTE_WORDS:
                if not _is_int(value):
                    raise Rejection(
                        "invalid_field",
                        what="character",
                        field=ATTRIBUTE_WORDS[key],
                        expected="a number",
                    )
                sheet["attributes"][ATTRIBUTE_WORDS[key]] = int(value)
            elif key in ("weapon", "оружие"):
                wname, _, leth = value.rpartition(":")
                if not wname or not _is_int(leth):
                    raise Rejection(
                        "invalid_field", what="character", field="weapon", expected="NAME:LETHALITY"
                    )
                wname = WEAPON_NAMES.get(wname.lower(), wname.replace("_", " "))
                sheet["weapon"] = {"name": wname, "lethality": int(leth)}
            else:  # a skill: LEVEL:GROUP[,GROUP]
                level, colon, groups = value.partition(":")
                names = [GROUP_WORDS.get(g.lower()) for g in groups.split(",") if g]
                if not colon or not _is_int(level) or not names or None in names:
                    raise Rejection(
                        "invalid_field",
                        what="character",
                        field=f"skills.{key}",
                        expected="LEVEL:GROUP[,GROUP] (" + ", ".join(GROUPS) + ")",
                    )
                sheet["skills"][key] = {"level": int(level), "groups": names}
        return sheet
