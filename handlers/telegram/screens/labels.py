"""Small labels every screen shares (pure): an order's short fingerprint and the turn label.
Their own module so the generic screens (:mod:`~handlers.telegram.screens.render`) and the fairness
screens (:mod:`~handlers.telegram.screens.fairness`) both use them without importing each other."""

from __future__ import annotations

from engine.match import Match
from handlers.telegram.i18n import Tr
from handlers.telegram.ui import get_ui

FP_LEN = 32


def short_fp(fingerprint: str) -> str:
    """The public form of a fingerprint or commitment in the group: the first 32 hex digits
    (128 bits). The server picks the salts, so an operator colluding with a player could
    search for two orders with the same shown prefix (a birthday search: 2^(bits/2) hashes);
    64 bits were within reach (issue 26), 128 are not (docs/fairness.md)."""
    return fingerprint[:FP_LEN]


def turn_label(tr: Tr, match: Match, turn: int | None = None) -> str:
    k = match.turn if turn is None else turn
    limit = get_ui(match.ruleset).turn_limit(match)
    if limit:
        return tr("turn.of", turn=k, limit=limit)
    return tr("turn.plain", turn=k)
