"""Telegram flow of the ``plans`` ruleset beyond buttons: ``/plan`` and the GM's veto.

The plan's role-play text (C22) is sealed by replying to the builder's confirmation
(:mod:`handlers.telegram.features.text_reply`, shared with the dragons' powers) or typed:
``/plan …``
keeps the whole line after the command verbatim, newlines included.

The GM's veto (C22) respects secrecy: by DEFAULT (``gm_sees_plans`` off) nobody, the GM
included, reads a sealed plan before the reveal, so there is no veto. With the match option on
(shown in the lobby, so players know), each sealed plan is sent to the GM privately with a
Veto button, and the turn waits for the GM's approval (``lifecycle.ready``) or its deadline. A
veto withdraws the plan (:func:`engine.usecases.veto_order`, audited without its content);
the player is asked privately to seal a new one; the group learns only *that* a plan was
vetoed. A GM who also plays in the match is never sent the plans.

Plugged in through the hook of the ruleset UI (:meth:`handlers.telegram.ui.RulesetUI.flow`,
:func:`flow`). The wiring imports this module on every cold start, so it names the plans UI
only through :func:`handlers.telegram.ui.get_ui` when a handler runs: importing it (and the
ruleset, and pydantic) waits for the first update that needs it.
"""

from __future__ import annotations

from telegram import Message, Update, User
from telegram.ext import CommandHandler, filters

from engine import match as lifecycle
from engine import usecases
from engine.match import Match, Phase, SealedOrder
from engine.usecases import SealResult
from handlers.telegram import hints, plain, stale
from handlers.telegram.callbacks import Callback
from handlers.telegram.i18n import Raw, Tr
from handlers.telegram.screens import render
from handlers.telegram.shared.builders import refuse_if_before_turn
from handlers.telegram.shared.context import Ctx
from handlers.telegram.shared.guards import (
    Alert,
    _choose,
    _load,
    _order_example,
    _own_seat,
    _pick_match,
    _require_gm,
    _require_turn,
    command,
    message_of,
    user_of,
)
from handlers.telegram.shared.routing import Flow
from handlers.telegram.shared.send import dm, edit, send
from handlers.telegram.shared.turns import (
    _seal,
    force_resolve,
    on_resolved,
    refresh_status,
)
from handlers.telegram.ui import Button, Screen, get_ui, names_of

FP_VETO = 8  # fingerprint characters a veto button carries


def flow() -> Flow:
    """The plans UI's flow (:meth:`handlers.telegram.ui.RulesetUI.flow`): ``/plan``, the GM's
    veto and approval buttons, the GM's review after each seal and when the GM changes."""
    private = filters.ChatType.PRIVATE & filters.UpdateType.MESSAGE
    return Flow(
        handlers=[CommandHandler("plan", cmd_plan, filters=private)],
        buttons={"pv": btn_veto, "pa": btn_approve},
        on_seal=[after_seal],
        on_gm_change=[review_for_new_gm],
    )


@command
async def cmd_plan(update: Update, context: Ctx) -> None:
    """``/plan [match] GROUP SKILL … -- text``: a typed plan; with nothing after it, the builder."""
    svc = context.svc
    user, text = user_of(update), message_of(update).text or ""
    tr = context.tr(user)
    rest = text.split(maxsplit=1)[1] if len(text.split(maxsplit=1)) > 1 else ""
    words = rest.split()
    match, candidates, left = _pick_match(svc, user.id, words, Phase.RUNNING)
    if match is None:
        example = _order_example(tr, candidates, user.id)
        await _choose(context, tr, user.id, candidates, user.id, example)
        return
    if len(left) < len(words):  # the match id was named: drop it, keep the rest verbatim
        rest = rest.split(maxsplit=1)[1] if len(rest.split(maxsplit=1)) > 1 else ""
    pid = _own_seat(match, user.id)
    assert pid is not None
    if not rest.strip():
        msg = await send(context, user.id, render.builder_screen(tr, match, pid, ()))
        await stale.remember(context, match, [msg])  # its keyboard goes when the turn resolves
        return
    refuse_if_before_turn(update, match)
    with plain.with_example(lambda: hints.order_example(tr, match, pid)):
        order = get_ui(match.ruleset).parse_typed([rest])
        await _seal(context, tr, match, pid, user.id, order, message=None)


# --------------------------------------------------------------------------- the GM's review


