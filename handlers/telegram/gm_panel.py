"""GM powers and player commands in the bot.

GM panel (the "⚙️ GM" button under the status message; GM only — anyone else gets a private
alert and nothing changes): pause/resume, extend (+1 h/+6 h/+24 h within the match's caps),
undo the last resolved turn, replace or remove a player, end with a result. Typed GM commands
in the group: ``/edit`` (a ruling on a participant's state, with a public audit line),
``/replace`` (offer a seat to another user, who takes it by pressing a deep link themselves),
``/gm`` (hand the GM role over). Every GM action is announced in the group; the core records
it in ``match.audit`` (and so in the dossier).

Players: Withdraw on the receipt, ``/history``, ``/leave`` (lobby), ``/forfeit`` (with
confirmation), ``/dossier`` (JSON + Markdown files; any participant after the match, the GM at
any time).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Sequence
from typing import Any

from telegram import InputFile, Message, MessageEntity, Update, User
from telegram.error import Forbidden, TelegramError
from telegram.ext import (
    Application,
    ApplicationHandlerStop,
    CommandHandler,
    TypeHandler,
    filters,
)

from engine import match as lifecycle
from engine import usecases
from engine.clock import absentees, clock_config
from engine.dossier import build_dossier
from engine.errors import NotFoundError, Rejection
from engine.match import Match, Phase, TurnRecord
from engine.ruleset import Outcome
from handlers.telegram import bot, clock_text, fairness, render
from handlers.telegram.bot import (
    Alert,
    Ctx,
    Services,
    _require_gm,
    _require_turn,
    command,
    deep_link,
    edit,
    send,
    services,
)
from handlers.telegram.callbacks import Callback
from handlers.telegram.i18n import Raw, Tr
from handlers.telegram.ui import Button, Screen, esc, get_ui, names_of

_USERS = "sekundant.users"  # username (lowercase) -> (user id, full name), seen in updates


# --------------------------------------------------------------------------- helpers


def _load(svc: Services, cb: Callback) -> Match:
    return svc.deps.repo.load(cb.match).match


def _name(match: Match, pid: str) -> str:
    return names_of(match).get(pid, esc(pid))


async def _announce(context: Ctx, match: Match, key: str, **params: Any) -> None:
    await send(context, match.chat_id, Screen(Tr(match.lang)(key, **params)))


async def _after_change(
    context: Ctx, before: Match, after: Match, record: TurnRecord | None
) -> None:
    """After a GM step that may have resolved or finished the match: reveal, summary, or an
    updated status message."""
    if record is not None:
        await bot.on_resolved(context, before, after, record)
    elif after.phase is Phase.FINISHED:
        await _close_status(context, before, after)
        await send(context, after.chat_id, bot.summary_screen(Tr(after.lang), after))
    else:
        await bot.refresh_status(context, after)


async def _close_status(context: Ctx, before: Match, after: Match) -> None:
    status_id = before.ui.get("status")
    if status_id is not None:
        gtr = Tr(after.lang)
        await edit(
            context,
            after.chat_id,
            int(status_id),
            Screen(gtr("gm.status_closed", turn=before.turn)),
        )


def _seat_rows(tr: Tr, match: Match, kind: str, *, players_only: bool = True) -> list[list[Button]]:
    rows = []
    for s in match.seats:
        if s.status != "active" or (players_only and s.npc):
            continue
        rows.append([Button(s.name, Callback(kind, match.id, match.turn, (s.pid,)))])
    rows.append([Button(tr("btn.back"), Callback("gx", match.id, match.turn))])
    return rows


async def _panel_screen(context: Ctx, msg: Message, match: Match, extra: str, rows: Any) -> None:
    svc = services(context)
    gtr = Tr(match.lang)
    fps = usecases.sealed_fingerprints(svc.deps, match.id)
    text = render.status_text(gtr, match, fps, svc.deps.clock()) + "\n\n" + extra
    await edit(context, msg.chat.id, msg.message_id, Screen(text, rows))


def _gm_checked(context: Ctx, user: User, tr: Tr, cb: Callback) -> Match:
    match = _load(services(context), cb)
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
    svc = services(context)
    match = _gm_checked(context, user, tr, cb)
    gtr = Tr(match.lang)
    if cb.kind == "gpa":
        after = usecases.pause(svc.deps, match.id, user.id)
        await _announce(context, after, "gm.paused")
        await bot.refresh_status(context, after)
        return None
    after, record = usecases.resume(svc.deps, match.id, user.id)
    line = clock_text.deadline_line(gtr, after, svc.deps.clock())
    await _announce(context, after, "gm.resumed", deadline=Raw(line))
    await _after_change(context, match, after, record)
    return None


async def btn_extend(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    svc = services(context)
    match = _gm_checked(context, user, tr, cb)
    seconds = cb.int_arg(0)
    after = usecases.extend(svc.deps, match.id, user.id, seconds)
    gtr = Tr(after.lang)
    await _announce(
        context,
        after,
        "gm.extended",
        d=clock_text.duration(gtr, seconds),
        deadline=Raw(clock_text.deadline_line(gtr, after, svc.deps.clock())),
    )
    await bot.refresh_status(context, after)
    return None


async def btn_undo(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    svc = services(context)
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
    after, undone = usecases.undo(svc.deps, match.id, user.id, turn=match.turn)
    await _close_status(context, match, after)
    await _after_undo(context, after, undone)
    return None


async def btn_summary_undo(
    context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback
) -> str | None:
    """Undo the turn that finished the match, from the final summary (GM only, confirmed)."""
    svc = services(context)
    match = _load(svc, cb)
    _require_gm(tr, match, user)
    if match.phase is not Phase.FINISHED or match.turn != cb.turn:
        raise Alert(tr("err.stale"))
    gtr = Tr(match.lang)
    summary = bot.summary_screen(gtr, match)
    if cb.kind == "gsb":  # back: the summary as it was
        await edit(context, msg.chat.id, msg.message_id, summary)
        return None
    if cb.kind == "gsu":
        rows = [
            [
                Button(gtr("btn.confirm"), Callback("gsc", match.id, match.turn)),
                Button(gtr("btn.back"), Callback("gsb", match.id, match.turn)),
            ]
        ]
        text = summary.text + "\n\n" + gtr("gm.undo_confirm", turn=match.turn - 1)
        await edit(context, msg.chat.id, msg.message_id, Screen(text, rows))
        return None
    after, undone = usecases.undo(svc.deps, match.id, user.id, turn=match.turn)
    await edit(context, msg.chat.id, msg.message_id, Screen(summary.text))
    await _after_undo(context, after, undone)
    return None


async def _after_undo(context: Ctx, after: Match, undone: TurnRecord) -> None:
    """Announce an undo, reopen the turn (new commitment, builders) and tell the players."""
    svc = services(context)
    await _announce(context, after, "gm.undone", turn=undone.turn)
    await bot.open_turn(context, after)  # a new status with the new commitment, then builders
    after = svc.deps.repo.load(after.id).match
    for seat in after.seats:
        if seat.user_id is None or seat.npc or seat.pid not in lifecycle.acting(after):
            continue
        ptr = Tr(svc.lang_for(seat.user_id, after.lang))
        text = ptr("gm.undo_private", id=after.id, turn=undone.turn)
        await bot.dm(context, after, seat.user_id, Screen(text))


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
    svc = services(context)
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
    after, record = usecases.forfeit(svc.deps, match.id, user.id, pid, reason="gm")
    await _announce(context, after, "gm.removed", name=name)
    await _after_change(context, match, after, record)
    return None


async def btn_result(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    svc = services(context)
    match = _gm_checked(context, user, tr, cb)
    gtr = Tr(match.lang)
    if cb.kind == "gwn":
        choices = get_ui(match.ruleset).result_choices(gtr, match)  # seats, or sides
        rows = [
            [Button(text, Callback("gwc", match.id, match.turn, (arg,)))] for text, arg in choices
        ]
        rows.append([Button(gtr("gm.btn_draw"), Callback("gwc", match.id, match.turn, ("-",)))])
        rows.append([Button(gtr("btn.back"), Callback("gx", match.id, match.turn))])
        await _panel_screen(context, msg, match, gtr("gm.result_pick"), rows)
        return None
    pid = cb.arg(0)
    if pid == "-":
        outcome = Outcome("draw", reason="gm")
    else:
        outcome = Outcome("win", get_ui(match.ruleset).result_winners(match, pid), reason="gm")
    after = usecases.end_match(svc.deps, match.id, user.id, outcome)
    await _after_change(context, match, after, None)
    return None


# --------------------------------------------------------------------------- missed turns


async def absentee_alert(context: Ctx, match: Match) -> None:
    """After a resolution: players who missed ``missed_turns_alert`` turns in a row (and every
    further such run) are reported to the GM in the group, with Replace/Remove buttons."""
    if match.phase is not Phase.RUNNING:
        return
    limit = clock_config(match).missed_turns_alert
    due = [p for p in absentees(match) if match.missed.get(p, 0) % limit == 0]
    if not due:
        return
    gtr = Tr(match.lang)
    lines = [gtr.n("gm.absent", match.missed.get(p, 0), name=Raw(_name(match, p))) for p in due]
    rows = [
        [
            Button(
                gtr("gm.btn_replace_who", name=match.seat(p).name),
                Callback("grp", match.id, match.turn, (p,)),
            ),
            Button(
                gtr("gm.btn_remove_who", name=match.seat(p).name),
                Callback("gko", match.id, match.turn, (p,)),
            ),
        ]
        for p in due
    ]
    await send(context, match.chat_id, Screen("\n".join(lines), rows))


# --------------------------------------------------------------------------- typed GM commands


async def remember_users(update: Update, context: Ctx) -> None:
    """Remember @usernames seen in updates, so ``/gm @user`` and ``/replace p2 @user`` can name
    someone (a bot cannot look a username up)."""
    seen: dict[str, tuple[int, str]] = context.application.bot_data.setdefault(_USERS, {})
    users = [update.effective_user]
    msg = update.effective_message
    if msg is not None and msg.reply_to_message is not None:
        users.append(msg.reply_to_message.from_user)
    for u in users:
        if u is not None and u.username and not u.is_bot:
            seen[u.username.lower()] = (u.id, u.full_name)


def _target_user(context: Ctx, update: Update, words: Sequence[str]) -> tuple[int, str] | None:
    """The user a command names: the replied-to message's author, a text mention, or a
    remembered @username."""
    msg = update.effective_message
    assert msg is not None
    if msg.reply_to_message is not None and msg.reply_to_message.from_user is not None:
        u = msg.reply_to_message.from_user
        if not u.is_bot:
            return u.id, u.full_name
    for ent in msg.entities:
        if ent.type == MessageEntity.TEXT_MENTION and ent.user is not None:
            return ent.user.id, ent.user.full_name
    seen: dict[str, tuple[int, str]] = context.application.bot_data.get(_USERS, {})
    for w in words:
        if w.startswith("@") and w[1:].lower() in seen:
            return seen[w[1:].lower()]
    return None


def _seat_by_word(match: Match, word: str) -> str:
    """A pid from ``p2`` or a participant's name (case-insensitive)."""
    for s in match.seats:
        if word == s.pid or word.lower() == s.name.lower():
            return s.pid
    starts = [s.pid for s in match.seats if s.name.lower().startswith(word.lower())]
    if len(starts) == 1:  # a first name is enough when it is unambiguous
        return starts[0]
    raise Rejection("no_such_participant", pid=word)


