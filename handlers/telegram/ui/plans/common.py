"""Helpers every part of the ``plans`` UI uses: names of skills, weapons, groups and actions."""

from __future__ import annotations

import string
from typing import Any

from engine.errors import Rejection
from engine.match import Match
from engine.rulesets.plans import Fighter, PlansConfig, PlansState
from handlers.telegram.i18n import Tr
from handlers.telegram.ui import (
    esc,
)

ALPHA = string.digits + string.ascii_lowercase + string.ascii_uppercase  # one-char indexes
NONE = "-"  # no second skill / no soak / bot's restore / not guessed
ICON = {"physical": "💪", "magical": "✨", "mental": "🧠"}
ACTION_ICON = {
    "strong": "🔨",
    "precise": "🎯",
    "cunning": "🦊",
    "healing": "💚",
    "defensive": "🛡",
}


def _config(match: Match) -> PlansConfig:
    cfg = match.rules.config(match.config)
    assert isinstance(cfg, PlansConfig)
    return cfg


def _state(match: Match) -> PlansState:
    state = match.rules.load_state(match.state or {})
    assert isinstance(state, PlansState)
    return state


def _me_them(state: PlansState, pid: str) -> tuple[Fighter, Fighter]:
    i = state.seat(pid)
    return state.fighters[i], state.fighters[1 - i]


def _index(ch: str, size: int) -> int:
    """A one-character index; a character that is no valid index is a forged press."""
    k = ALPHA.find(ch)
    if k < 0 or k >= size:
        raise Rejection("invalid_button")
    return k


def _opt(ch: str, size: int) -> int | None:
    return None if ch == NONE else _index(ch, size)


def skill_name(tr: Tr, skill: Any) -> str:
    """A skill in words (HTML): the catalog's name for the presets' skills, else the sheet's
    own id. The typed syntax keeps the ids (the builder's buttons show them)."""
    key = f"plans.skill.{skill}"
    return tr(key) if tr.has(key) else esc(skill)


def weapon_name(tr: Tr, weapon: Any) -> str:
    """A weapon's name in words (HTML): the catalog's for the presets' weapons, else its own."""
    key = f"plans.weapon.{weapon}"
    return tr(key) if tr.has(key) else esc(weapon)


def group_name(tr: Tr, group: str) -> str:
    return tr(f"plans.group.{group}") if tr.has(f"plans.group.{group}") else esc(group)


def action_name(tr: Tr, action: str) -> str:
    return tr(f"plans.action.{action}") if tr.has(f"plans.action.{action}") else esc(action)
