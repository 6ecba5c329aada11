"""Helpers every part of the ``dragons`` UI uses: a match's config and state, names, reasons."""

from __future__ import annotations

from typing import Any

from engine.match import Match
from engine.rulesets.dragons import DragonsConfig, DragonsState
from handlers.telegram.i18n import Raw, Tr
from handlers.telegram.ui import (
    aliases,
    esc,
)

ALIASES = aliases("dragons")


def config_of(match: Match) -> DragonsConfig:
    cfg = match.rules.config(match.config)
    assert isinstance(cfg, DragonsConfig)
    return cfg


def state_of(match: Match) -> DragonsState | None:
    if match.state is None:
        return None
    state = match.rules.load_state(match.state)
    assert isinstance(state, DragonsState)
    return state


def _label(tr: Tr, key: str, fallback: str) -> str:
    return tr(key) if tr.has(key) else esc(fallback)


def weapon_name(tr: Tr, name: Any) -> Raw:
    """A weapon's name in words: the catalog's for the presets' weapons (breath, claws,
    bite), else the sheet's own name (escaped)."""
    return Raw(_label(tr, f"dr.weapon.{name}", str(name)))


def reason_text(tr: Tr, code: str, **params: Any) -> str:
    """A reason code (a Rejection's or an event's) in words: ``err.<code>`` when the catalog
    has it, else ``dr.reason.<code>``, else the code."""
    keys = [f"dr.reason.{code}", f"err.{code}"]
    if params:  # a Rejection with its details: its own message says the most
        keys.reverse()
    from handlers.telegram.plain import params as plain_params

    for key in keys:
        if tr.has(key):
            try:
                return tr(key, **plain_params(tr, code, params))
            except (KeyError, IndexError):
                continue
    return esc(code)