@command
async def cmd_gm(update: Update, context: Ctx) -> None:
    """``/gm`` replying to a user's message (or ``/gm @user``): hand the GM role over."""
    svc = services(context)
    user, chat = update.effective_user, update.effective_chat
    assert user is not None and chat is not None
    match = bot.group_match(svc, chat.id)
    target = _target_user(context, update, list(context.args or []))
    if target is None:
        raise Rejection("name_a_user")
    after = usecases.hand_gm(svc.deps, match.id, user.id, target[0])
    await _announce(context, after, "gm.handed", name=target[1])
    await bot.gm_changed(context, after)


@command
async def cmd_replace(update: Update, context: Ctx) -> None:
    """``/replace <pid|name> [@user]`` (or replying to the new player's message): offer a seat
    to another user. The seat changes hands only when that user presses the deep link
    themselves (their confirmation); with no user named, the first who presses takes it."""
    svc = services(context)
    user, chat = update.effective_user, update.effective_chat
    assert user is not None and chat is not None
    match = bot.group_match(svc, chat.id)
    words = list(context.args or [])
    if match.gm_user_id != user.id:
        raise Rejection("gm_only")
    if not words:
        raise Rejection("invalid_field", what="replace", field="pid", expected="p1, p2… or a name")
    pid = _seat_by_word(match, words[0])
    seat = match.seat(pid)
    if seat.npc:
        raise Rejection("seat_is_npc")
    if match.phase is Phase.FINISHED:
        raise Rejection("already_finished")
    target = _target_user(context, update, words[1:])
    offers = dict(match.ui.get("offers") or {})
    # "from": the seat's holder now. The offer is for their seat: if it changes hands first
    # (they leave the lobby and a newcomer gets the same pid), the offer is void.
    offers[pid] = {"to": target[0] if target else 0, "by": user.id, "from": seat.user_id}
    match = usecases.update_ui(svc.deps, match.id, offers=offers)
    tr = Tr(match.lang)
    who = target[1] if target else tr("gm.anyone")
    url = deep_link(context, f"claim_{match.id}_{pid}")
    await send(
        context,
        chat.id,
        Screen(
            tr("gm.replace_offer", name=seat.name, who=who),
            [[Button(tr("gm.btn_claim"), url=url)]],
        ),
    )


