"""Who may have a match's dossier (``/dossier``, the "📜 Proof" page; docs/bot.md)."""

from __future__ import annotations

from engine.match import Match, Phase


def dossier_allowed(match: Match, user_id: int) -> bool:
    """The GM at any time (no unrevealed order ever enters a dossier); any participant once
    the match is over."""
    if user_id == match.gm_user_id:
        return True
    return match.phase is Phase.FINISHED and any(s.user_id == user_id for s in match.seats)
