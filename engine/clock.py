"""The turn clock, pure: deadlines, the one reminder per turn, bounded extensions, pause.

Every number is match configuration (:class:`ClockConfig`, chosen by the GM), and nothing here
looks at a sealed order: a deadline's length and its announcements never depend on anyone's
hidden choices (the Werewolf #316 lesson in the project's notes on other play-by-post bots).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from functools import cache
from typing import TYPE_CHECKING, Any, get_type_hints

from engine.errors import Rejection, parse_model
from engine.phase import Phase

if TYPE_CHECKING:
    from pydantic import BaseModel

    from engine.match import Match

MINUTE = 60
DAY = 24 * 3600


def _bounded(default: int | None, ge: int, le: int) -> Any:
    """A field with its default and its bounds (read by :func:`_validator`)."""
    return field(default=default, metadata={"ge": ge, "le": le})


@dataclass(frozen=True, slots=True)
class ClockConfig:
    """A match's clock. Each default is a DEFAULT of ours (the sources are silent).

    A plain dataclass, so reading a stored match's clock needs no pydantic (the webhook's
    cold start); GM input is validated by a pydantic model built from these fields on first
    use (:func:`check_clock`)."""

    # DEFAULT: no deadline; the turn resolves when everyone has sealed (or the GM forces it).
    turn_seconds: int | None = _bounded(None, ge=MINUTE, le=30 * DAY)
    # DEFAULT: remind an hour before the deadline, or at half the turn if that is shorter.
    reminder_before_seconds: int = _bounded(3600, ge=0, le=7 * DAY)
    # DEFAULT: a single extension is at most 24 h (webDiplomacy PR #557) ...
    max_extension_seconds: int = _bounded(DAY, ge=MINUTE, le=7 * DAY)
    # ... at most 2 per turn and 6 per match (prior-art: bounded extensions).
    max_extensions_per_turn: int = _bounded(2, ge=0, le=20)
    max_extensions_total: int = _bounded(6, ge=0, le=100)
    # DEFAULT: alert the GM after 2 consecutive missed turns by one player.
    missed_turns_alert: int = _bounded(2, ge=1, le=20)
    # DEFAULT: a pause ends by itself after 7 days (an unbounded pause lets a losing GM stall).
    max_pause_seconds: int = _bounded(7 * DAY, ge=MINUTE, le=60 * DAY)


@cache
def _validator() -> type[BaseModel]:
    """The pydantic model of :class:`ClockConfig`'s fields, defaults and bounds."""
    from pydantic import ConfigDict, Field, create_model

    hints = get_type_hints(ClockConfig)
    spec: dict[str, Any] = {
        f.name: (hints[f.name], Field(default=f.default, **f.metadata)) for f in fields(ClockConfig)
    }
    return create_model("ClockConfig", __config__=ConfigDict(extra="forbid", frozen=True), **spec)


def clock_config(match: Match) -> ClockConfig:
    """The match's clock: its stored overrides (validated when set) over the defaults."""
    return ClockConfig(**match.clock)


def check_clock(options: Mapping[str, Any]) -> ClockConfig:
    """Validate clock options (raises :class:`Rejection` naming the field)."""
    checked = parse_model(_validator(), dict(options), what="clock")
    return ClockConfig(**checked.model_dump())


def reminder_at(match: Match) -> float | None:
    """When this turn's reminder is due (None: no deadline, or already sent)."""
    if match.deadline is None or match.reminded or match.turn_opened_at is None:
        return None
    cfg = clock_config(match)
    if cfg.reminder_before_seconds == 0:
        return None
    length = match.deadline - match.turn_opened_at
    before = min(float(cfg.reminder_before_seconds), length / 2)
    return match.deadline - before


def wake_at(match: Match) -> float | None:
    """The next time the sweeper must act on ``match``."""
    if match.phase is not Phase.RUNNING:
        return None
    if match.locked_at is not None:  # waiting for its beacon round: due at once
        # The time of the lock itself (``frozen_at``), which the lock message's date does not
        # move: the deadline index keeps its entry instead of moving it (two write units a
        # turn, docs/deploy.md "Load and cost"); any past time is "at once".
        return match.frozen_at if match.frozen_at is not None else match.locked_at
    if match.paused_at is not None:
        return match.paused_at + clock_config(match).max_pause_seconds
    remind = reminder_at(match)
    if remind is not None:
        return remind
    return match.deadline


def time_left(match: Match, now: float) -> float | None:
    """Seconds until the deadline (frozen while paused), or None without a deadline."""
    if match.paused_at is not None:
        return match.paused_left
    if match.deadline is None:
        return None
    return max(0.0, match.deadline - now)


def pause(match: Match, now: float) -> Match:
    """Freeze the deadline."""
    if match.phase is not Phase.RUNNING:
        raise Rejection("not_running", phase=match.phase.value)
    if match.paused_at is not None:
        raise Rejection("already_paused")
    left = None if match.deadline is None else max(0.0, match.deadline - now)
    return replace(match, paused_at=now, paused_left=left, deadline=None)


def resume(match: Match, now: float) -> Match:
    """Unfreeze: the deadline is what was left when paused, counted from now."""
    if match.paused_at is None:
        raise Rejection("not_paused")
    deadline = None if match.paused_left is None else now + match.paused_left
    return replace(match, paused_at=None, paused_left=None, deadline=deadline)


def extend(match: Match, seconds: int) -> Match:
    """Push the deadline back, within the configured bounds."""
    cfg = clock_config(match)
    if match.paused_at is not None:
        raise Rejection("paused")
    if match.deadline is None:
        raise Rejection("no_deadline")
    if seconds <= 0 or seconds > cfg.max_extension_seconds:
        raise Rejection("extension_too_long", max_seconds=cfg.max_extension_seconds)
    if match.extended_turn >= cfg.max_extensions_per_turn:
        raise Rejection("extensions_per_turn_used", limit=cfg.max_extensions_per_turn)
    if match.extended_total >= cfg.max_extensions_total:
        raise Rejection("extensions_total_used", limit=cfg.max_extensions_total)
    deadline = match.deadline + seconds
    return replace(
        match,
        deadline=deadline,
        extended_turn=match.extended_turn + 1,
        extended_total=match.extended_total + 1,
        reminded=match.reminded,  # one reminder per turn, even when extended
    )


def mark_reminded(match: Match) -> Match:
    return replace(match, reminded=True)


def absentees(match: Match) -> tuple[str, ...]:
    """Seats that have missed at least ``missed_turns_alert`` turns in a row (GM alert)."""
    limit = clock_config(match).missed_turns_alert
    return tuple(
        s.pid for s in match.seats if s.status == "active" and match.missed.get(s.pid, 0) >= limit
    )
