"""Ruleset ``pistol``: the silhouette duel ("battleship"), rules P1-P20 of
``docs/rules/pistol.md``.

Modules (the shape every ruleset shares, ``docs/rulesets.md``): :mod:`.config` (every DEFAULT
as data), :mod:`.sheet` (character sheet, presets), :mod:`.state` (the state and the rules
precomputed for it), :mod:`.orders` (the order, parsing, validation), :mod:`.resolve` (one
turn), :mod:`.choices` (default and random orders), :mod:`.view` (the text view, the grid),
:mod:`.ruleset` (the Ruleset). This module re-exports the public names.
"""

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
