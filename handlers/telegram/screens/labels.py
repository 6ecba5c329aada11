"""Small labels every screen shares (pure): an order's short fingerprint and the turn label.
Their own module so the generic screens (:mod:`~handlers.telegram.screens.render`) and the fairness
screens (:mod:`~handlers.telegram.screens.fairness`) both use them without importing each other."""

from __future__ import annotations

from engine.match import Match
from handlers.telegram.i18n import Tr
from handlers.telegram.ui import get_ui

FP_LEN = 16


def short_fp(fingerprint: str) -> str:
    """The short public form of a fingerprint or commitment: the first 16 hex digits (64
    bits; 8 were in reach of a second preimage in minutes, issue 18)."""
    return fingerprint[:FP_LEN]


def turn_label(tr: Tr, match: Match, turn: int | None = None) -> str:
    k = match.turn if turn is None else turn
    limit = get_ui(match.ruleset).turn_limit(match)
    if limit:
        return tr("turn.of", turn=k, limit=limit)
    return tr("turn.plain", turn=k)
