"""Ruleset ``pistol``: the silhouette duel ("battleship"), rules P1-P20 of
``docs/rules/pistol.md``. The code lives in the package's modules; this re-exports its public
names."""

from engine.rulesets.pistol.ruleset import (
    PARTS,
    RULESET,
    CharacterSpec,
    Duelist,
    Lethality,
    OrderSpec,
    Part,
    PerkSpec,
    PistolConfig,
    PistolOrder,
    PistolRuleset,
    PistolState,
    Rules,
    WeaponSpec,
    render_grid,
)

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
