"""The GM's one-tap NPC orders under an NPC's builder: same as last turn, attack the nearest
foe (moved from ``handlers.telegram.features.npc``)."""

from __future__ import annotations

from telegram import Message, User

from engine import usecases
from engine.match import Match
from handlers.telegram.callbacks import Callback
from handlers.telegram.i18n import Raw, Tr
from handlers.telegram.shared.context import Ctx, Services
from handlers.telegram.shared.guards import Alert, _load, _require_turn
from handlers.telegram.shared.turns import (
    _seal,
)
from handlers.telegram.ui import get_ui


def _gm_turn(svc: Services, tr: Tr, cb: Callback, user: User) -> tuple[Match, str]:
    match = _load(svc, cb)
    _require_turn(tr, match, cb)
    pid = cb.arg(0)
    if match.seat(pid) not in match.controlled_by(user.id):
        raise Alert(tr("err.not_yours"))
    return match, pid


async def btn_same_as_last(
    context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback
) -> str | None:
    """Seal the order this participant had last turn (refused with the reason if it is no
    longer legal)."""
    svc = context.svc
    match, pid = _gm_turn(svc, tr, cb, user)
    last = next(
        (
            o.order
            for r in reversed(usecases.history(svc.deps, match.id))
            if r.turn == match.turn - 1
            for o in r.orders
            if o.pid == pid
        ),
        None,
    )
    if last is None:
        raise Alert(tr("npc.no_last"))
    check = getattr(get_ui(match.ruleset), "cannot_succeed", None)
    problems = check(tr, match, pid, dict(last)) if check is not None else []
    if problems:  # it would fail now: not proposed (the GM builds or types another)
        raise Alert(tr("traps.npc.last_fails", why=Raw(" ".join(problems))))
    await _seal(context, tr, match, pid, user.id, dict(last), message=msg)
    return tr("receipt.toast")


async def btn_nearest(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    """Seal "attack the nearest foe" (D34's rule for a consumed dragon, handy for NPCs)."""
    svc = context.svc
    match, pid = _gm_turn(svc, tr, cb, user)
    helper = getattr(get_ui(match.ruleset), "nearest_order", None)
    order = helper(match, pid) if helper is not None else None
    if order is None:
        raise Alert(tr("npc.no_nearest"))
    await _seal(context, tr, match, pid, user.id, order, message=msg)
    return tr("receipt.toast")
