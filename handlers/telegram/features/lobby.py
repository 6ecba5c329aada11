"""The lobby: /start and its deep links, /duel, /character, the new-match, option, character and
start buttons, and reachability from chat-member updates (moved from ``handlers.telegram.bot``)."""

from __future__ import annotations

import contextlib
import logging

from telegram import Message, Update, User

from engine import match as lifecycle
from engine import rulesets as registry
from engine import usecases
from engine.errors import ChatBusyError, ConflictError, Rejection
from engine.match import Match, Phase
from engine.ports import Owed
from handlers.telegram import hints, plain, stale
from handlers.telegram.callbacks import Callback
from handlers.telegram.i18n import LANGS, Raw, Tr
from handlers.telegram.screens import render
from handlers.telegram.shared import campaign, outbox
from handlers.telegram.shared.context import Ctx
from handlers.telegram.shared.gm_seats import gm_run, open_turn_gm
from handlers.telegram.shared.guards import (
    EXPECTED,
    Alert,
    _choose,
    _load,
    _own_seat,
    _pick_match,
    _user_matches,
    command,
    gm_lobby,
    sender,
    user_of,
)
from handlers.telegram.shared.notes import show
from handlers.telegram.shared.offloop import off_loop
from handlers.telegram.shared.page_button import open_proof
from handlers.telegram.shared.send import edit, send
from handlers.telegram.shared.turns import (
    _lobby_url,
    note,
    refresh_lobby,
    refresh_status,
)
from handlers.telegram.ui import Button, Screen, esc, get_ui, has_ui

log = logging.getLogger("sekundant.bot")


@command
async def cmd_start(update: Update, context: Ctx) -> None:
    """``/start`` in private: a deep link (``join_<id>``, ``play_<id>``, ``proof_<id>``) or
    the welcome."""
    svc = context.svc
    user, chat = sender(update)
    tr = context.tr(user)
    payload = context.args[0] if context.args else ""
    # The user can be messaged now: clear any "unreachable" mark.
    for m in _user_matches(svc, user.id):
        seat = m.seat_of_user(user.id)
        if seat is not None and not seat.reachable:
            changed = usecases.set_reachable(svc.deps, m.id, user.id, True)
            if changed.phase is Phase.RUNNING:
                await refresh_status(context, changed)
    if payload.startswith("join_"):
        await _join(update, context, payload.removeprefix("join_"))
        return
    if payload.startswith("proof_"):  # the final message's "📜 Proof" link
        await open_proof(context, user, payload.removeprefix("proof_"))
        return
    if payload.startswith("play_"):
        match = svc.deps.repo.load(payload.removeprefix("play_")).match
        await _open_match(context, tr, match, user.id)
        return
    await send(context, chat.id, Screen(tr("start.welcome")))


async def _join(update: Update, context: Ctx, match_id: str) -> None:
    svc = context.svc
    user = user_of(update)
    tr = context.tr(user)
    try:
        # The player's answer and the lobby are owed with the join (the outbox, issue 28).
        joined = {"kind": "joined", "chat": user.id, "user": user.id}
        notes = [joined, show("lobby")]
        match = usecases.join(svc.deps, match_id, user.id, user.full_name, notes=notes)
    except Rejection as exc:
        match = svc.deps.repo.load(match_id).match
        if exc.code != "already_joined" and match.seat_of_user(user.id) is None:
            raise  # (a seat holder's old Join link of a started match: "already in", too)
        await send(context, user.id, Screen(tr("input.join.already")))
        seat = match.seat_of_user(user.id)
        if match.phase is not Phase.LOBBY or seat is None or seat.character is None:
            await _open_match(context, tr, match, user.id)  # what is still to do, if anything
        return
    await outbox.deliver(context, match.id)


async def send_joined(context: Ctx, item: Owed) -> None:
    """The outbox's sender of a join's answer: "joined", then what to do now."""
    svc = context.svc
    latest = svc.deps.repo.load(item.match_id).match
    if latest.seat_of_user(item.chat_id) is None:
        return  # left meanwhile
    tr = Tr(svc.lang_for(item.chat_id, latest.lang))
    title = Raw(render.match_title(tr, latest))
    await send(context, item.chat_id, Screen(tr("join.done", title=title)))
    await _open_match(context, tr, latest, item.chat_id)


