"""Ruleset ``dragons``: a dragon dogfight on Savage Worlds (``docs/rules/dragons.md``, D1-D36).
The code lives in the package's modules; this re-exports its public names."""

from engine.rulesets.dragons.config import DragonsConfig
from engine.rulesets.dragons.geometry import (
    AttackCheck,
    MoveOption,
    attack_check,
    distance,
    fall_loss,
    initiative,
    movement_options,
    nearest_target,
)
from engine.rulesets.dragons.orders import Action, DragonOrder
from engine.rulesets.dragons.ruleset import RULESET, DragonsRuleset
from engine.rulesets.dragons.sheet import CharacterSpec, build_stats, presets
from engine.rulesets.dragons.state import Dragon, DragonsState
from engine.rulesets.dragons.typed import parse_typed
from engine.rulesets.dragons.view import sky_chart

__all__ = [
    "RULESET",
    "Action",
    "AttackCheck",
    "CharacterSpec",
    "Dragon",
    "DragonOrder",
    "DragonsConfig",
    "DragonsRuleset",
    "DragonsState",
    "MoveOption",
    "attack_check",
    "build_stats",
    "distance",
    "fall_loss",
    "initiative",
    "movement_options",
    "nearest_target",
    "parse_typed",
    "presets",
    "sky_chart",
]
