"""GM powers, pure: undo a resolved turn, replace or remove a player, rule on a participant's
state, hand over the GM role. Every one is written to the match's public audit log."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from engine import clock
from engine.errors import Rejection
from engine.match import (
    Match,
    Phase,
    TurnRecord,
    _replace_seat,
    finish,
    intervene,
    open_turn,
    require_gm,
)


def pause(match: Match, user_id: int, now: float, reason: str = "") -> Match:
    require_gm(match, user_id)
    return intervene(clock.pause(match, now), user_id, "pause", now, reason)


def resume(match: Match, user_id: int | None, now: float, reason: str = "") -> Match:
    """Resume (``user_id`` None: the pause ran out by itself)."""
    if user_id is not None:
        require_gm(match, user_id)
    resumed = clock.resume(match, now)
    return intervene(
        resumed, user_id or 0, "resume", now, reason or ("auto" if user_id is None else "")
    )


def extend(match: Match, user_id: int, now: float, seconds: int, reason: str = "") -> Match:
    require_gm(match, user_id)
    extended = clock.extend(match, seconds)
    return intervene(extended, user_id, "extend", now, reason, seconds=seconds)


def configure_clock(match: Match, user_id: int, now: float, **options: Any) -> Match:
    """Change clock settings. A new turn length applies from the next turn (DEFAULT), so an
    open turn's deadline never jumps without an explicit extension."""
    require_gm(match, user_id)
    if match.phase is Phase.FINISHED:
        raise Rejection("already_finished")
    merged = {**match.clock, **options}
    checked = clock.check_clock(merged)
    # The overrides are stored as validated (e.g. "3600" -> 3600), so reading a stored clock
    # needs no validation (:func:`engine.clock.clock_config`).
    changed = replace(match, clock={k: getattr(checked, k) for k in merged})
    if match.phase is Phase.RUNNING:
        changed = intervene(changed, user_id, "clock", now, **options)
    return changed


def undo(
    match: Match, user_id: int, last: TurnRecord, now: float, seed: bytes, reason: str = ""
) -> Match:
    """Restore the exact state before the last resolved turn and reopen that turn (a new seed,
    with a new commitment: a re-resolution never reuses the revealed one)."""
    require_gm(match, user_id)
    if match.phase is Phase.LOBBY:
        raise Rejection("not_running", phase=match.phase.value)
    if last.turn < 1 or last.turn != match.turn - 1:
        raise Rejection("nothing_to_undo")
    if match.outcome is not None and match.outcome.get("reason") == "forfeit":
        # A forfeit is not a turn: undoing the turn before it would reopen a one-sided match.
        raise Rejection("nothing_to_undo")
    reopened = replace(
        match,
        phase=Phase.RUNNING,
        state=last.state_before,
        turn=last.turn,
        outcome=None,
        missed={
            pid: max(0, n - 1) if pid in last.defaulted else n for pid, n in match.missed.items()
        },
    )
    from engine.codec import record_to_doc

    # The undone record (seed, orders, result) stays public: the dossier lists it, marked
    # undone, and the verifier checks it like any turn.
    undone = {k: v for k, v in record_to_doc(last).items() if k != "schema"}
    for order in undone["orders"]:
        order.pop("schema", None)
    return intervene(
        open_turn(reopened, now, seed),
        user_id,
        "undo",
        now,
        reason,
        undone_turn=last.turn,
        record=undone,
    )


def replace_player(
    match: Match, user_id: int, pid: str, new_user_id: int, new_name: str, now: float
) -> Match:
    """Give a seat to another user (who holds no seat in this match)."""
    require_gm(match, user_id)
    if match.phase is Phase.FINISHED:
        raise Rejection("already_finished")
    seat = match.seat(pid)
    if seat.npc:
        raise Rejection("seat_is_npc")
    if match.seat_of_user(new_user_id) is not None:
        raise Rejection("already_joined")
    changed = _replace_seat(
        match, replace(seat, user_id=new_user_id, name=new_name, reachable=True, status="active")
    )
    changed = replace(changed, missed={**changed.missed, pid: 0})
    return intervene(
        changed,
        user_id,
        "replace",
        now,
        pid=pid,
        old=seat.name,
        new=new_name,
        old_user=seat.user_id,
        new_user=new_user_id,
    )


def forfeit(match: Match, by_user: int, pid: str, now: float, reason: str = "") -> Match:
    """Remove a participant: by the GM, or a player forfeiting their own seat. When only one
    side keeps active participants, it wins."""
    seat = match.seat(pid)
    own = seat.user_id == by_user and not seat.npc
    if not own:
        require_gm(match, by_user)
    if match.phase is not Phase.RUNNING:
        raise Rejection("not_running", phase=match.phase.value)
    if seat.status != "active":
        raise Rejection("already_out")
    changed = _replace_seat(match, replace(seat, status="forfeit"))
    changed = replace(changed, sealed=tuple(p for p in changed.sealed if p != pid))
    changed = intervene(changed, by_user, "forfeit", now, reason, pid=pid, own=own)
    sides = {s.side for s in changed.seats if s.status == "active"}
    if len(sides) <= 1:
        winners = [s.pid for s in changed.seats if s.status == "active"]
        changed = finish(
            changed,
            {"status": "win" if winners else "draw", "winners": winners, "reason": "forfeit"},
        )
    return changed


def edit(
    match: Match, user_id: int, pid: str, field: str, value: Any, now: float, reason: str
) -> Match:
    """A GM ruling on one field of a participant's state, with a public audit line."""
    require_gm(match, user_id)
    if match.phase is not Phase.RUNNING or match.state is None:
        raise Rejection("not_running", phase=match.phase.value)
    if not reason.strip():
        raise Rejection("reason_required")
    match.seat(pid)
    rules = match.rules
    state = rules.load_state(match.state)
    old = rules.editable(state, pid).get(field)
    new_state = rules.edit(state, pid, field, value)
    changed = replace(match, state=rules.dump_state(new_state))
    return intervene(
        changed, user_id, "edit", now, reason, pid=pid, field=field, old=old, new=value
    )


def hand_gm(
    match: Match, user_id: int, new_gm: int, now: float, *, as_admin: bool = False
) -> Match:
    """Hand the GM role to ``new_gm``: by the GM, or taken over by a group admin."""
    if not as_admin:
        require_gm(match, user_id)
    if new_gm == match.gm_user_id:
        raise Rejection("already_gm")
    changed = replace(match, gm_user_id=new_gm)
    return intervene(changed, user_id, "hand_gm", now, old=match.gm_user_id, new=new_gm)