async def _open_match(context: Ctx, tr: Tr, match: Match, user_id: int) -> None:
    """Show a player what to do now in ``match``: pick a character, or build an order."""
    pid = _own_seat(match, user_id)
    if pid is None and user_id == match.gm_user_id:  # the GM's deep link: the NPCs' screens
        if match.phase is Phase.RUNNING and gm_run(match):
            await stale.remember(context, match, await open_turn_gm(context, match))
        else:
            await send(context, user_id, Screen(render.match_list(tr, [match])))
        return
    if pid is None:
        raise Rejection("not_a_participant")
    if match.phase is Phase.LOBBY:
        mine = campaign.character_rows(context.svc, tr, match, pid, user_id)
        picker = await send(context, user_id, character_screen(tr, match, pid, mine))
        await stale.remember_picker(context, match, picker)
    elif match.phase is Phase.RUNNING and pid in lifecycle.acting(match):
        msg = await send(context, user_id, render.builder_screen(tr, match, pid, ()))
        await stale.remember(context, match, [msg])
    else:
        await send(context, user_id, Screen(render.match_list(tr, [match])))


def character_screen(
    tr: Tr, match: Match, pid: str, mine: list[list[Button]] | None = None
) -> Screen:
    """The character picker: the built-in presets, then ``mine`` (the player's roster and the
    group's library: ``shared.campaign.character_rows``)."""
    ui = get_ui(match.ruleset)
    rules = match.rules
    presets = rules.presets(rules.config(match.config))
    rows = [
        [Button(ui.preset_label(tr, pid_, ch), Callback("chr", match.id, 0, (pid, pid_)))]
        for pid_, ch in presets.items()
    ]
    rows += mine or []
    text = tr(
        "character.pick",
        title=Raw(render.match_title(tr, match)),
        example=Raw(esc(hints.character_example(match, lang=tr.lang))),
    )
    return Screen(text, rows)


@command
async def cmd_duel(update: Update, context: Ctx) -> None:
    """``/duel`` or ``/newmatch`` in a group: pick the ruleset with buttons."""
    svc = context.svc
    user, chat = sender(update)
    tr = context.tr(user)
    if chat.type == "private":
        await send(context, chat.id, Screen(tr("duel.group_only")))
        return
    active = svc.deps.repo.active_in_chat(chat.id)
    if active:
        await send(context, chat.id, Screen(tr("duel.exists", id=active[0].id)))
        return
    ids = [r for r in registry.available() if has_ui(r)] or registry.available()
    # The picker carries the id of the match it creates: a double tap (two presses a webhook
    # handles at once, both before the chat's match is visible) creates it once (btn_new).
    mid = svc.deps.entropy.new_id()
    rows = [
        [Button(tr(f"ruleset.{rid}"), Callback("new", "", 0, (rid, str(user.id), mid)))]
        for rid in ids
    ]
    await send(context, chat.id, Screen(tr("duel.pick"), rows))


@command
async def cmd_character(update: Update, context: Ctx) -> None:
    """``/character [match] <sheet>`` in private: a typed character for the lobby."""
    svc = context.svc
    user = user_of(update)
    tr = context.tr(user)
    match, candidates, words = _pick_match(svc, user.id, list(context.args or []), Phase.LOBBY)
    if match is None:
        example = (
            hints.character_example(candidates[0], with_id=True, lang=tr.lang) if candidates else ""
        )
        await _choose(context, tr, user.id, candidates, user.id, example)
        return
    pid = _own_seat(match, user.id)
    assert pid is not None
    if not words:
        mine = campaign.character_rows(svc, tr, match, pid, user.id)
        picker = await send(context, user.id, character_screen(tr, match, pid, mine))
        await stale.remember_picker(context, match, picker)
        return
    lobby = match
    with plain.with_example(lambda: hints.character_example(lobby, lang=tr.lang)):
        sheet = get_ui(match.ruleset).parse_character(words)
        lobby_ok = lifecycle.set_character(match, user.id, pid, sheet)  # refused: nothing kept
        label = get_ui(match.ruleset).character_label(tr, sheet)
        told = note("character.set", chat=user.id, user=user.id, character=Raw(label))
        if kept := campaign.keep_built(svc, tr, user.id, lobby_ok, sheet):
            name = get_ui(match.ruleset).sheet_name(tr, kept)
            told["more"] = [note("campaign.kept", name=name)]
        notes = [told, show("lobby")]  # owed with the character (the outbox, issue 28)
        match = usecases.set_character(svc.deps, match.id, user.id, pid, sheet, notes=notes)
    await outbox.deliver(context, match.id)


