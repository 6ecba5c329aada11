"""Ruleset ``pistol``: the silhouette duel ("battleship"), rules P1-P20 of
``docs/rules/pistol.md``. The code lives in the package's modules; this re-exports its public
names."""

from engine.rulesets.pistol.config import (
    PARTS,
    Lethality,
    OrderSpec,
    Part,
    PerkSpec,
    PistolConfig,
    WeaponSpec,
)
from engine.rulesets.pistol.orders import PistolOrder
from engine.rulesets.pistol.ruleset import RULESET, PistolRuleset
from engine.rulesets.pistol.sheet import CharacterSpec
from engine.rulesets.pistol.state import Duelist, PistolState, Rules
from engine.rulesets.pistol.view import render_grid

__all__ = [
    "PARTS",
    "RULESET",
    "CharacterSpec",
    "Duelist",
    "Lethality",
    "OrderSpec",
    "Part",
    "PerkSpec",
    "PistolConfig",
    "PistolOrder",
    "PistolRuleset",
    "PistolState",
    "Rules",
    "WeaponSpec",
    "render_grid",
]