async def cmd_claim(update: Update, context: Ctx) -> None:
    """``/start claim_<match>_<pid>``: the offered user takes the seat (pressing the link is
    their confirmation); other ``/start`` payloads go on to the bot's ``/start``."""
    payload = context.args[0] if context.args else ""
    if not payload.startswith("claim_"):
        return
    await _claim(update, context)
    raise ApplicationHandlerStop


@command
async def _claim(update: Update, context: Ctx) -> None:
    svc = services(context)
    user = update.effective_user
    assert user is not None and context.args
    match_id, _, pid = context.args[0].removeprefix("claim_").rpartition("_")
    match = svc.deps.repo.load(match_id).match
    offer = (match.ui.get("offers") or {}).get(pid)
    if not offer or offer.get("by") != match.gm_user_id:
        raise Rejection("no_offer")
    if pid not in {s.pid for s in match.seats} or offer.get("from") != match.seat(pid).user_id:
        raise Rejection("no_offer")  # the seat changed hands since the offer
    if offer.get("to") and offer["to"] != user.id:
        raise Rejection("offer_not_for_you")
    old = match.seat(pid).name
    after = usecases.replace_player(
        svc.deps, match.id, match.gm_user_id, pid, user.id, user.full_name
    )
    offers = {k: v for k, v in (after.ui.get("offers") or {}).items() if k != pid}
    after = usecases.update_ui(svc.deps, after.id, offers=offers)
    await _announce(context, after, "gm.replaced", old=old, new=user.full_name)
    tr = Tr(svc.user_lang(user))
    await send(context, user.id, Screen(tr("gm.claimed", id=after.id)))
    if after.phase is Phase.RUNNING:
        await bot.refresh_status(context, after)
        if pid in lifecycle.acting(after):
            await send(context, user.id, render.builder_screen(tr, after, pid, ()))
    else:
        await bot.refresh_lobby(context, after)


