"""The ``plans`` ruleset: the secret-plan duel of magic and fencing (``docs/rules/plans.md``).

Modules: :mod:`.config` (every DEFAULT as data), :mod:`.sheet` (character sheets, presets),
:mod:`.orders` (the sealed plan and its validation), :mod:`.resolve` (one turn),
:mod:`.preview` (exact success chances for the order builder), :mod:`.typed` (typed syntax).
"""

from engine.rulesets.plans.config import PlansConfig
from engine.rulesets.plans.orders import Plan
from engine.rulesets.plans.preview import PlanPreview
from engine.rulesets.plans.ruleset import RULESET, PlansRuleset
from engine.rulesets.plans.state import Fighter, PlansState
from engine.rulesets.plans.typed import format_typed, parse_typed

__all__ = [
    "RULESET",
    "Fighter",
    "Plan",
    "PlanPreview",
    "PlansConfig",
    "PlansRuleset",
    "PlansState",
    "format_typed",
    "parse_typed",
]
