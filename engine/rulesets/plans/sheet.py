"""Character sheets (C1, C2): nine attributes, skills usable with groups, a weapon; presets."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from engine.errors import Rejection, parse_model
from engine.rulesets.plans.config import ATTRIBUTES, GROUP_INDEX, GROUPS, Group, PlansConfig


class SkillModel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    level: int = Field(ge=0)
    groups: tuple[Group, ...] = Field(min_length=1)


class WeaponModel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field("", max_length=60)
    lethality: int = Field(0, ge=0)


class CharacterModel(BaseModel):
    """A character sheet as entered (JSON). Attributes by name; skills by id."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field("", max_length=60)
    attributes: dict[str, int]
    skills: dict[str, SkillModel] = Field(min_length=1)
    weapon: WeaponModel | None = None


@dataclass(frozen=True, slots=True)
class Skill:
    id: str
    level: int
    groups: tuple[int, ...]  # group indexes the skill can be used with (C2, C10)


@dataclass(frozen=True, slots=True)
class Sheet:
    """A validated sheet. ``attrs`` holds the nine attributes in :data:`ATTRIBUTES` order, so
    group ``g`` has accuracy ``attrs[3g]``, impact ``attrs[3g+1]``, reserve ``attrs[3g+2]``."""

    name: str
    attrs: tuple[int, ...]
    skills: tuple[Skill, ...]
    weapon: str
    lethality: int

    def skill(self, skill_id: str) -> Skill | None:
        for s in self.skills:
            if s.id == skill_id:
                return s
        return None

    def accuracy(self, g: int) -> int:
        return self.attrs[3 * g]

    def impact(self, g: int) -> int:
        return self.attrs[3 * g + 1]

    def reserve(self, g: int) -> int:
        return self.attrs[3 * g + 2]

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "attributes": dict(zip(ATTRIBUTES, self.attrs, strict=True)),
            "skills": {
                s.id: {"level": s.level, "groups": [GROUPS[g] for g in s.groups]}
                for s in self.skills
            },
            "weapon": {"name": self.weapon, "lethality": self.lethality},
        }


_SHEETS: dict[int, tuple[PlansConfig, Any, Sheet]] = {}


def check_sheet(config: PlansConfig, raw: Mapping[str, Any]) -> Sheet:
    """Validate a character sheet; raises :class:`Rejection` naming what is wrong.

    Memoised by the identity of ``raw`` and checked by value on every hit (the simulator sets
    up thousands of duels from the same two sheets; validation is most of a setup's cost)."""
    hit = _SHEETS.get(id(raw))
    if hit is not None and (hit[0] is config or hit[0] == config) and hit[1] == raw:
        return hit[2]
    sheet = _check_sheet(config, raw)
    if len(_SHEETS) > 256:
        _SHEETS.clear()
    _SHEETS[id(raw)] = (config, copy.deepcopy(raw), sheet)
    return sheet


def _check_sheet(config: PlansConfig, raw: Mapping[str, Any]) -> Sheet:
    model = parse_model(CharacterModel, raw, what="character")
    for name in model.attributes:
        if name not in ATTRIBUTES:
            raise Rejection("unknown_attribute", attribute=name, expected=", ".join(ATTRIBUTES))
    attrs = []
    for name in ATTRIBUTES:
        if name not in model.attributes:
            raise Rejection("attribute_missing", attribute=name)
        value = model.attributes[name]
        if not 0 <= value <= config.attribute_max:
            raise Rejection(
                "attribute_out_of_range",
                attribute=name,
                value=value,
                min=0,
                max=config.attribute_max,
            )
        attrs.append(value)
    if len(model.skills) > config.max_skills:
        raise Rejection("too_many_skills", count=len(model.skills), max=config.max_skills)
    skills = []
    for sid, skill in model.skills.items():
        if not sid.strip() or any(c.isspace() or c in "/:+" for c in sid):
            raise Rejection("bad_skill_id", skill=sid, expected="one word without / : +")
        if skill.level > config.skill_level_max:
            raise Rejection(
                "skill_level_out_of_range", skill=sid, value=skill.level, max=config.skill_level_max
            )
        groups = tuple(sorted({GROUP_INDEX[g] for g in skill.groups}))
        skills.append(Skill(sid, skill.level, groups))
    weapon = model.weapon or WeaponModel(lethality=config.unarmed_lethality)
    if weapon.lethality > config.lethality_max:
        raise Rejection("lethality_out_of_range", value=weapon.lethality, max=config.lethality_max)
    return Sheet(model.name, tuple(attrs), tuple(skills), weapon.name, weapon.lethality)


def _attrs(*values: int) -> dict[str, int]:
    return dict(zip(ATTRIBUTES, values, strict=True))


# Presets: archetypes to start quickly. Attribute order per group: accuracy, impact, reserve.
PRESETS: dict[str, dict[str, Any]] = {
    "fencer": {
        "name": "Fencer",
        "attributes": _attrs(4, 3, 4, 1, 1, 2, 3, 2, 2),
        "skills": {
            "fencing": {"level": 3, "groups": ["physical"]},
            "feint": {"level": 2, "groups": ["physical", "mental"]},
            "athletics": {"level": 1, "groups": ["physical"]},
        },
        "weapon": {"name": "rapier", "lethality": 1},
    },
    "pyromancer": {
        "name": "Pyromancer",
        "attributes": _attrs(1, 1, 2, 4, 4, 4, 2, 2, 2),
        "skills": {
            "pyromancy": {"level": 3, "groups": ["magical"]},
            "wards": {"level": 2, "groups": ["magical", "mental"]},
            "staff": {"level": 1, "groups": ["physical"]},
        },
        "weapon": {"name": "ember staff", "lethality": 1},
    },
    "mentalist": {
        "name": "Mentalist",
        "attributes": _attrs(2, 1, 2, 2, 2, 2, 4, 4, 4),
        "skills": {
            "telepathy": {"level": 3, "groups": ["mental"]},
            "illusion": {"level": 2, "groups": ["mental", "magical"]},
            "dagger": {"level": 1, "groups": ["physical"]},
        },
        "weapon": {"name": "dagger", "lethality": 0},
    },
    "spellblade": {
        "name": "Spellblade",
        "attributes": _attrs(3, 2, 3, 3, 2, 3, 2, 2, 2),
        "skills": {
            "fencing": {"level": 2, "groups": ["physical", "magical"]},
            "telekinesis": {"level": 2, "groups": ["magical", "physical"]},
            "focus": {"level": 1, "groups": ["mental"]},
        },
        "weapon": {"name": "runed sword", "lethality": 1},
    },
}