@command
async def cmd_edit(update: Update, context: Ctx) -> None:
    """``/edit <pid|name> <field> <value> <reason…>`` (GM): a ruling on one field of a
    participant's state, announced with its reason. Without arguments: the editable fields."""
    svc = services(context)
    user, chat = update.effective_user, update.effective_chat
    assert user is not None and chat is not None
    match = bot.group_match(svc, chat.id)
    tr = Tr(match.lang)
    words = list(context.args or [])
    if match.gm_user_id != user.id:
        raise Rejection("gm_only")
    if match.phase is not Phase.RUNNING or match.state is None:
        raise Rejection("not_running", phase=match.phase.value)
    if len(words) < 3:
        rules = match.rules
        state = rules.load_state(match.state)
        lines = [tr("gm.edit_help")]
        for s in match.seats:
            fields = rules.editable(state, s.pid)
            shown = ", ".join(f"{k}={v}" for k, v in fields.items()) or "—"
            lines.append(f"<code>{s.pid}</code> {esc(s.name)}: <code>{esc(shown)}</code>")
        await send(context, chat.id, Screen("\n".join(lines)))
        return
    pid = _seat_by_word(match, words[0])
    field, raw = words[1], words[2]
    value: Any = raw
    with contextlib.suppress(ValueError):  # "--5", "²": not numbers; the ruleset names them
        value = int(raw)
    reason = " ".join(words[3:])
    old = match.rules.editable(match.rules.load_state(match.state), pid).get(field)
    after = usecases.edit_state(svc.deps, match.id, user.id, pid, field, value, reason)
    await _announce(
        context,
        after,
        "gm.edited",
        name=Raw(_name(after, pid)),
        field=field,
        old=str(old),
        new=str(value),
        reason=reason,
    )
    await bot.refresh_status(context, after)


