"""Player commands: /help, /lang and its buttons, /status, /takegm (moved from
``handlers.telegram.bot``)."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from telegram import Message, Update, User

from engine import match as lifecycle
from engine import usecases
from engine.errors import Rejection
from engine.match import Match, Phase
from handlers.telegram import hints
from handlers.telegram.callbacks import Callback
from handlers.telegram.i18n import LANGS, Raw, Tr
from handlers.telegram.screens import render
from handlers.telegram.screens.clock_text import deadline_line
from handlers.telegram.screens.match_config import config_params
from handlers.telegram.shared import outbox
from handlers.telegram.shared.context import Ctx, Services
from handlers.telegram.shared.gm_seats import _name
from handlers.telegram.shared.guards import (
    Alert,
    _load,
    _own_seat,
    _pick_match,
    _require_turn,
    _user_matches,
    command,
    group_match,
    sender,
)
from handlers.telegram.shared.notes import show
from handlers.telegram.shared.offloop import off_loop
from handlers.telegram.shared.send import _api, edit, send
from handlers.telegram.shared.turns import (
    SUMMARY,
    _after_change,
    announce,
    note,
    refresh_lobby,
    refresh_status,
)
from handlers.telegram.ui import Button, Screen, get_ui

log = logging.getLogger("sekundant.bot")


@command
async def cmd_help(update: Update, context: Ctx) -> None:
    svc = context.svc
    user, chat = sender(update)
    if chat.type == "private":
        tr = context.tr(user)
        matches = _user_matches(svc, user.id)
    else:
        matches = svc.deps.repo.active_in_chat(chat.id)
        tr = Tr(matches[0].lang if matches else svc.user_lang(user))
    parts = [tr("help.private" if chat.type == "private" else "help.group")]
    firsts = {m.ruleset: m for m in reversed(matches)}  # each ruleset's numbers: its match's
    for rid in dict.fromkeys(m.ruleset for m in matches):
        parts.append(tr(get_ui(rid).help_key, **config_params(firsts[rid])))
    if chat.type == "private":  # the help's syntax, as an order this reader can send now
        parts += _own_examples(tr, matches, user.id)
    parts.append(tr("help.rulesets"))  # all of them, and /rules
    await send(context, chat.id, Screen("\n\n".join(parts)))


def _own_examples(tr: Tr, matches: Sequence[Match], user_id: int) -> list[str]:
    """One typed order per running match where ``user_id`` has a seat that acts now, made
    from their own sheet and legal targets (``hints``): the help's examples that work."""
    lines = []
    for m in matches:
        pid = _own_seat(m, user_id)
        if m.phase is not Phase.RUNNING or pid is None or pid not in lifecycle.acting(m):
            continue
        example = hints.order_example(tr, m, pid, with_id=len(matches) > 1)
        title = Raw(render.match_title(tr, m))
        lines.append(tr("help.your_example", title=title, example=example))
    return lines


@command
async def cmd_lang(update: Update, context: Ctx) -> None:
    """``/lang [ru|en]``: the user's language in private; the match's language in a group (GM)."""
    svc = context.svc
    user, chat = sender(update)
    choice = (context.args[0].lower() if context.args else "")[:2]
    if chat.type == "private":
        if choice not in LANGS:
            tr = context.tr(user)
            rows = [[Button(tr(f"lang.{lg}"), Callback("ul", "", 0, (lg,))) for lg in LANGS]]
            await send(context, chat.id, Screen(tr("lang.pick"), rows))
            return
        svc.set_user_lang(user.id, choice)
        await send(context, chat.id, Screen(Tr(choice)("lang.set")))
        return
    current = group_match(svc, chat.id)
    if choice not in LANGS:
        example = "/lang en" if current.lang == "ru" else "/lang ru"
        raise Rejection(
            "invalid_field", what="lang", field="lang", expected="ru, en", example=example
        )
    match = usecases.set_language(svc.deps, current.id, user.id, choice)
    await send(context, chat.id, Screen(Tr(choice)("lang.match_set")))
    await refresh_lobby(context, match)
    await refresh_status(context, match)


@command
async def cmd_status(update: Update, context: Ctx) -> None:
    svc = context.svc
    user, chat = sender(update)
    if chat.type != "private":
        matches = svc.deps.repo.active_in_chat(chat.id)
        if not matches:
            await send(context, chat.id, Screen(context.tr(user)("matches.none")))
            return
        m = matches[0]
        tr = Tr(m.lang)
        if m.phase is Phase.LOBBY:
            await send(context, chat.id, Screen(render.lobby_screen(tr, m, "").text))
        else:
            fps = usecases.sealed_fingerprints(svc.deps, m.id)
            await send(context, chat.id, Screen(render.status_text(tr, m, fps, svc.deps.clock())))
        return
    tr = context.tr(user)
    matches = _user_matches(svc, user.id)
    lines = [render.match_list(tr, matches)]
    ui_rows: list[list[Button]] = []
    for m in matches:
        if m.phase is not Phase.RUNNING:
            continue
        for o in usecases.my_orders(svc.deps, m.id, user.id):
            lines.append(
                tr(
                    "status.mine",
                    id=m.id,
                    order=Raw(get_ui(m.ruleset).order_text(tr, o.order)),
                    fp=render.short_fp(o.fingerprint),
                )
            )
        if deadline := deadline_line(tr, m, svc.deps.clock()):
            lines.append(f"<code>{m.id}</code>: {deadline}")
        pid = _own_seat(m, user.id)
        if pid and pid in lifecycle.acting(m):
            ui_rows.append(
                [Button(tr("btn.order_for", id=m.id), Callback("b", m.id, m.turn, (pid,)))]
            )
    await send(context, chat.id, Screen("\n".join(lines), ui_rows))


