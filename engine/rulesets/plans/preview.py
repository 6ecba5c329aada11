"""The order builder's confirmation screen: a plan's action pool and the EXACT chance of at
least 1, 2, 3… successes on its action check (C8-C13), computed with fractions."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from engine.probability import Step, at_least, distribution
from engine.rulesets.plans.config import GROUP_INDEX, PlansConfig
from engine.rulesets.plans.orders import Plan
from engine.rulesets.plans.sheet import Sheet


@dataclass(frozen=True, slots=True)
class PlanPreview:
    """``at_least[k - 1]`` is the exact chance of at least ``k`` final successes."""

    pool: int
    accuracy: int  # 0 when the group's reserve is empty (C8)
    skill: int
    second: int
    group_paid: bool
    steps: tuple[Step, ...]  # the modifiers known from the own plan, in C13 order
    damage_pool: int  # the damage pool if this action check wins (C14; before any effect)
    at_least: tuple[Fraction, ...]

    def percent(self) -> tuple[float, ...]:
        """The same chances as rounded percentages, for display."""
        return tuple(round(float(p) * 100, 1) for p in self.at_least)


def steps_for(config: PlansConfig, action: str, guess_diff: int = 0) -> tuple[Step, ...]:
    """C13: the modifier pipeline after raw successes for ``action`` and a guessing difference
    (unknown before the reveal: the screen shows ``guess_diff = 0`` unless asked)."""
    out: list[Step] = []
    for mod in config.modifier_order:
        if mod == "cunning":
            if action == "cunning" and config.cunning_auto_successes:
                out.append(("add", config.cunning_auto_successes))
        elif mod == "guess":
            if guess_diff == 1:
                out.append(("add", config.guess_bonus_d1))
            elif guess_diff >= 2:
                if config.guess_bonuses_stack:
                    out.append(("add", config.guess_bonus_d1))
                mul = config.guess_multiplier_d2 if guess_diff == 2 else config.guess_multiplier_d3
                out.append(("mul", mul))
        elif action == "defensive":
            out.append(("mul", config.defensive_multiplier))
    return tuple(out)


def preview_plan(
    config: PlansConfig,
    sheet: Sheet,
    reserves: tuple[int, ...],
    plan: Plan,
    guess_diff: int = 0,
) -> PlanPreview:
    """The pool of ``plan`` for a duelist with ``sheet`` and ``reserves`` and its exact chances."""
    g = GROUP_INDEX[plan.group]
    paid = reserves[g] > 0
    accuracy = sheet.accuracy(g) if paid else 0
    primary = sheet.skill(plan.skill)
    skill = primary.level if primary else 0
    second = 0
    if plan.second_skill is not None and plan.second_group is not None:
        s2 = sheet.skill(plan.second_skill)
        if s2 is not None and reserves[GROUP_INDEX[plan.second_group]] > 0:
            second = s2.level
    pool = accuracy + skill + second
    steps = steps_for(config, plan.action, guess_diff)
    dist = distribution(pool, config.success_target, config.dice_sides, steps)
    impact = sheet.impact(g) if paid else config.empty_group_damage_pool
    lethality = sheet.lethality + (
        config.precise_lethality_bonus if plan.action == "precise" else 0
    )
    damage_pool = impact + (lethality if config.lethality_mode == "dice" else 0)
    return PlanPreview(pool, accuracy, skill, second, paid, steps, damage_pool, at_least(dist))