# --------------------------------------------------------------------------- player commands


def _my_match(svc: Services, update: Update, words: list[str], phase: Phase) -> Match:
    """The match a player command is about: the group's active match, or (in private) the one
    named by id or the only one in ``phase``."""
    user, chat = update.effective_user, update.effective_chat
    assert user is not None and chat is not None
    if chat.type != "private":
        match = bot.group_match(svc, chat.id)
        if match.phase is not phase:
            raise Rejection(f"not_{phase.value}", phase=match.phase.value)
        return match
    found, candidates, _ = bot._pick_match(svc, user.id, words, phase)
    if found is None:
        raise Rejection("no_active_match" if not candidates else "name_the_match")
    return found


@command
async def cmd_leave(update: Update, context: Ctx) -> None:
    """``/leave``: leave a match that has not started."""
    svc = services(context)
    user, chat = update.effective_user, update.effective_chat
    assert user is not None and chat is not None
    match = _my_match(svc, update, list(context.args or []), Phase.LOBBY)
    after = usecases.leave(svc.deps, match.id, user.id)
    await bot.refresh_lobby(context, after)
    await send(context, chat.id, Screen(Tr(svc.user_lang(user))("player.left", id=after.id)))


@command
async def cmd_forfeit(update: Update, context: Ctx) -> None:
    """``/forfeit``: leave a running match (asks for confirmation first)."""
    svc = services(context)
    user, chat = update.effective_user, update.effective_chat
    assert user is not None and chat is not None
    match = _my_match(svc, update, list(context.args or []), Phase.RUNNING)
    seat = match.seat_of_user(user.id)
    if seat is None:
        raise Rejection("not_a_participant")
    tr = Tr(svc.user_lang(user))
    rows = [
        [
            Button(tr("player.btn_forfeit"), Callback("pff", match.id, match.turn, (seat.pid,))),
            Button(tr("btn.back"), Callback("pfx", match.id, match.turn)),
        ]
    ]
    await send(context, chat.id, Screen(tr("player.forfeit_confirm", id=match.id), rows))


