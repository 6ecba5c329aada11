"""The GM's buttons on a turn's status message: who sealed, force the turn, end the match,
back (moved from ``handlers.telegram.bot``)."""

from __future__ import annotations

import logging

from telegram import Message, User

from engine import match as lifecycle
from engine import usecases
from engine.match import Phase
from engine.ruleset import Outcome
from handlers.telegram.callbacks import Callback
from handlers.telegram.i18n import Raw, Tr
from handlers.telegram.screens import render
from handlers.telegram.shared import farewell
from handlers.telegram.shared.context import Ctx
from handlers.telegram.shared.guards import Alert, _load, _require_gm, _require_turn
from handlers.telegram.shared.send import edit
from handlers.telegram.shared.turns import (
    SUMMARY,
    announce,
    force_resolve,
    on_resolved,
    refresh_lobby,
    refresh_status,
)
from handlers.telegram.ui import Screen, names_of

log = logging.getLogger("sekundant.bot")


async def btn_gm_status(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str:
    svc = context.svc
    match = _load(svc, cb)
    _require_gm(tr, match, user)
    _require_turn(tr, match, cb)
    names = {s.pid: s.name for s in match.seats}
    missing = [names[p] for p in lifecycle.missing(match)]
    sealed = [names[p] for p in match.sealed]
    raise Alert(
        tr(
            "gm.status",
            turn=match.turn,
            sealed=", ".join(sealed) or "—",
            missing=", ".join(missing) or "—",
        )
        .replace("<b>", "")
        .replace("</b>", "")
    )


async def btn_force(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    svc = context.svc
    match = _load(svc, cb)
    _require_gm(tr, match, user)
    _require_turn(tr, match, cb)
    missing = lifecycle.missing(match)
    if missing and cb.kind == "gfr":
        names = names_of(match)
        gtr = Tr(match.lang)
        fps = usecases.sealed_fingerprints(svc.deps, match.id)
        text = (
            render.status_text(gtr, match, fps, svc.deps.clock())
            + "\n\n"
            + gtr("gm.force_confirm", names=Raw(", ".join(names[p] for p in missing)))
        )
        await edit(
            context,
            msg.chat.id,
            msg.message_id,
            Screen(text, render.confirm_rows(gtr, match, "gfc")),
        )
        return None
    res = await force_resolve(context, match.id, user.id, match.turn)
    if res is None:  # locked: the lock message is out, the reveal follows
        return None
    # The defaulted players are told by the turn's owed announcement (shared.owed).
    await on_resolved(context, match, res.match, res.record)
    return None


async def btn_end(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    svc = context.svc
    match = _load(svc, cb)
    _require_gm(tr, match, user)
    if match.phase is Phase.FINISHED or match.turn != cb.turn:
        raise Alert(tr("err.stale"))
    gtr = Tr(match.lang)
    if cb.kind == "gend":
        await edit(
            context,
            msg.chat.id,
            msg.message_id,
            Screen(
                msg.text_html + "\n\n" + gtr("gm.end_confirm"),
                render.confirm_rows(gtr, match, "gec"),
            ),
        )
        return None
    running = match.phase is Phase.RUNNING  # else a lobby just closes
    summary = [SUMMARY, *farewell.ended_notes(match)] if running else []
    draw = Outcome("draw", reason="gm")
    ended = usecases.end_match(svc.deps, match.id, user.id, draw, notes=summary)
    await edit(context, msg.chat.id, msg.message_id, Screen(gtr("gm.ended")))
    await announce(context, ended)
    return None


async def btn_back(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    """Cancel a GM confirmation: the panel (or lobby) comes back as it was."""
    svc = context.svc
    match = _load(svc, cb)
    _require_gm(tr, match, user)
    if match.phase is Phase.LOBBY:
        await refresh_lobby(context, match)
    else:
        _require_turn(tr, match, cb)
        await refresh_status(context, match)
    return None
