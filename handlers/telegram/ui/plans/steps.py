"""The ``plans`` builder's choices, one function per step of the plan (C8-C17): the buttons
that add the step's part to the plan string ``s``."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from engine.rulesets.plans import Fighter
from engine.rulesets.plans.config import ACTIONS, GROUPS
from handlers.telegram.i18n import Raw, Tr
from handlers.telegram.ui import Button
from handlers.telegram.ui.plans.common import (
    ACTION_ICON,
    ALPHA,
    ICON,
    NONE,
    _index,
    _opt,
    action_name,
    group_name,
    skill_name,
)

Rows = list[list[Button]]


@dataclass(frozen=True)
class Choice:
    """What a step's buttons are made from: the plan so far ``s`` and its callback maker."""

    tr: Tr
    me: Fighter
    them: Fighter
    s: str
    cb: Any
    seconds: Callable[[Fighter, int, int], list[tuple[int, int]]]


def group(c: Choice) -> Rows:
    """C8: the group of attributes, with its accuracy, impact and reserve."""
    tr, me, s, cb = c.tr, c.me, c.s, c.cb
    sheet = me.sheet
    return [
        [
            Button(
                tr(
                    "plans.btn.group",
                    icon=ICON[g],
                    group=group_name(tr, g),
                    accuracy=sheet.accuracy(i),
                    impact=sheet.impact(i),
                    reserve=me.reserves[i],
                )
                + ("" if me.reserves[i] > 0 else " ⚠️"),
                cb(s + ALPHA[i]),
            )
        ]
        for i, g in enumerate(GROUPS)
    ]


def skill(c: Choice) -> Rows:
    """C9: any skill, whatever the group."""
    tr, me, s, cb = c.tr, c.me, c.s, c.cb
    sheet = me.sheet
    return [
        [
            Button(
                f"{skill_name(tr, sk.id)} {sk.level}"
                f" ({', '.join(group_name(tr, GROUPS[x]) for x in sk.groups)})",
                cb(s + ALPHA[k]),
            )
        ]
        for k, sk in enumerate(sheet.skills)
    ]


def second(c: Choice) -> Rows:
    """C10: a second skill paid from another group with reserve, or none."""
    tr, me, s, cb = c.tr, c.me, c.s, c.cb
    sheet = me.sheet
    g, k = _index(s[0], 3), _index(s[1], len(sheet.skills))
    n = len(sheet.skills)
    rows = [
        [
            Button(
                tr(
                    "plans.btn.second",
                    skill=Raw(skill_name(tr, sheet.skills[j].id)),
                    level=sheet.skills[j].level,
                    icon=ICON[GROUPS[pg]],
                    group=group_name(tr, GROUPS[pg]),
                ),
                cb(s + ALPHA[pg * n + j]),
            )
        ]
        for pg, j in c.seconds(me, g, k)
    ]
    return [*rows, [Button(tr("plans.btn.no_second"), cb(s + NONE))]]


def action(c: Choice) -> Rows:
    """C11: the action, with a word on each."""
    tr, s, cb = c.tr, c.s, c.cb
    return [
        [Button(f"{ACTION_ICON[a]} {tr(f'plans.action_help.{a}')}", cb(s + ALPHA[i]))]
        for i, a in enumerate(ACTIONS)
    ]


def soak(c: Choice) -> Rows:
    """C15: soak with a group that has reserve now, or none."""
    tr, me, s, cb = c.tr, c.me, c.s, c.cb
    row = [
        Button(f"{ICON[g]} {group_name(tr, g)}", cb(s + ALPHA[i]))
        for i, g in enumerate(GROUPS)
        if me.reserves[i] > 0
    ]
    return [row, [Button(tr("plans.btn.no_soak"), cb(s + NONE))]]


def restore(c: Choice) -> Rows:
    """C17: restore a group not used this turn, or the automatic choice."""
    tr, me, s, cb = c.tr, c.me, c.s, c.cb
    sheet = me.sheet
    g = _index(s[0], 3)
    used = {g} if me.reserves[g] > 0 else set()
    sec = _opt(s[2], 3 * len(sheet.skills))
    if sec is not None:
        used.add(sec // len(sheet.skills))
    row = [
        Button(f"{ICON[x]} {group_name(tr, x)}", cb(s + ALPHA[i]))
        for i, x in enumerate(GROUPS)
        if i not in used
    ]
    return [row, [Button(tr("plans.btn.restore_auto"), cb(s + NONE))]]


def guess_group(c: Choice) -> Rows:
    """C12: guess the opponent's group, or skip."""
    tr, s, cb = c.tr, c.s, c.cb
    skip = tr("plans.btn.none")
    row = [Button(f"{ICON[g]} {group_name(tr, g)}", cb(s + ALPHA[i])) for i, g in enumerate(GROUPS)]
    return [row, [Button(skip, cb(s + NONE))]]


def guess_skill(c: Choice) -> Rows:
    """C12: guess the opponent's skill, or skip."""
    tr, them, s, cb = c.tr, c.them, c.s, c.cb
    skip = tr("plans.btn.none")
    rows = [
        [
            Button(skill_name(tr, sk.id), cb(s + ALPHA[k]))
            for k, sk in list(enumerate(them.sheet.skills))[i : i + 3]
        ]
        for i in range(0, len(them.sheet.skills), 3)
    ]
    return [*rows, [Button(skip, cb(s + NONE))]]


def guess_action(c: Choice) -> Rows:
    """C12: guess the opponent's action, or skip."""
    tr, s, cb = c.tr, c.s, c.cb
    skip = tr("plans.btn.none")
    return [
        [
            Button(f"{ACTION_ICON[a]} {action_name(tr, a)}", cb(s + ALPHA[i]))
            for i, a in enumerate(ACTIONS[:3])
        ],
        [
            Button(f"{ACTION_ICON[a]} {action_name(tr, a)}", cb(s + ALPHA[i + 3]))
            for i, a in enumerate(ACTIONS[3:])
        ],
        [Button(skip, cb(s + NONE))],
    ]


CHOICES: Mapping[str, Callable[[Choice], Rows]] = {
    "group": group,
    "skill": skill,
    "second": second,
    "action": action,
    "soak": soak,
    "restore": restore,
    "guess_group": guess_group,
    "guess_skill": guess_skill,
    "guess_action": guess_action,
}
