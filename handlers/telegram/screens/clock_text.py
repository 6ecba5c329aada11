"""The turn clock as text and buttons (pure): time left in the reader's language, deadline
lines, the lobby's clock buttons, and typed ``/clock`` options.

Nothing here reads a clock: ``now`` is passed in (the use cases' injectable ``Deps.clock``), so
tests move time by hand.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

from engine.clock import clock_config, time_left
from engine.errors import Rejection
from engine.match import Match, Phase
from handlers.telegram.callbacks import Callback
from handlers.telegram.i18n import Tr
from handlers.telegram.ui import Button, Screen

HOUR = 3600
DAY = 24 * HOUR
# The lobby's "turn deadline" button cycles through these (None: no deadline). The GM types
# anything else with /clock (1 minute to 30 days, ClockConfig's bounds).
TURN_CHOICES: tuple[int | None, ...] = (
    None,
    10 * 60,
    HOUR,
    6 * HOUR,
    12 * HOUR,
    DAY,
    2 * DAY,
    3 * DAY,
    7 * DAY,
)
# The reminder button cycles through these (0: no reminder).
REMIND_CHOICES: tuple[int, ...] = (0, 10 * 60, HOUR, 6 * HOUR)
# Extension buttons of the GM panel (each checked against max_extension_seconds by the core).
EXTEND_CHOICES: tuple[int, ...] = (HOUR, 6 * HOUR, DAY)

# /clock keys -> ClockConfig fields, and whether the value is a duration.
CLOCK_KEYS: dict[str, tuple[str, bool]] = {
    "turn": ("turn_seconds", True),
    "reminder": ("reminder_before_seconds", True),
    "extension": ("max_extension_seconds", True),
    "per_turn": ("max_extensions_per_turn", False),
    "total": ("max_extensions_total", False),
    "alert": ("missed_turns_alert", False),
    "pause": ("max_pause_seconds", True),
}
_DURATION = re.compile(r"^(\d+)([smhd]?)$")
_UNIT = {"s": 1, "m": 60, "h": HOUR, "d": DAY, "": 60}  # a bare number is minutes


def duration(tr: Tr, seconds: float) -> str:
    """``seconds`` as at most two units, rounded up to the minute: "2 d 3 h", "5 min"."""
    minutes = max(1, math.ceil(seconds / 60))
    days, rest = divmod(minutes, 24 * 60)
    hours, mins = divmod(rest, 60)
    parts: list[str] = []
    if days:
        parts.append(tr.n("clock.days", days))
        if hours:
            parts.append(tr.n("clock.hours", hours))
    elif hours:
        parts.append(tr.n("clock.hours", hours))
        if mins:
            parts.append(tr.n("clock.minutes", mins))
    else:
        parts.append(tr.n("clock.minutes", mins))
    return " ".join(parts)


def deadline_line(tr: Tr, match: Match, now: float) -> str:
    """The turn's deadline with the time left (or that it is paused); "" without one."""
    if match.phase is not Phase.RUNNING:
        return ""
    left = time_left(match, now)
    if match.paused:
        if left is None:
            return tr("clock.paused_no_deadline")
        return tr("clock.paused", left=duration(tr, left))
    if left is None:
        return ""
    if left <= 0:
        return tr("clock.due")
    return tr("clock.deadline", left=duration(tr, left))


def setting_text(tr: Tr, seconds: int | None) -> str:
    return tr("clock.none") if seconds is None else duration(tr, seconds)


def lobby_lines(tr: Tr, match: Match) -> list[str]:
    cfg = clock_config(match)
    return [tr("clock.lobby", turn=setting_text(tr, cfg.turn_seconds))]


def _next(choices: Sequence[Any], current: Any) -> Any:
    try:
        return choices[(choices.index(current) + 1) % len(choices)]
    except ValueError:
        return choices[0]


def lobby_rows(tr: Tr, match: Match) -> list[list[Button]]:
    """The GM's clock buttons in the lobby: each press sets the next value."""
    cfg = clock_config(match)
    nxt_turn = _next(TURN_CHOICES, cfg.turn_seconds)
    nxt_remind = _next(REMIND_CHOICES, cfg.reminder_before_seconds)
    remind = (
        tr("clock.none")
        if cfg.reminder_before_seconds == 0
        else duration(tr, cfg.reminder_before_seconds)
    )
    return [
        [
            Button(
                tr("clock.btn_turn", value=setting_text(tr, cfg.turn_seconds)),
                Callback("clk", match.id, 0, ("t", str(nxt_turn or 0))),
            ),
            Button(
                tr("clock.btn_remind", value=remind),
                Callback("clk", match.id, 0, ("r", str(nxt_remind))),
            ),
        ]
    ]


def settings_text(tr: Tr, match: Match) -> str:
    """Every clock setting of ``match`` with its /clock key (the ``/clock`` reply)."""
    cfg = clock_config(match)
    return tr(
        "clock.settings",
        turn=setting_text(tr, cfg.turn_seconds),
        reminder=setting_text(tr, cfg.reminder_before_seconds or None),
        extension=duration(tr, cfg.max_extension_seconds),
        per_turn=cfg.max_extensions_per_turn,
        total=cfg.max_extensions_total,
        alert=cfg.missed_turns_alert,
        pause=duration(tr, cfg.max_pause_seconds),
    )


def parse_duration(key: str, word: str) -> int | None:
    """``30m``, ``6h``, ``2d``, ``90s``, ``45`` (minutes) or ``none``/``off``/``0``."""
    w = word.strip().lower()
    if w in ("none", "off", "no", "0", "-"):
        return None
    m = _DURATION.match(w)
    if m is None:
        raise Rejection(
            "invalid_field", what="clock", field=key, expected="30m, 6h, 2d, 90s or none"
        )
    return int(m.group(1)) * _UNIT[m.group(2)]


def parse_clock_args(words: Sequence[str]) -> dict[str, Any]:
    """Typed clock options (``turn=6h reminder=1h ...``) as ClockConfig fields; raises a
    :class:`Rejection` naming the key and what was expected. Values are validated by the
    core (ranges) when applied."""
    options: dict[str, Any] = {}
    for word in words:
        key, sep, value = word.partition("=")
        key = key.lower()
        if not sep or key not in CLOCK_KEYS:
            raise Rejection(
                "invalid_field", what="clock", field=key or word, expected=", ".join(CLOCK_KEYS)
            )
        field, is_duration = CLOCK_KEYS[key]
        if is_duration:
            seconds = parse_duration(key, value)
            if seconds is None and field != "turn_seconds":
                seconds = 0 if field == "reminder_before_seconds" else None
                if seconds is None:
                    raise Rejection(
                        "invalid_field", what="clock", field=key, expected="30m, 6h, 2d or 90s"
                    )
            options[field] = seconds
        else:
            try:
                options[field] = int(value)
            except ValueError:
                raise Rejection(
                    "invalid_field", what="clock", field=key, expected="a whole number"
                ) from None
    return options


def with_deadline(tr: Tr, match: Match, screen: Screen, now: float) -> Screen:
    """``screen`` with the turn's deadline line appended (when there is one)."""
    line = deadline_line(tr, match, now)
    return Screen(f"{screen.text}\n\n{line}", screen.rows) if line else screen