async def btn_new(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    svc = context.svc
    rid, owner = cb.arg(0), int(cb.arg(1))
    if owner != user.id:
        raise Alert(tr("err.not_yours"))
    if svc.deps.repo.active_in_chat(msg.chat.id):
        raise Alert(tr("duel.exists", id=svc.deps.repo.active_in_chat(msg.chat.id)[0].id))
    lang = svc.user_lang(user)
    mid = cb.arg(2) or None  # pickers drawn before ids were carried: a new id
    try:
        match = usecases.create_match(
            svc.deps, msg.chat.id, user.id, rid, lang=lang, match_id=mid, lock_chat=True
        )
    except ChatBusyError as busy:
        # Another picker of this chat was pressed at the same instant (both passed the check
        # above) and made the chat's match: this press shows that lobby too.
        match = svc.deps.repo.load(busy.match_id).match
        if match.phase is not Phase.LOBBY:
            raise Alert(tr("duel.exists", id=match.id)) from None
        gtr = Tr(match.lang)
        screen = render.lobby_screen(gtr, match, _lobby_url(context, match))
        await edit(context, msg.chat.id, msg.message_id, screen)
        return None
    except ConflictError:
        # This picker's match exists: the other tap of a double tap, or this press before a
        # failed edit (Telegram re-sent it). Show its lobby again, as the first press would.
        match = svc.deps.repo.load(str(mid)).match
        if match.chat_id != msg.chat.id or match.phase is not Phase.LOBBY:
            raise Alert(tr("duel.exists", id=mid)) from None
    gtr = Tr(match.lang)
    await edit(
        context,
        msg.chat.id,
        msg.message_id,
        render.lobby_screen(gtr, match, _lobby_url(context, match)),
    )
    # Turn 0's commitment, as its own message, owed with the lobby's id (the outbox).
    usecases.update_ui_owing(svc.deps, match.id, {"lobby": msg.message_id}, [show("commitment")])
    await outbox.deliver(context, match.id)
    return None


async def btn_option(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    svc = context.svc
    match = gm_lobby(svc, tr, cb, user)
    name = cb.arg(0)
    if name == "lang":
        lang = cb.arg(1)
        if lang not in LANGS:
            raise ValueError(lang)
        match = usecases.set_language(svc.deps, match.id, user.id, lang)
    else:
        opts = {o.name: o for o in get_ui(match.ruleset).options(tr, match)}
        if name not in opts:
            raise Alert(tr("err.stale"))
        match = usecases.configure(svc.deps, match.id, user.id, opts[name].patch)
    await refresh_lobby(context, match)
    return None


async def btn_start(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    svc = context.svc
    match = gm_lobby(svc, tr, cb, user)
    if match.ui.get("lobby") != msg.message_id:  # the start goes where this press was
        match = usecases.update_ui(svc.deps, match.id, lobby=msg.message_id)
    match, _events = await off_loop(usecases.start, svc.deps, match.id, user.id)
    await outbox.deliver(context, match.id)  # announce_started, owed with the start
    return None


async def btn_character(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    svc = context.svc
    match = _load(svc, cb)
    if match.phase is not Phase.LOBBY:
        raise Alert(tr("err.stale"))
    pid, preset = cb.arg(0), cb.arg(1)
    rules = match.rules
    presets = rules.presets(rules.config(match.config))
    if preset not in presets:
        raise Alert(tr("err.stale"))
    match = usecases.set_character(
        svc.deps, match.id, user.id, pid, presets[preset], notes=[show("lobby")]
    )
    label = get_ui(match.ruleset).character_label(tr, presets[preset])
    await edit(
        context, msg.chat.id, msg.message_id, Screen(tr("character.set", character=Raw(label)))
    )
    await outbox.deliver(context, match.id)  # the lobby, owed with the character
    return None


async def btn_pick(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    svc = context.svc
    match = _load(svc, cb)
    await _open_match(context, tr, match, user.id)
    return None


async def on_my_chat_member(update: Update, context: Ctx) -> None:
    """A user blocked (or unblocked) the bot in private: mark them (un)reachable."""
    svc = context.svc
    change = update.my_chat_member
    if change is None or change.chat.type != "private":
        return
    reachable = change.new_chat_member.status not in ("kicked", "left")
    for m in _user_matches(svc, change.from_user.id):
        seat = m.seat_of_user(change.from_user.id)
        if seat is not None and seat.reachable != reachable:
            with contextlib.suppress(*EXPECTED):
                changed = usecases.set_reachable(svc.deps, m.id, change.from_user.id, reachable)
                await refresh_status(context, changed)
