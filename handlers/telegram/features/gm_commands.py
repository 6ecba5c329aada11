"""The GM's typed commands in the group: /gm, /replace, /edit, and the claim of a seat through
/start (moved from ``handlers.telegram.gm_panel``)."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Sequence
from typing import Any

from telegram import MessageEntity, Update
from telegram.ext import (
    ApplicationHandlerStop,
)

from engine import usecases
from engine.errors import Rejection
from engine.match import Match, Phase
from handlers.telegram.i18n import Raw, Tr
from handlers.telegram.shared import farewell
from handlers.telegram.shared.context import Ctx
from handlers.telegram.shared.gm_seats import _name
from handlers.telegram.shared.guards import (
    command,
    group_match,
    message_of,
    sender,
    user_of,
)
from handlers.telegram.shared.notes import show
from handlers.telegram.shared.send import send
from handlers.telegram.shared.turns import (
    announce,
    note,
)
from handlers.telegram.ui import Screen, esc

log = logging.getLogger("sekundant.bot")


_USERS = "sekundant.users"  # username (lowercase) -> (user id, full name), seen in updates


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
    msg = message_of(update)
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
    svc = context.svc
    user, chat = sender(update)
    match = group_match(svc, chat.id)
    target = _target_user(context, update, list(context.args or []))
    if target is None:
        raise Rejection("name_a_user")
    # The new GM's screens (the NPCs' order builders) are owed with the handover too.
    told = [note("gm.handed", name=target[1]), show("gm_changed")]
    after = usecases.hand_gm(svc.deps, match.id, user.id, target[0], notes=told)
    await announce(context, after)


@command
async def cmd_replace(update: Update, context: Ctx) -> None:
    """``/replace <pid|name> [@user]`` (or replying to the new player's message): offer a seat
    to another user. The seat changes hands only when that user presses the deep link
    themselves (their confirmation); with no user named, the first who presses takes it."""
    svc = context.svc
    user, chat = sender(update)
    match = group_match(svc, chat.id)
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
    who = target[1] if target else Tr(match.lang)("gm.anyone")
    offer = show("offer", chat=chat.id, pid=pid, who=who)  # owed with it (the outbox)
    match = usecases.update_ui_owing(svc.deps, match.id, {"offers": offers}, [offer])
    await announce(context, match)


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
    svc = context.svc
    user = user_of(update)
    payload = context.args[0] if context.args else ""  # "claim_…": cmd_claim checked it
    match_id, _, pid = payload.removeprefix("claim_").rpartition("_")
    match = svc.deps.repo.load(match_id).match
    offer = (match.ui.get("offers") or {}).get(pid)
    if not offer or offer.get("by") != match.gm_user_id:
        raise Rejection("no_offer")
    if pid not in {s.pid for s in match.seats} or offer.get("from") != match.seat(pid).user_id:
        raise Rejection("no_offer")  # the seat changed hands since the offer
    if offer.get("to") and offer["to"] != user.id:
        raise Rejection("offer_not_for_you")
    old, old_user = match.seat(pid).name, match.seat(pid).user_id
    told = [note("gm.replaced", old=old, new=user.full_name)]
    if old_user != user.id:
        told += farewell.replaced_notes(match, old_user, user.full_name)
    # The new holder's answer, the status or lobby and their order screen: owed with the
    # handover (the outbox, issue 28).
    told += [
        note("gm.claimed", chat=user.id, user=user.id, id=match.id),
        show("status"),
        show("lobby"),
        show("builder", chat=user.id, user=user.id, pid=pid),
    ]
    after = usecases.replace_player(
        svc.deps, match.id, match.gm_user_id, pid, user.id, user.full_name, notes=told
    )
    offers = {k: v for k, v in (after.ui.get("offers") or {}).items() if k != pid}
    after = usecases.update_ui(svc.deps, after.id, offers=offers)
    await announce(context, after)


@command
async def cmd_edit(update: Update, context: Ctx) -> None:
    """``/edit <pid|name> <field> <value> <reason…>`` (GM): a ruling on one field of a
    participant's state, announced with its reason. Without arguments: the editable fields."""
    svc = context.svc
    user, chat = sender(update)
    match = group_match(svc, chat.id)
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
    ruling = note(
        "gm.edited",
        name=Raw(_name(match, pid)),
        field=field,
        old=str(old),
        new=str(value),
        reason=reason,
    )
    after = usecases.edit_state(  # the ruling and the status it changes: owed with it
        svc.deps, match.id, user.id, pid, field, value, reason, notes=[ruling, show("status")]
    )
    await announce(context, after)
