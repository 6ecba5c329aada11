"""The ``dragons`` character sheet (D1): weapons, pilot and dragon stats, presets (D2)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from engine.errors import Rejection
from engine.rulesets.dragons.config import DragonsConfig
from engine.savage import (
    DamageSpec,
    Die,
    parry,
    parse_damage,
    parse_die,
)

# --------------------------------------------------------------------------- characters (D1)


class WeaponSpec(BaseModel):
    """A dragon weapon. Ranged weapons have bands in D19 units (D20); melee damage may use the
    dragon's Strength (``str+d8``, decision 26)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(pattern=r"^[a-z][a-z0-9_-]{0,19}$")
    melee: bool = False
    damage: str
    ap: int = Field(0, ge=0, le=20)
    range: tuple[int, int, int] | None = None


class CharacterSpec(BaseModel):
    """A pilot on a dragon (D1). The pilot rolls every trait (decision 2); the dragon supplies
    Top Speed, Toughness (armour included), Strength and weapons. A missing skill is unskilled.
    ``speed``/``altitude`` are the starting position (Altitude is relative, D5)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field("", max_length=40)
    wild_card: bool = True
    piloting: str | None = "d6"
    fighting: str | None = "d6"
    shooting: str | None = "d6"
    spirit: str = "d6"
    arcane: str | None = None
    top_speed: int = Field(10, ge=1, le=60)
    toughness: int = Field(10, ge=1, le=40)
    armor: int = Field(0, ge=0, le=20)
    strength: str = "d10"
    weapons: tuple[WeaponSpec, ...] = Field(min_length=1, max_length=6)
    speed: int = Field(5, ge=0, le=60)
    altitude: int = Field(10, ge=-1000, le=1000)


@dataclass(frozen=True, slots=True)
class Weapon:
    name: str
    melee: bool
    damage: DamageSpec
    ap: int
    bands: tuple[int, int, int] | None


@dataclass(frozen=True, slots=True)
class Stats:
    """A parsed stat block (what resolution needs), with the sheet it came from."""

    spec: CharacterSpec
    piloting: Die | None
    fighting: Die | None
    shooting: Die | None
    spirit: Die
    arcane: Die | None
    strength: Die
    weapons: tuple[Weapon, ...]
    parry: int
    # The sheet's numbers resolution reads every turn, as plain slots: a pydantic model's
    # attributes go through its __getattr__ hook, several times slower.
    top_speed: int
    toughness: int
    armor: int
    # Random orders ask every turn what the weapons reach (all of them working): whether one
    # is melee, and the longest Long band of a ranged one (-1: none).
    melee: bool
    long_band: int

    def weapon(self, name: str) -> Weapon | None:
        for w in self.weapons:
            if w.name == name:
                return w
        return None


def build_stats(spec: CharacterSpec) -> Stats:
    """Parse a sheet; raises :class:`Rejection` with the field and what was expected."""

    def die(name: str, value: str | None) -> Die | None:
        return None if value is None else parse_die(value, field=name)

    if spec.armor > spec.toughness:
        raise Rejection("armor_exceeds_toughness", armor=spec.armor, toughness=spec.toughness)
    if spec.speed > spec.top_speed:
        raise Rejection("speed_above_top_speed", speed=spec.speed, top_speed=spec.top_speed)
    weapons: list[Weapon] = []
    for i, w in enumerate(spec.weapons):
        where = f"weapons.{i}"
        if any(w.name == other.name for other in spec.weapons[:i]):
            raise Rejection("duplicate_weapon", field=f"{where}.name", weapon=w.name)
        dmg = parse_damage(w.damage, field=f"{where}.damage")
        if w.melee:
            weapons.append(Weapon(w.name, True, dmg, w.ap, None))
            continue
        if dmg.strength:
            raise Rejection("ranged_damage_uses_strength", field=f"{where}.damage", weapon=w.name)
        if w.range is None:
            raise Rejection("ranged_weapon_needs_range", field=f"{where}.range", weapon=w.name)
        s, m, lg = w.range
        if not 0 < s <= m <= lg:
            raise Rejection(
                "bad_range_bands", field=f"{where}.range", expected="0 < short <= medium <= long"
            )
        weapons.append(Weapon(w.name, False, dmg, w.ap, w.range))
    fighting = die("fighting", spec.fighting)
    return Stats(
        spec=spec,
        piloting=die("piloting", spec.piloting),
        fighting=fighting,
        shooting=die("shooting", spec.shooting),
        spirit=parse_die(spec.spirit, field="spirit"),
        arcane=die("arcane", spec.arcane),
        strength=parse_die(spec.strength, field="strength"),
        weapons=tuple(weapons),
        parry=parry(fighting),  # D21 / decision 25
        top_speed=spec.top_speed,
        toughness=spec.toughness,
        armor=spec.armor,
        melee=any(w.melee for w in weapons),
        long_band=max((w.bands[2] for w in weapons if w.bands is not None), default=-1),
    )


def presets(config: DragonsConfig) -> dict[str, dict[str, Any]]:
    """D2 DEFAULT: a young dragon and a war dragon, each with a pilot (every number editable),
    and a nameless raider (an Extra) for GM crowds."""
    bands = list(config.default_breath_bands)
    return {
        "young": {
            "name": "Young dragon",
            "wild_card": True,
            "piloting": "d8",
            "fighting": "d6",
            "shooting": "d8",
            "spirit": "d6",
            "top_speed": 10,
            "toughness": 9,
            "armor": 2,
            "strength": "d10",
            "weapons": [
                {"name": "breath", "damage": "2d8", "range": bands},
                {"name": "claws", "melee": True, "damage": "str+d6"},
            ],
            "speed": 6,
            "altitude": 10,
        },
        "war": {
            "name": "War dragon",
            "wild_card": True,
            "piloting": "d6",
            "fighting": "d8",
            "shooting": "d8",
            "spirit": "d8",
            "top_speed": 8,
            "toughness": 12,
            "armor": 4,
            "strength": "d12",
            "weapons": [
                {"name": "breath", "damage": "3d6", "ap": 2, "range": bands},
                {"name": "bite", "melee": True, "damage": "str+d8", "ap": 2},
            ],
            "speed": 5,
            "altitude": 10,
        },
        "raider": {
            "name": "Raider",
            "wild_card": False,
            "piloting": "d6",
            "fighting": "d6",
            "shooting": "d6",
            "spirit": "d6",
            "top_speed": 10,
            "toughness": 8,
            "armor": 1,
            "strength": "d8",
            "weapons": [
                {"name": "breath", "damage": "2d6", "range": bands},
                {"name": "claws", "melee": True, "damage": "str+d4"},
            ],
            "speed": 6,
            "altitude": 10,
        },
    }
