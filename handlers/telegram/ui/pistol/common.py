"""Helpers every part of the ``pistol`` UI uses."""

from __future__ import annotations

from engine.match import Match
from engine.rulesets.pistol import PistolConfig
from handlers.telegram.i18n import Tr
from handlers.telegram.ui import (
    esc,
)


def _config(match: Match) -> PistolConfig:
    cfg = match.rules.config(match.config)
    assert isinstance(cfg, PistolConfig)
    return cfg


def _label(tr: Tr, prefix: str, ident: str) -> str:
    key = f"{prefix}.{ident}"
    return tr(key) if tr.has(key) else esc(ident)
