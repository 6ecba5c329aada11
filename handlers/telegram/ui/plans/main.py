"""The ``plans`` UI object, every layer together (the package loads it lazily)."""

from __future__ import annotations

from handlers.telegram.ui.plans.builder import PlansBuilder


class PlansUI(PlansBuilder):
    ruleset = "plans"
    help_key = "help.plans"


UI = PlansUI()