def _reviewer(match: Match) -> int | None:
    """The GM who reads sealed plans, or None (option off, or the GM plays in this match:
    :func:`engine.match.gm_reviews` says no then)."""
    return match.gm_user_id if lifecycle.gm_reviews(match) else None


async def after_seal(context: Ctx, before: Match, res: SealResult) -> None:
    """With ``gm_sees_plans`` on: the sealed plan goes to the GM with a Veto button; once every
    plan is in, the GM gets an Approve button and the group hears the turn waits for the GM."""
    gm = _reviewer(res.match)
    if gm is None or res.record is not None:
        return
    m = res.match
    await _send_plan(context, m, gm, res.order)
    if not lifecycle.missing(m):
        await _send_approve(context, m, gm)
        await send(context, m.chat_id, Screen(Tr(m.lang)("plans.group.review")))


async def review_for_new_gm(context: Ctx, match: Match) -> None:
    """The GM role changed hands mid-turn: the new GM, if he reviews, gets the plans sealed
    so far (each with its Veto button) and, when all are in, the Approve button - the previous
    GM was sent them, and without them the turn would wait for the deadline."""
    gm = _reviewer(match)
    if gm is None:
        return
    for order in usecases.orders_for_review(context.svc.deps, match.id, gm):
        await _send_plan(context, match, gm, order)
    if not lifecycle.missing(match):
        await _send_approve(context, match, gm)


async def _send_plan(context: Ctx, m: Match, gm: int, order: SealedOrder) -> None:
    """One sealed plan to the reviewing GM, with a Veto button bound to its fingerprint."""
    tr = Tr(context.svc.lang_for(gm, m.lang))
    text = tr(
        "plans.gm.plan",
        name=Raw(names_of(m).get(order.pid, order.pid)),
        turn=m.turn,
        id=m.id,
        plan=Raw(get_ui(m.ruleset).order_text(tr, order.order)),
        fp=render.short_fp(order.fingerprint),
    )
    cb = Callback("pv", m.id, m.turn, (order.pid, order.fingerprint[:FP_VETO]))
    msg = await send(context, gm, Screen(text, [[Button(tr("plans.btn.veto"), cb)]]))
    await stale.remember(context, m, [msg])  # no live Veto once the turn resolved


async def _send_approve(context: Ctx, m: Match, gm: int) -> None:
    tr = Tr(context.svc.lang_for(gm, m.lang))
    approve = [[Button(tr("plans.btn.approve"), Callback("pa", m.id, m.turn))]]
    msg = await send(context, gm, Screen(tr("plans.gm.all_in", turn=m.turn), approve))
    await stale.remember(context, m, [msg])


async def btn_veto(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    svc = context.svc
    match = _load(svc, cb)
    _require_gm(tr, match, user)
    _require_turn(tr, match, cb)
    pid, fp = cb.arg(0), cb.arg(1)
    vetoed = usecases.veto_order(svc.deps, match.id, user.id, pid, fp)
    await edit(
        context, msg.chat.id, msg.message_id, Screen(msg.text_html + "\n\n" + tr("plans.gm.vetoed"))
    )
    seat = vetoed.seat(pid)
    if seat.user_id is not None:
        ptr = Tr(svc.lang_for(seat.user_id, vetoed.lang))
        await dm(context, vetoed, seat.user_id, Screen(ptr("plans.vetoed")))
        builder = render.builder_screen(ptr, vetoed, pid, ())
        await stale.remember(context, vetoed, [await dm(context, vetoed, seat.user_id, builder)])
    gtr = Tr(vetoed.lang)
    await send(
        context,
        vetoed.chat_id,
        Screen(gtr("plans.group.vetoed", name=Raw(names_of(vetoed)[pid]))),
    )
    await refresh_status(context, vetoed)
    return tr("plans.gm.vetoed_toast")


async def btn_approve(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    """The GM approves the turn's plans: it resolves now (every plan must be in)."""
    svc = context.svc
    match = _load(svc, cb)
    _require_gm(tr, match, user)
    _require_turn(tr, match, cb)
    if lifecycle.missing(match):
        names = names_of(match)
        waiting = ", ".join(names[p] for p in lifecycle.missing(match))
        raise Alert(tr("plans.gm.waiting", names=waiting))
    res = await force_resolve(context, match.id, user.id, match.turn)
    await edit(context, msg.chat.id, msg.message_id, Screen(tr("plans.gm.approved")))
    if res is not None:  # else locked: the lock message is out, the reveal follows
        await on_resolved(context, match, res.match, res.record)
    return None
