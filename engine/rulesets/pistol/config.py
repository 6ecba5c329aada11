"""The ``pistol`` configuration: every DEFAULT of ``docs/rules/pistol.md`` as data."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from engine.rulesets.pistol.sheet import CharacterSpec, _default_presets

Part = Literal["head", "torso", "arm", "leg"]
Lethality = Literal["always", "roll", "never"]
PARTS: tuple[str, ...] = ("head", "torso", "arm", "leg")

# --------------------------------------------------------------------------- configuration


class WeaponSpec(BaseModel):
    """A weapon (P12): the aim zone side N (hit dice are dN) and the initiative modifier."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    zone: int = Field(ge=1, le=20)
    speed: int = Field(ge=-10, le=10)
    # P13: lets the shooter pick the cell inside the zone instead of rolling; only honoured
    # when the match config turns ``bot_rolls_all`` off.
    player_rolls: bool = False


class PerkSpec(BaseModel):
    """A perk as data (P17): which hits it shrugs off, which it keeps from being lethal, and how
    it changes the duelist's weapon."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    shrug_parts: tuple[Part, ...] = ()  # hits on these parts are shrugged off ...
    shrug_count: int = Field(default=0, ge=0)  # ... this many times per duel
    never_lethal_parts: tuple[Part, ...] = ()  # hits here wound but never kill
    zone_delta: int = 0  # added to the weapon's zone side (result at least 1)
    speed_delta: int = 0  # added to the weapon's speed


class OrderSpec(BaseModel):
    """An order as configuration data (the default order for a missing duelist)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    move: int
    aim: tuple[int, int]


def _default_weapons() -> dict[str, WeaponSpec]:
    # P12 DEFAULT table.
    return {
        "derringer": WeaponSpec(name="derringer", zone=4, speed=2),
        "pistol": WeaponSpec(name="pistol", zone=3, speed=1),
        "revolver": WeaponSpec(name="revolver", zone=3, speed=1),
        "rifle": WeaponSpec(name="rifle", zone=3, speed=0),
        "dueling_pistol": WeaponSpec(name="dueling pistol (matched pair)", zone=2, speed=0),
    }


def _default_perks() -> dict[str, PerkSpec]:
    # P17 DEFAULT perks.
    return {
        "thick_skinned": PerkSpec(name="thick-skinned", shrug_parts=("arm", "leg"), shrug_count=1),
        "lucky": PerkSpec(name="lucky", never_lethal_parts=("torso",)),
        "steady_hand": PerkSpec(name="steady hand", zone_delta=-1),
    }


def _default_silhouette() -> dict[Part, tuple[tuple[int, int], ...]]:
    # P5: the cells of the silhouette, target-relative (P3, P4).
    return {
        "head": ((0, 1),),
        "torso": ((0, 0), (0, -1)),
        "arm": ((-1, 0), (1, 0)),
        "leg": ((-1, -2), (1, -2)),
    }


def _default_lethality() -> dict[Part, Lethality]:
    # P11: head always lethal, torso by a roll, arm and leg never.
    return {"head": "always", "torso": "roll", "arm": "never", "leg": "never"}


class PistolConfig(BaseModel):
    """Match configuration; every default is a DEFAULT (or a rule) of the rules doc."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    turn_limit: int = Field(default=6, ge=1, le=100)  # P2
    move_max: int = Field(default=2, ge=0, le=10)  # P6: move in [-move_max, move_max]
    aim_min: int = Field(default=-5, ge=-50, le=50)  # P8 DEFAULT aim window (A and B)
    aim_max: int = Field(default=5, ge=-50, le=50)  # P8
    silhouette: dict[Part, tuple[tuple[int, int], ...]] = Field(
        default_factory=_default_silhouette
    )  # P5
    lethality: dict[Part, Lethality] = Field(default_factory=_default_lethality)  # P11
    lethal_roll_sides: int = Field(default=100, ge=2, le=1000)  # P11: torso roll dS ...
    lethal_roll_max: int = Field(default=50, ge=0, le=1000)  # ... lethal when <= this (50%)
    weapons: dict[str, WeaponSpec] = Field(default_factory=_default_weapons)  # P12
    bot_rolls_all: bool = True  # P13 DEFAULT: the bot rolls every die
    initiative_die: int = Field(default=6, ge=1, le=100)  # P14 DEFAULT d6 ...
    initiative_move_penalty: int = Field(default=1, ge=0, le=10)  # ... - |move| x this
    # P14 DEFAULT: equal totals shoot simultaneously (0); N: roll both again at most N times.
    initiative_tie_rerolls: int = Field(default=0, ge=0, le=20)
    perks: dict[str, PerkSpec] = Field(default_factory=_default_perks)  # P17
    max_perks: int | None = Field(default=None, ge=0)  # no limit in the source
    default_order: OrderSpec = OrderSpec(move=0, aim=(0, 0))  # stay, aim at the torso 0:0
    presets: dict[str, CharacterSpec] = Field(default_factory=_default_presets)

    @model_validator(mode="after")
    def _consistent(self) -> PistolConfig:
        if self.aim_min > self.aim_max:
            raise ValueError("aim_min must not be above aim_max")
        if not self.weapons:
            raise ValueError("weapons must not be empty")
        missing = [p for p in PARTS if p in self.silhouette and p not in self.lethality]
        if missing:
            raise ValueError(f"lethality missing for {', '.join(missing)}")
        seen: set[tuple[int, int]] = set()
        for cells in self.silhouette.values():
            for cell in cells:
                if cell in seen:
                    raise ValueError(f"silhouette cell {cell} belongs to two parts")
                seen.add(cell)
        d = self.default_order
        if abs(d.move) > self.move_max or not all(self.aim_min <= v <= self.aim_max for v in d.aim):
            raise ValueError("default_order is outside the move range or aim window")
        return self
