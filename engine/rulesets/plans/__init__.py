"""The ``plans`` ruleset: the secret-plan duel of magic and fencing (``docs/rules/plans.md``).

Modules (the shape every ruleset shares): :mod:`.config` (every DEFAULT as data), :mod:`.sheet`
(character sheets, presets), :mod:`.state` (state, dump/load), :mod:`.orders` (the sealed plan
and its validation), :mod:`.typed` (typed syntax), :mod:`.resolve` (one turn), :mod:`.choices`
(default and random plans), :mod:`.view` (the text view), :mod:`.ruleset` (the Ruleset); and
its own :mod:`.tables` (probability tables) and :mod:`.preview` (exact success chances for the
order builder).
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