async def btn_forfeit(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    svc = services(context)
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
    after, record = usecases.forfeit(svc.deps, match.id, user.id, pid, reason="own")
    await edit(context, msg.chat.id, msg.message_id, Screen(tr("player.forfeited", id=match.id)))
    await _announce(context, after, "player.forfeit_announce", name=Raw(_name(after, pid)))
    await _after_change(context, match, after, record)
    return None


async def btn_withdraw(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    """Withdraw on a receipt: the order is taken back (the group sees the seat waiting again)."""
    svc = services(context)
    match = _load(svc, cb)
    _require_turn(tr, match, cb)
    pid = cb.arg(0)
    after = usecases.withdraw_order(svc.deps, match.id, user.id, pid, turn=cb.turn)
    rows = [[Button(tr("btn.order_for", id=match.id), Callback("b", match.id, match.turn, (pid,)))]]
    await edit(
        context, msg.chat.id, msg.message_id, Screen(tr("fair.withdrawn", id=match.id), rows)
    )
    await bot.refresh_status(context, after)
    return tr("fair.withdrawn_toast")


def history_text(tr: Tr, match: Match, records: Sequence[TurnRecord]) -> str:
    """Past turns, compact: each order, every die, every event."""
    ui = get_ui(match.ruleset)
    names = names_of(match)
    parts = [tr("history.title", title=Raw(render.match_title(tr, match)))]
    for r in records:
        lines = [tr("history.turn", turn=r.turn, reason=tr(f"history.reason_{r.reason}"))]
        for o in r.orders:
            key = "reveal.order_default" if o.default else "reveal.order"
            lines.append(
                tr(key, name=Raw(names.get(o.pid, o.pid)), order=Raw(ui.order_text(tr, o.order)))
            )
        lines += [ui.event_text(tr, names, e.kind, e.actor, e.data) for e in r.events]
        parts.append("\n".join(line for line in lines if line))
    if not records:
        parts.append(tr("history.none"))
    return "\n\n".join(parts)


def _history_match(svc: Services, update: Update, words: list[str]) -> Match:
    user, chat = update.effective_user, update.effective_chat
    assert user is not None and chat is not None
    if words:
        with contextlib.suppress(NotFoundError):
            match = svc.deps.repo.load(words[0]).match
            if _may_see(match, user.id, chat.id):
                return match
        raise Rejection("not_a_participant")
    if chat.type != "private":
        return bot.group_match(svc, chat.id)
    mine = [m for m in svc.deps.repo.active_for_user(user.id) if m.phase is not Phase.LOBBY]
    if len(mine) != 1:
        raise Rejection("no_active_match" if not mine else "name_the_match")
    return mine[0]


def _may_see(match: Match, user_id: int, chat_id: int) -> bool:
    """Revealed turns are public to the match's group and its participants."""
    return (
        chat_id == match.chat_id
        or user_id == match.gm_user_id
        or any(s.user_id == user_id for s in match.seats)
    )


@command
async def cmd_history(update: Update, context: Ctx) -> None:
    """``/history [match]``: every resolved turn (orders, dice, results), split under limits."""
    svc = services(context)
    user, chat = update.effective_user, update.effective_chat
    assert user is not None and chat is not None
    match = _history_match(svc, update, list(context.args or []))
    tr = Tr(match.lang if chat.type != "private" else svc.user_lang(user))
    records = usecases.history(svc.deps, match.id)
    await send(context, chat.id, Screen(history_text(tr, match, records)))


# --------------------------------------------------------------------------- the dossier


def _dossier_allowed(match: Match, user_id: int) -> bool:
    """The GM at any time (no unrevealed order ever enters a dossier); any participant once
    the match is over."""
    if user_id == match.gm_user_id:
        return True
    return match.phase is Phase.FINISHED and any(s.user_id == user_id for s in match.seats)


async def send_dossier(context: Ctx, match: Match, user: User, reply_chat: int) -> None:
    """Send the dossier privately to ``user``: the JSON (what ``sekundant verify`` checks) and
    a Markdown version in their language."""
    svc = services(context)
    tr = Tr(svc.user_lang(user))
    if not _dossier_allowed(match, user.id):
        raise Rejection("dossier_not_allowed")
    loaded = svc.deps.repo.load(match.id)
    current = list(loaded.orders.values()) if loaded.match.phase is Phase.RUNNING else []
    dossier = build_dossier(
        loaded.match, usecases.history(svc.deps, match.id), current, generated_at=svc.deps.clock()
    )
    data, md = fairness.dossier_files(dossier, tr)
    stem = f"sekundant-{match.id}-{time.strftime('%Y%m%d', time.gmtime(svc.deps.clock()))}"
    try:
        for content, name, caption in (
            (data, f"{stem}.json", tr("fair.dossier_caption_json")),
            (md, f"{stem}.md", tr("fair.dossier_caption_md")),
        ):
            doc = InputFile(content, filename=name)

            async def upload(doc: InputFile = doc, caption: str = caption) -> Message:
                return await context.bot.send_document(user.id, doc, caption=caption)

            await bot._api(svc, upload)
    except Forbidden:
        await send(context, reply_chat, Screen(tr("fair.dossier_open_private")))
        return
    if reply_chat != user.id:
        await send(context, reply_chat, Screen(tr("fair.dossier_sent", name=user.full_name)))


@command
async def cmd_dossier(update: Update, context: Ctx) -> None:
    """``/dossier [match]``: the match dossier as files, sent privately."""
    svc = services(context)
    user, chat = update.effective_user, update.effective_chat
    assert user is not None and chat is not None
    match = _history_match(svc, update, list(context.args or []))
    await send_dossier(context, match, user, chat.id)


async def btn_dossier(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    svc = services(context)
    match = _load(svc, cb)
    try:
        chat = msg.chat.id if msg.chat.type == "private" else user.id
        await send_dossier(context, match, user, chat)
    except TelegramError:  # e.g. the private chat is closed: answer the press, say why
        bot.log.warning("dossier of %s for %s not sent", match.id, user.id, exc_info=True)
        raise bot.Alert(tr("input.dossier_failed")) from None
    return tr("fair.dossier_toast")


# --------------------------------------------------------------------------- wiring


def register(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    bot.BUTTONS.update(
        {
            "gm": btn_menu,
            "gpa": btn_pause,
            "gre": btn_pause,
            "gex": btn_extend,
            "gun": btn_undo,
            "guc": btn_undo,
            "gsu": btn_summary_undo,
            "gsc": btn_summary_undo,
            "gsb": btn_summary_undo,
            "grp": btn_replace,
            "gko": btn_remove,
            "gkc": btn_remove,
            "gwn": btn_result,
            "gwc": btn_result,
            "pff": btn_forfeit,
            "pfx": btn_forfeit,
            "wd": btn_withdraw,
            "dos": btn_dossier,
        }
    )
    app.add_handler(TypeHandler(Update, remember_users), group=-2)
    private = filters.ChatType.PRIVATE & filters.UpdateType.MESSAGE
    groups = filters.ChatType.GROUPS & filters.UpdateType.MESSAGE
    anywhere = filters.UpdateType.MESSAGE
    app.add_handler(CommandHandler("start", cmd_claim, filters=private), group=-1)
    app.add_handler(CommandHandler("gm", cmd_gm, filters=groups))
    app.add_handler(CommandHandler("replace", cmd_replace, filters=groups))
    app.add_handler(CommandHandler("edit", cmd_edit, filters=groups))
    app.add_handler(CommandHandler("leave", cmd_leave, filters=anywhere))
    app.add_handler(CommandHandler("forfeit", cmd_forfeit, filters=anywhere))
    app.add_handler(CommandHandler("history", cmd_history, filters=anywhere))
    app.add_handler(CommandHandler("dossier", cmd_dossier, filters=anywhere))