@command
async def cmd_takegm(update: Update, context: Ctx) -> None:
    """``/takegm`` in a group: a chat administrator takes the GM role of the active match."""
    svc = context.svc
    user, chat = sender(update)
    match = group_match(svc, chat.id)
    member = await _api(svc, lambda: context.bot.get_chat_member(chat.id, user.id))
    if member.status not in ("administrator", "creator"):
        raise Rejection("admins_only")
    told = [note("gm.taken", name=user.full_name), show("gm_changed")]  # owed with it
    match = usecases.hand_gm(svc.deps, match.id, user.id, user.id, as_admin=True, notes=told)
    await outbox.deliver(context, match.id)


async def btn_user_lang(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    svc = context.svc
    lang = cb.arg(0)
    if lang not in LANGS:
        raise ValueError(lang)
    svc.set_user_lang(user.id, lang)
    await edit(context, msg.chat.id, msg.message_id, Screen(Tr(lang)("lang.set")))
    return None


def _my_match(svc: Services, update: Update, words: list[str], phase: Phase) -> Match:
    """The match a player command is about: the group's active match, or (in private) the one
    named by id or the only one in ``phase``."""
    user, chat = sender(update)
    if chat.type != "private":
        match = group_match(svc, chat.id)
        if match.phase is not phase:
            raise Rejection(f"not_{phase.value}", phase=match.phase.value)
        return match
    found, candidates, _ = _pick_match(svc, user.id, words, phase)
    if found is None:
        raise Rejection("no_active_match" if not candidates else "name_the_match")
    return found


@command
async def cmd_leave(update: Update, context: Ctx) -> None:
    """``/leave``: leave a match that has not started."""
    svc = context.svc
    user, chat = sender(update)
    _refuse_leaving_a_running_match(svc, update, list(context.args or []))
    match = _my_match(svc, update, list(context.args or []), Phase.LOBBY)
    # The lobby and the answer are owed with the leave (the outbox, issue 28).
    told = [show("lobby"), note("player.left", chat=chat.id, user=user.id, id=match.id)]
    after = usecases.leave(svc.deps, match.id, user.id, notes=told)
    await outbox.deliver(context, after.id)


def _refuse_leaving_a_running_match(svc: Services, update: Update, words: list[str]) -> None:
    """``/leave`` in a match that has started: say that only /forfeit leaves it (issue 24),
    not "you have no match"."""
    user, chat = sender(update)
    if chat.type != "private":
        mine = [m for m in svc.deps.repo.active_in_chat(chat.id) if m.seat_of_user(user.id)]
    else:
        mine = [m for m in svc.deps.repo.active_for_user(user.id) if m.seat_of_user(user.id)]
        if words:
            mine = [m for m in mine if m.id == words[0]]
        if any(m.phase is Phase.LOBBY for m in mine):
            return
    running = [m for m in mine if m.phase is Phase.RUNNING]
    if running:
        raise Rejection("leave_running", id=running[0].id)


@command
async def cmd_forfeit(update: Update, context: Ctx) -> None:
    """``/forfeit``: leave a running match (asks for confirmation first)."""
    svc = context.svc
    user, chat = sender(update)
    match = _my_match(svc, update, list(context.args or []), Phase.RUNNING)
    seat = match.seat_of_user(user.id)
    if seat is None:
        raise Rejection("not_a_participant")
    tr = context.tr(user)
    rows = [
        [
            Button(tr("player.btn_forfeit"), Callback("pff", match.id, match.turn, (seat.pid,))),
            Button(tr("btn.back"), Callback("pfx", match.id, match.turn)),
        ]
    ]
    await send(context, chat.id, Screen(tr("player.forfeit_confirm", id=match.id), rows))


async def btn_forfeit(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    svc = context.svc
    match = _load(svc, cb)
    if cb.kind == "pfx":
        await edit(context, msg.chat.id, msg.message_id, Screen(tr("player.forfeit_kept")))
        return None
    pid = cb.arg(0)
    seat = match.seat(pid)
    if seat.user_id != user.id or seat.npc:
        raise Alert(tr("err.not_yours"))
    if match.phase is not Phase.RUNNING:
        raise Alert(tr("err.stale"))
    notes = [note("player.forfeit_announce", name=Raw(_name(match, pid))), SUMMARY]
    after, record = await off_loop(
        usecases.forfeit, svc.deps, match.id, user.id, pid, reason="own", notes=notes
    )
    await edit(context, msg.chat.id, msg.message_id, Screen(tr("player.forfeited", id=match.id)))
    await announce(context, after)
    await _after_change(context, match, after, record)
    return None


async def btn_withdraw(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    """Withdraw on a receipt: the order is taken back (the group sees the seat waiting again)."""
    svc = context.svc
    match = _load(svc, cb)
    _require_turn(tr, match, cb)
    pid = cb.arg(0)
    after = usecases.withdraw_order(svc.deps, match.id, user.id, pid, turn=cb.turn)
    rows = [[Button(tr("btn.order_for", id=match.id), Callback("b", match.id, match.turn, (pid,)))]]
    await edit(
        context, msg.chat.id, msg.message_id, Screen(tr("fair.withdrawn", id=match.id), rows)
    )
    await refresh_status(context, after)
    return tr("fair.withdrawn_toast")
