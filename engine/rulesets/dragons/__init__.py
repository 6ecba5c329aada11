"""Ruleset ``dragons``: a dragon dogfight on Savage Worlds (``docs/rules/dragons.md``, D1-D36).

Modules (the shape every ruleset shares, ``docs/rulesets.md``): :mod:`.config` (every DEFAULT
as data), :mod:`.sheet` (character sheet, stats, presets), :mod:`.state` (state, dump/load),
:mod:`.orders` (the order, parsing, validation), :mod:`.typed` (typed syntax), :mod:`.resolve`
(one turn), :mod:`.choices` (default and random orders), :mod:`.view` (the text view, the sky
chart), :mod:`.ruleset` (the Ruleset); its own :mod:`.geometry` (distance, range bands,
movements, attack checks, initiative) and the resolution's layers :mod:`.turn` and
:mod:`.combat`. This module re-exports the public names.
"""

from engine.rulesets.dragons.config import DragonsConfig
from engine.rulesets.dragons.foresight import action_problems
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
from engine.rulesets.dragons.typed import parse_typed, typed_command
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
    "action_problems",
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
    "typed_command",
]
