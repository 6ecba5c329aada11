"""``verify``'s checks of each turn's lock message (``docs/fairness.md``, "The lock message").

In the bot a turn locks with a NEW group message ("🔒 Turn N locked - rolling the public
dice..."), and the turn's ``locked_at`` is Telegram's ``date`` of that message as the Bot API
returned it: a time the operator can neither move back (Telegram stamps it) nor publish after
the round (the round is the first one published strictly after it). Once the round is in,
the same message is edited into the reveal. A dossier turn then carries ``lock_message`` (its
id) and ``frozen_at`` (the server's time at which the turn stopped taking orders: the last seal,
the deadline's sweep, the GM's force).

Checked here, for every turn with a ``lock_message``:

- ``locked_at`` is a Telegram date (whole seconds);
- the round is the first published strictly after it (``beacon_round``);
- the lock was not dated before the turn froze or before any order was sealed (a backdated
  lock would fix a round already published);
- the lock message was posted at most :attr:`LockBounds.max_gap` seconds after the turn froze
  (every second later is another round an operator who deletes and re-posts the lock message
  could pick from; see the docs for what that leaves visible);
- its id comes after the turn's commitment message, before (or is, when folded) the next
  turn's commitment message, and no two records (kept or undone) share one; an undone
  record's lock message comes strictly before the commitment of the turn played again (that
  turn opens after the undo: nothing is folded into the undone reveal).

Pure functions over the dossier's JSON; :mod:`engine.verify` calls :func:`check`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from engine.beacon import Network, round_after


@dataclass(frozen=True, slots=True)
class LockBounds:
    """The bounds the lock checks apply (configuration: ``sekundant verify`` uses the
    defaults, documented in ``docs/fairness.md``)."""

    max_gap: float = 30.0
    """Seconds from the turn's freeze (its last seal, the deadline, the GM's force) to the
    lock message's date. Covers an in-process retry and one Telegram ``retry_after``."""
    skew: float = 1.0
    """Seconds the server's clock may differ from Telegram's (NTP keeps both within
    milliseconds). Below ``period - 1``, so a lock backdated by one period is caught."""


DEFAULT_BOUNDS = LockBounds()


@dataclass(frozen=True, slots=True)
class LockFinding:
    turn: int
    what: str
    says: Any
    gives: Any
    undone: bool = False


def window_end(turn: Mapping[str, Any], bounds: LockBounds = DEFAULT_BOUNDS) -> float:
    """The latest time an order of a locked turn can carry: the lock time, or for a lock
    message (a Telegram date, whole seconds: posted within ``[date, date + 1)``) the second
    after its date, with the tolerated clock skew."""
    locked = float(turn["locked_at"])
    if turn.get("lock_message") is None:
        return locked
    return locked + 1 + bounds.skew


def check(
    turns: Sequence[Mapping[str, Any]],
    network_of: Callable[[str], Network | None],
    bounds: LockBounds = DEFAULT_BOUNDS,
    undone: Sequence[Mapping[str, Any]] = (),
) -> list[LockFinding]:
    """Every lock-message mismatch of ``turns`` (the dossier's kept turns, in order) and of
    the ``undone`` records. ``network_of(name)``: a beacon network's parameters, or None when
    unknown."""
    records: list[tuple[Mapping[str, Any], Mapping[str, Any] | None, bool]] = [
        (turn, turns[i + 1] if i + 1 < len(turns) else None, False) for i, turn in enumerate(turns)
    ]
    for record in undone:  # followed by the turn played again, kept
        again = next((t for t in turns if int(t["turn"]) == int(record["turn"])), None)
        records.append((record, again, True))
    found: list[LockFinding] = []
    seen: set[int] = set()
    for turn, nxt, was_undone in records:
        message = turn.get("lock_message")
        if message is None:
            continue
        number = int(turn["turn"])
        mine = _times(number, turn, network_of, bounds)
        if int(message) in seen:
            mine.append(
                LockFinding(number, "lock message shared with another turn", message, "unique")
            )
        seen.add(int(message))
        mine += _ids(number, int(message), turn, nxt, folds=not was_undone)
        found += [replace(f, undone=was_undone) for f in mine]
    return found


def _times(
    number: int,
    turn: Mapping[str, Any],
    network_of: Callable[[str], Network | None],
    bounds: LockBounds,
) -> list[LockFinding]:
    out: list[LockFinding] = []
    locked = turn.get("locked_at")
    if locked is None:
        return [LockFinding(number, "lock message without its date", None, "a Telegram date")]
    locked = float(locked)
    if locked != math.floor(locked):
        out.append(LockFinding(number, "lock time is not a Telegram date", locked, "whole seconds"))
    beacon = turn.get("beacon") or {}
    network = network_of(str(beacon.get("network", ""))) if beacon else None
    target = turn.get("beacon_round")
    if network is not None and target is not None and int(target) != round_after(network, locked):
        out.append(
            LockFinding(
                number, "beacon round after the lock message", target, round_after(network, locked)
            )
        )
    sealed = [float(o["sealed_at"]) for o in turn["orders"] if not o.get("default")]
    frozen = turn.get("frozen_at")
    last = max([*sealed, float(frozen)] if frozen is not None else sealed, default=None)
    if last is None:
        return out
    # Telegram dates are whole seconds: the message was posted in [date, date + 1).
    if locked + 1 + bounds.skew <= last:
        out.append(
            LockFinding(number, "lock message dated before the turn locked", locked, f">= {last}")
        )
    elif locked - last > bounds.max_gap:
        out.append(
            LockFinding(
                number,
                f"lock message posted {locked - last:.0f} s after the turn locked",
                locked,
                f"<= {last + bounds.max_gap}",
            )
        )
    return out


def _ids(
    number: int,
    message: int,
    turn: Mapping[str, Any],
    nxt: Mapping[str, Any] | None,
    *,
    folds: bool,
) -> list[LockFinding]:
    """``folds``: the next commitment may be folded into this lock message (the reveal)."""
    out: list[LockFinding] = []
    own = turn.get("commitment_message")
    if own is not None and message <= int(own):
        out.append(
            LockFinding(number, "lock message before the turn's commitment", message, f"> {own}")
        )
    after = None if nxt is None else nxt.get("commitment_message")
    if after is not None and (message > int(after) if folds else message >= int(after)):
        out.append(
            LockFinding(
                number,
                "lock message after the next turn's commitment",
                message,
                f"<= {after}" if folds else f"< {after}",
            )
        )
    return out
