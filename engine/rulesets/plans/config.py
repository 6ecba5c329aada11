"""Configuration of the ``plans`` ruleset: every DEFAULT (``docs/rules/plans.md``) as data.

Names of groups, attributes and actions live here too, since everything else is built on them.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

Group = Literal["physical", "magical", "mental"]
Action = Literal["strong", "precise", "cunning", "healing", "defensive"]
Modifier = Literal["cunning", "guess", "defensive"]

GROUPS: tuple[Group, ...] = ("physical", "magical", "mental")
ACTIONS: tuple[Action, ...] = ("strong", "precise", "cunning", "healing", "defensive")
GROUP_INDEX: dict[str, int] = {g: i for i, g in enumerate(GROUPS)}

# C1: per group (accuracy, impact, reserve).
ROLES = ("accuracy", "impact", "reserve")
GROUP_ATTRIBUTES: dict[Group, tuple[str, str, str]] = {
    "physical": ("dexterity", "strength", "stamina"),
    "magical": ("artistry", "giftedness", "source"),
    "mental": ("reaction", "concentration", "will"),
}
# The nine attributes in sheet order: group-major, then accuracy, impact, reserve.
ATTRIBUTES: tuple[str, ...] = tuple(a for g in GROUPS for a in GROUP_ATTRIBUTES[g])
ACCURACY = tuple(GROUP_ATTRIBUTES[g][0] for g in GROUPS)
IMPACT = tuple(GROUP_ATTRIBUTES[g][1] for g in GROUPS)
RESERVE = tuple(GROUP_ATTRIBUTES[g][2] for g in GROUPS)


class DefaultPlanConfig(BaseModel):
    """How the bot fills in the plan of a duelist who sent none by the deadline."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    # Group: the first group (physical, magical, mental) that still has reserve.
    group: Literal["first_with_reserve", "largest_reserve"] = "first_with_reserve"
    # Skill: the highest level on the sheet (first on ties).
    action: Action = "defensive"
    # Soak (C15) with the group that has the largest reserve, or never.
    soak: Literal["largest_reserve", "none"] = "largest_reserve"


class PlansConfig(BaseModel):
    """Match options. Field defaults are the DEFAULTs of the rules doc (rule ids in comments)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    # C3: a die succeeds on this face or more, for every check.
    success_target: int = Field(8, ge=1, le=11)
    dice_sides: int = Field(10, ge=2, le=100)

    # C2/C14: lethality adds dice to the damage pool ("dice"); "flat" instead adds that much
    # damage to a damage check that scored at least one success. Unarmed lethality is 0.
    lethality_mode: Literal["dice", "flat"] = "dice"
    unarmed_lethality: int = Field(0, ge=0)

    # C8: damage pool when the chosen group's reserve was already 0.
    empty_group_damage_pool: int = Field(1, ge=0)
    # C8 DEFAULT: the opponent's group guess is compared with the group named in the plan even
    # when it was not paid for ("named"); "paid" makes an unpaid group unguessable.
    guess_group_compares: Literal["named", "paid"] = "named"

    # C11 actions.
    precise_lethality_bonus: int = Field(2, ge=0)  # precise: lethality +2
    cunning_auto_successes: int = Field(1, ge=0)  # cunning: +1 automatic success
    defensive_multiplier: int = Field(2, ge=1)  # defensive: successes doubled
    strong_rerolls: int = Field(1, ge=0)  # strong: reroll one damage die...
    # ...DEFAULT the lowest failed die ("first_failed": the first failed die as rolled).
    strong_reroll_target: Literal["lowest_failed", "first_failed"] = "lowest_failed"

    # C12 guessing. d = my right parts - opponent's right parts.
    guess_bonus_d1: int = Field(1, ge=0)  # d = 1: +1 success
    guess_multiplier_d2: int = Field(2, ge=1)  # d = 2: successes x2
    guess_multiplier_d3: int = Field(3, ge=1)  # d = 3: successes x3
    guess_bonuses_stack: bool = False  # DEFAULT: no extra +1 at d = 2 or 3
    # DEFAULT: the skill guess matches the primary skill only; "either": primary or second.
    skill_guess_matches: Literal["primary", "either"] = "primary"

    # C13 DEFAULT order of arithmetic after the raw successes.
    modifier_order: tuple[Modifier, ...] = ("cunning", "guess", "defensive")

    # C6/C18: the end condition agreed before the duel, and the incapacitation wound limit.
    end_condition: Literal["incapacitation", "first_blood"] = "incapacitation"
    wound_limit: int = Field(5, ge=1)

    # C15 toughness: pool = the reserve's temporary value after paying (DEFAULT) or permanent.
    toughness_pool: Literal["temporary", "permanent"] = "temporary"
    # C15 DEFAULT: the soak group is part of the sealed plan ("plan"); "auto": the bot soaks
    # with the largest reserve; "never": no toughness checks.
    soak_choice: Literal["plan", "auto", "never"] = "plan"

    # C16: a tie deals damage both ways when at least one duelist used one of these actions,
    # and (DEFAULT) no action effect applies to those damage checks.
    tie_damage_actions: tuple[Action, ...] = ("strong", "precise")
    tie_action_effects: bool = False

    # C17: restore this much of one unused group's reserve; the choice is in the plan, and
    # DEFAULT when it is absent the group with the largest missing reserve is restored.
    restore_amount: int = Field(1, ge=0)
    restore_fallback: Literal["largest_missing", "none"] = "largest_missing"

    # C21: the duel ends in a draw after this many turns.
    turn_cap: int = Field(20, ge=1)

    # C4: initiative ties are rolled again (at most this many times; then seat order).
    initiative_rerolls: int = Field(10, ge=0)

    # C22: the role-play text of a plan is required; length bounds in characters.
    min_text_length: int = Field(10, ge=0)
    max_text_length: int = Field(1000, ge=1)
    # C22 veto: DEFAULT off — sealed plans stay secret from everyone, the GM included, until the
    # reveal (no veto possible). On: the GM reads each sealed plan privately and may veto it,
    # and a turn resolves only when the GM approves it (or at its deadline).
    gm_sees_plans: bool = False

    # Character sheet bounds (checked when a sheet is entered).
    attribute_max: int = Field(10, ge=0)
    skill_level_max: int = Field(10, ge=1)
    lethality_max: int = Field(10, ge=0)
    max_skills: int = Field(12, ge=1)

    default_plan: DefaultPlanConfig = DefaultPlanConfig()

    @field_validator("modifier_order")
    @classmethod
    def _permutation(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if sorted(value) != sorted(("cunning", "guess", "defensive")):
            raise ValueError("a permutation of cunning, guess, defensive")
        return value
