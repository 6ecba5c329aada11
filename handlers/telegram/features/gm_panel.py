"""The GM panel (the "⚙️ GM" button under the status message; GM only — anyone else gets a
private alert and nothing changes): pause/resume, extend (+1 h/+6 h/+24 h within the match's
caps), undo the last resolved turn, replace or remove a player, end with a result. Every GM
action is announced in the group; the core records it in ``match.audit`` (and so in the
dossier). The typed GM commands are in :mod:`.gm_commands`; the players' /leave, /forfeit and
Withdraw in :mod:`.player`; /history and /dossier in :mod:`.records`.
"""

from __future__ import annotations

import logging
from typing import Any

from telegram import Message, User

from engine import usecases
from engine.clock import clock_config, time_left
from engine.errors import Rejection
from engine.match import Match, Phase, TurnRecord
from engine.ruleset import Outcome
from handlers.telegram.callbacks import Callback
from handlers.telegram.i18n import Raw, Tr
from handlers.telegram.screens import clock_text, render
from handlers.telegram.shared import campaign, farewell
from handlers.telegram.shared.context import Ctx
from handlers.telegram.shared.gm_seats import _name
from handlers.telegram.shared.guards import (
    Alert,
    _load,
    _require_gm,
    _require_turn,
)
from handlers.telegram.shared.offloop import off_loop
from handlers.telegram.shared.page_button import proof_link
from handlers.telegram.shared.reveal_post import edit_buttons, edit_final
from handlers.telegram.shared.send import edit
from handlers.telegram.shared.summary import summary_screen
from handlers.telegram.shared.turns import (
    DEADLINE,
    SUMMARY,
    _after_change,
    _close_status,
    announce,
    note,
    refresh_status,
)
from handlers.telegram.ui import Button, Screen, get_ui

log = logging.getLogger("sekundant.bot")


# --------------------------------------------------------------------------- helpers


def _seat_rows(tr: Tr, match: Match, kind: str, *, players_only: bool = True) -> list[list[Button]]:
    rows = []
    for s in match.seats:
        if s.status != "active" or (players_only and s.npc):
            continue
        rows.append([Button(s.name, Callback(kind, match.id, match.turn, (s.pid,)))])
    rows.append([Button(tr("btn.back"), Callback("gx", match.id, match.turn))])
    return rows


async def _panel_screen(context: Ctx, msg: Message, match: Match, extra: str, rows: Any) -> None:
    svc = context.svc
    gtr = Tr(match.lang)
    fps = usecases.sealed_fingerprints(svc.deps, match.id)
    text = render.status_text(gtr, match, fps, svc.deps.clock()) + "\n\n" + extra
    await edit(context, msg.chat.id, msg.message_id, Screen(text, rows))


def _gm_checked(context: Ctx, user: User, tr: Tr, cb: Callback) -> Match:
    match = _load(context.svc, cb)
    _require_gm(tr, match, user)
    _require_turn(tr, match, cb)
    return match


# --------------------------------------------------------------------------- the GM menu


def menu_rows(tr: Tr, match: Match) -> list[list[Button]]:
    k, mid = match.turn, match.id
    pause = (
        Button(tr("gm.btn_resume"), Callback("gre", mid, k))
        if match.paused
        else Button(tr("gm.btn_pause"), Callback("gpa", mid, k))
    )
    rows: list[list[Button]] = [[pause]]
    if match.deadline is not None:
        cap = clock_config(match).max_extension_seconds
        rows.append(
            [
                Button(
                    tr("gm.btn_extend", d=clock_text.duration(tr, s)),
                    Callback("gex", mid, k, (str(s),)),
                )
                for s in clock_text.EXTEND_CHOICES
                if s <= cap
            ]
            or [
                Button(
                    tr("gm.btn_extend", d=clock_text.duration(tr, cap)),
                    Callback("gex", mid, k, (str(cap),)),
                )
            ]
        )
    rows += [
        [Button(tr("gm.btn_undo"), Callback("gun", mid, k))],
        [
            Button(tr("gm.btn_replace"), Callback("grp", mid, k)),
            Button(tr("gm.btn_remove"), Callback("gko", mid, k)),
        ],
        [Button(tr("gm.btn_result"), Callback("gwn", mid, k))],
        [Button(tr("btn.back"), Callback("gx", mid, k))],
    ]
    return rows


