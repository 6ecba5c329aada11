"""The plan (C7-C11, C15, C17, C22): one sealed order per duelist per turn, its JSON form,
and its validation against the sheet and the reserves."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from pydantic import BaseModel, ConfigDict, Field

from engine.errors import Rejection, parse_model
from engine.rulesets.plans.config import ACTIONS, GROUP_INDEX, GROUPS, PlansConfig
from engine.rulesets.plans.sheet import Sheet

_GROUPS_TEXT = ", ".join(GROUPS)
_ACTIONS_TEXT = ", ".join(ACTIONS)


class Plan(NamedTuple):
    """A sealed plan. Guess parts are None when not guessed (a missing part is never right).
    ``auto`` marks a plan the bot made (default or random): its text is empty by design.

    Immutable; a named tuple rather than a frozen dataclass because the simulator builds two
    per turn and construction is several times faster."""

    group: str
    skill: str
    action: str
    second_skill: str | None = None
    second_group: str | None = None  # the group paying for the second skill (C10)
    soak: str | None = None  # C15: soak with this group's reserve if hit; None: no soak
    restore: str | None = None  # C17: group to restore at the end of the turn
    guess_group: str | None = None
    guess_skill: str | None = None
    guess_action: str | None = None
    text: str = ""
    auto: bool = False


class _SecondModel(BaseModel):
    model_config = ConfigDict(extra="forbid")
    skill: str
    group: str


class _GuessModel(BaseModel):
    model_config = ConfigDict(extra="forbid")
    group: str | None = None
    skill: str | None = None
    action: str | None = None


class PlanModel(BaseModel):
    """The JSON form of a plan (see ``docs/rules/plans.md``)."""

    model_config = ConfigDict(extra="forbid")
    group: str
    skill: str
    action: str
    second: _SecondModel | None = None
    soak: str | None = None
    restore: str | None = None
    guess: _GuessModel | None = None
    text: str = Field("", max_length=4000)
    auto: bool = False


def _group(value: str | None, field: str, *, optional: bool = False) -> str | None:
    if value is None or (optional and value in ("", "none")):
        return None
    if value not in GROUP_INDEX:
        raise Rejection("unknown_group", field=field, value=value, expected=_GROUPS_TEXT)
    return value


def _action(value: str | None, field: str) -> str | None:
    if value is None:
        return None
    if value not in ACTIONS:
        raise Rejection("unknown_action", field=field, value=value, expected=_ACTIONS_TEXT)
    return value


def parse_plan(raw: Mapping[str, Any]) -> Plan:
    """JSON -> :class:`Plan` (structure and vocabulary only; :func:`check_plan` checks legality)."""
    m = parse_model(PlanModel, raw, what="plan")
    guess = m.guess or _GuessModel()
    return Plan(
        group=_group(m.group, "group") or "",
        skill=m.skill,
        action=_action(m.action, "action") or "",
        second_skill=m.second.skill if m.second else None,
        second_group=_group(m.second.group, "second.group") if m.second else None,
        soak=_group(m.soak, "soak", optional=True),
        restore=_group(m.restore, "restore", optional=True),
        guess_group=_group(guess.group, "guess.group", optional=True),
        guess_skill=guess.skill or None,
        guess_action=_action(guess.action or None, "guess.action"),
        text=m.text,
        auto=m.auto,
    )


def dump_plan(plan: Plan) -> dict[str, Any]:
    """:class:`Plan` -> JSON (inverse of :func:`parse_plan`)."""
    # One unpacking instead of twelve field reads: a named tuple's field by name is a generic
    # attribute lookup in Python 3.11 (the reveal dumps two plans every turn).
    group, skill, action, second_skill, second_group, soak, restore, gg, gs, ga, text, auto = plan
    out: dict[str, Any] = {
        "group": group,
        "skill": skill,
        "action": action,
        "second": (
            {"skill": second_skill, "group": second_group} if second_skill is not None else None
        ),
        "soak": soak,
        "restore": restore,
        "guess": {"group": gg, "skill": gs, "action": ga},
        "text": text,
    }
    if auto:
        out["auto"] = True
    return out


def used_groups(plan: Plan, reserves: tuple[int, ...]) -> set[int]:
    """Groups used this turn (C17): the plan's group if it was paid for (C8: an unpaid group
    counts as no group), and the group paying for a second skill."""
    used = set()
    g = GROUP_INDEX[plan.group]
    if reserves[g] > 0:
        used.add(g)
    if plan.second_group is not None:
        used.add(GROUP_INDEX[plan.second_group])
    return used


def check_plan(
    config: PlansConfig, sheet: Sheet, reserves: tuple[int, ...], opponent: Sheet, plan: Plan
) -> Rejection | None:
    """Why ``plan`` is illegal for a duelist with ``sheet`` and temporary ``reserves`` now."""
    primary = sheet.skill(plan.skill)
    if primary is None:
        skills = ", ".join(s.id for s in sheet.skills)
        return Rejection("skill_not_on_sheet", field="skill", skill=plan.skill, skills=skills)
    if (plan.second_skill is None) != (plan.second_group is None):
        return Rejection("second_incomplete", field="second", expected="skill and group")
    if plan.second_skill is not None and plan.second_group is not None:
        # C10: a different skill, paid by another group's reserve, usable with that group.
        second = sheet.skill(plan.second_skill)
        if second is None:
            skills = ", ".join(s.id for s in sheet.skills)
            return Rejection(
                "skill_not_on_sheet", field="second.skill", skill=plan.second_skill, skills=skills
            )
        if second.id == primary.id:
            return Rejection("second_skill_same", field="second.skill", skill=second.id)
        pay = GROUP_INDEX[plan.second_group]
        if plan.second_group == plan.group:
            return Rejection("second_group_same", field="second.group", group=plan.second_group)
        if pay not in second.groups:
            return Rejection(
                "second_skill_not_usable",
                field="second.skill",
                skill=second.id,
                group=plan.second_group,
                usable=", ".join(GROUPS[g] for g in second.groups),
            )
        if reserves[pay] <= 0:
            return Rejection("reserve_empty", field="second.group", group=plan.second_group)
    if (
        plan.soak is not None
        and config.soak_choice == "plan"
        and reserves[GROUP_INDEX[plan.soak]] <= 0
    ):
        # C15: a soak needs reserve at the moment of the hit; it cannot grow before then.
        return Rejection("reserve_empty", field="soak", group=plan.soak)
    if plan.restore is not None and GROUP_INDEX[plan.restore] in used_groups(plan, reserves):
        return Rejection("restore_group_used", field="restore", group=plan.restore)
    if plan.guess_skill is not None and opponent.skill(plan.guess_skill) is None:
        skills = ", ".join(s.id for s in opponent.skills)
        return Rejection(
            "guess_skill_unknown", field="guess.skill", skill=plan.guess_skill, skills=skills
        )
    if not plan.auto:
        # C22: every plan explains how the character does it.
        length = len(plan.text.strip())
        if length < config.min_text_length:
            return Rejection(
                "text_too_short", field="text", length=length, min=config.min_text_length
            )
        if length > config.max_text_length:
            return Rejection(
                "text_too_long", field="text", length=length, max=config.max_text_length
            )
    return None
