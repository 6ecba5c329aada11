"""A match's own configuration as message parameters (``/rules``, ``/help``)."""

from __future__ import annotations

from typing import Any

from engine.match import Match


def config_params(match: Match) -> dict[str, Any]:
    """The match's own configuration (its DEFAULTs overridden by the GM's options) as message
    parameters named like its fields (``{turn_limit}``), so the rules and the help describe
    this match, not the defaults (issue 24: "6 turns" in a 10-turn match)."""
    cfg = match.rules.config(match.config)
    return {
        k: v
        for k, v in cfg.model_dump().items()
        if isinstance(v, int | float | str) and not isinstance(v, bool)
    }