async def btn_menu(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    match = _gm_checked(context, user, tr, cb)
    gtr = Tr(match.lang)
    await _panel_screen(context, msg, match, gtr("gm.menu_title"), menu_rows(gtr, match))
    return None


async def btn_pause(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    svc = context.svc
    match = _gm_checked(context, user, tr, cb)
    if cb.kind == "gpa":
        frozen = time_left(match, svc.deps.clock()) is not None  # else no deadline to freeze
        paused = note("gm.paused" if frozen else "traps.gm.paused")
        after = usecases.pause(svc.deps, match.id, user.id, notes=[paused])
        await announce(context, after)
        await refresh_status(context, after)
        return None
    resumed = [note("gm.resumed", deadline=DEADLINE)]
    after, record = await off_loop(usecases.resume, svc.deps, match.id, user.id, notes=resumed)
    await announce(context, after)
    await _after_change(context, match, after, record)
    return None


async def btn_extend(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    svc = context.svc
    match = _gm_checked(context, user, tr, cb)
    seconds = cb.int_arg(0)
    told = note("gm.extended", d=clock_text.duration(Tr(match.lang), seconds), deadline=DEADLINE)
    after = usecases.extend(svc.deps, match.id, user.id, seconds, notes=[told])
    await announce(context, after)
    await refresh_status(context, after)
    return None


async def btn_undo(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    svc = context.svc
    match = _gm_checked(context, user, tr, cb)
    gtr = Tr(match.lang)
    if cb.kind == "gun":
        if match.turn <= 1:
            raise Rejection("nothing_to_undo")
        await _panel_screen(
            context,
            msg,
            match,
            gtr("gm.undo_confirm", turn=match.turn - 1),
            render.confirm_rows(gtr, match, "guc"),
        )
        return None
    notes = _undo_notes(context, match)
    after, undone = usecases.undo(svc.deps, match.id, user.id, turn=match.turn, notes=notes)
    await _close_status(context, match, after)
    await _after_undo(context, after, undone)
    return None


async def btn_summary_undo(
    context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback
) -> str | None:
    """Undo the turn that finished the match, from the final summary (GM only, confirmed)."""
    svc = context.svc
    match = _load(svc, cb)
    _require_gm(tr, match, user)
    if match.phase is not Phase.FINISHED or match.turn != cb.turn:
        raise Alert(tr("err.stale"))
    gtr = Tr(match.lang)
    # The final message (the last turn's reveal, a picture's caption perhaps) keeps its text
    # until the undo is confirmed: only its buttons change, and the question pops up.
    if cb.kind == "gsb":  # back: the summary's buttons again
        rows = summary_screen(gtr, match, proof_link(context, match)).rows
        await edit_buttons(context, msg, rows)
        return None
    if cb.kind == "gsu":
        rows = [
            [
                Button(gtr("btn.confirm"), Callback("gsc", match.id, match.turn)),
                Button(gtr("btn.back"), Callback("gsb", match.id, match.turn)),
            ]
        ]
        await edit_buttons(context, msg, rows)
        raise Alert(tr("gm.undo_confirm", turn=match.turn - 1))
    notes = _undo_notes(context, match)
    after, undone = usecases.undo(svc.deps, match.id, user.id, turn=match.turn, notes=notes)
    # The result no longer stands: the final message (the last turn's reveal, which the
    # summary ended) must not name a winner while play goes on, nor tell an undone turn.
    withdrawn = gtr("traps.final.undone", turn=undone.turn)
    await edit_final(context, msg, Screen(withdrawn))
    await _after_undo(context, after, undone)
    return None


def _undo_notes(context: Ctx, match: Match) -> list[dict[str, Any]]:
    """An undo's announcements, owed with it: the group's, and each player's in private
    (those playing the match: the undone turn, the last resolved one, is ``turn - 1``)."""
    turn = match.turn - 1
    notes = [note("gm.undone", turn=turn)]
    for seat in match.seats:
        if seat.user_id is None or seat.npc or seat.status != "active":
            continue
        uid = seat.user_id
        notes.append(note("gm.undo_private", chat=uid, user=uid, id=match.id, turn=turn))
    # The turn reopens (status, commitment, builders) before the players are told.
    return [notes[0], {"open": turn}, *notes[1:]]


async def _after_undo(context: Ctx, after: Match, undone: TurnRecord) -> None:
    """Deliver an undo's announcements (owed with it: the group, the players, then the
    reopened turn's status with its new commitment and the builders)."""
    campaign.sync_result(context.svc, after)  # an undone final turn: off the ladder
    await announce(context, after)


async def btn_replace(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    match = _gm_checked(context, user, tr, cb)
    gtr = Tr(match.lang)
    if not cb.args:
        await _panel_screen(
            context, msg, match, gtr("gm.replace_pick"), _seat_rows(gtr, match, "grp")
        )
        return None
    seat = match.seat(cb.arg(0))
    raise Alert(tr("gm.replace_how", pid=seat.pid, name=seat.name))


async def btn_remove(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    svc = context.svc
    match = _gm_checked(context, user, tr, cb)
    gtr = Tr(match.lang)
    if cb.kind == "gko" and not cb.args:
        await _panel_screen(
            context,
            msg,
            match,
            gtr("gm.remove_pick"),
            _seat_rows(gtr, match, "gko", players_only=False),
        )
        return None
    pid = cb.arg(0)
    name = Raw(_name(match, pid))
    if cb.kind == "gko":
        rows = [
            [
                Button(tr("btn.confirm"), Callback("gkc", match.id, match.turn, (pid,))),
                Button(tr("btn.back"), Callback("gx", match.id, match.turn)),
            ]
        ]
        await _panel_screen(context, msg, match, gtr("gm.remove_confirm", name=name), rows)
        return None
    gone = match.seat(pid).user_id
    notes = [note("gm.removed", name=name), SUMMARY, *farewell.removed_notes(match, gone)]
    after, record = await off_loop(
        usecases.forfeit, svc.deps, match.id, user.id, pid, reason="gm", notes=notes
    )
    await announce(context, after)
    await _after_change(context, match, after, record)
    return None


async def btn_result(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    svc = context.svc
    match = _gm_checked(context, user, tr, cb)
    gtr = Tr(match.lang)
    if cb.kind == "gwn":
        choices = get_ui(match.ruleset).result_choices(gtr, match)  # seats, or sides
        rows = [
            [Button(text, Callback("gwp", match.id, match.turn, (arg,)))] for text, arg in choices
        ]
        rows.append([Button(gtr("gm.btn_draw"), Callback("gwp", match.id, match.turn, ("-",)))])
        rows.append([Button(gtr("btn.back"), Callback("gx", match.id, match.turn))])
        await _panel_screen(context, msg, match, gtr("gm.result_pick"), rows)
        return None
    if cb.kind == "gwp":  # a result picked: ending is asked once more, as removing is
        await _confirm_result(context, msg, match, gtr, cb.arg(0))
        return None
    pid = cb.arg(0)
    if pid == "-":
        outcome = Outcome("draw", reason="gm")
    else:
        outcome = Outcome("win", get_ui(match.ruleset).result_winners(match, pid), reason="gm")
    notes = [SUMMARY, *farewell.ended_notes(match)]
    after = usecases.end_match(svc.deps, match.id, user.id, outcome, notes=notes)
    await _after_change(context, match, after, None)
    return None


async def _confirm_result(context: Ctx, msg: Message, match: Match, gtr: Tr, arg: str) -> None:
    """The question "End the match now: Алиса wins?" with Confirm and Back (issue 24: one
    confirmation for every GM action that ends or removes)."""
    labels = {a: text for text, a in get_ui(match.ruleset).result_choices(gtr, match)}
    result = labels.get(arg) if arg != "-" else gtr("gm.btn_draw")
    if result is None:
        raise Rejection("invalid_button")
    rows = [
        [
            Button(gtr("btn.confirm"), Callback("gwc", match.id, match.turn, (arg,))),
            Button(gtr("btn.back"), Callback("gx", match.id, match.turn)),
        ]
    ]
    text = gtr("traps.gm.result_confirm", result=Raw(result))  # the label is escaped already
    await _panel_screen(context, msg, match, text, rows)


# --------------------------------------------------------------------------- missed turns


# --------------------------------------------------------------------------- typed GM commands


# --------------------------------------------------------------------------- player commands


# --------------------------------------------------------------------------- the dossier


# --------------------------------------------------------------------------- wiring
