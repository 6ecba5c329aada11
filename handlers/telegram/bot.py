"""The Telegram shell: one wiring function (:func:`build_application`) and thin handlers.

Each handler parses the update, calls one use case of :mod:`engine.usecases` (which loads,
runs the pure core and saves), renders with :mod:`handlers.telegram.render` and the ruleset's UI
module, and sends. No PTB conversation state, persistence or job queue: everything lives in the
store or in the (signed) callback data. Services reach handlers through ``bot_data``.

Errors: a :class:`~engine.errors.Rejection` becomes its translated message (a reply, or a
private alert for a button), nothing changed; lost races become "please try again".
"""

from __future__ import annotations

import contextlib
import logging

from telegram import (
    Message,
    Update,
    User,
)

from engine import match as lifecycle
from engine import rulesets as registry
from engine import usecases
from engine.errors import ConflictError, Rejection
from engine.match import Match, Phase
from engine.ruleset import Outcome
from handlers.telegram import hints, plain, render, stale
from handlers.telegram.callbacks import Callback
from handlers.telegram.clock_text import deadline_line
from handlers.telegram.i18n import LANGS, Raw, Tr
from handlers.telegram.shared.context import (
    Ctx,
    services,
)
from handlers.telegram.shared.guards import (
    EXPECTED,
    Alert,
    Button_,
    _choose,
    _load,
    _order_example,
    _own_seat,
    _pick_match,
    _require_gm,
    _require_turn,
    _user_matches,
    command,
    gm_lobby,
    group_match,
)
from handlers.telegram.shared.send import (
    _api,
    dm,
    edit,
    send,
)
from handlers.telegram.shared.turns import (
    _lobby_url,
    _seal,
    gm_changed,
    gm_run,
    on_resolved,
    open_turn,
    open_turn_gm,
    refresh_lobby,
    refresh_status,
    refuse_if_before_turn,
    summary_screen,
)
from handlers.telegram.ui import Button, Screen, esc, get_ui, has_ui, names_of

log = logging.getLogger("sekundant.bot")


# --------------------------------------------------------------------------- sending


# --------------------------------------------------------------------------- guard


# --------------------------------------------------------------------------- lookups


# --------------------------------------------------------------------------- commands


@command
async def cmd_start(update: Update, context: Ctx) -> None:
    """``/start`` in private: a deep link (``join_<id>``, ``play_<id>``) or the welcome."""
    svc = services(context)
    user, chat = update.effective_user, update.effective_chat
    assert user is not None and chat is not None
    tr = Tr(svc.user_lang(user))
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
    if payload.startswith("play_"):
        match = svc.deps.repo.load(payload.removeprefix("play_")).match
        await _open_match(context, tr, match, user.id)
        return
    await send(context, chat.id, Screen(tr("start.welcome")))


async def _join(update: Update, context: Ctx, match_id: str) -> None:
    svc = services(context)
    user = update.effective_user
    assert user is not None
    tr = Tr(svc.user_lang(user))
    try:
        match = usecases.join(svc.deps, match_id, user.id, user.full_name)
        await refresh_lobby(context, match)
    except Rejection as exc:
        match = svc.deps.repo.load(match_id).match
        if exc.code != "already_joined" and match.seat_of_user(user.id) is None:
            raise  # (a seat holder's old Join link of a started match: "already in", too)
        await send(context, user.id, Screen(tr("input.join.already")))
        seat = match.seat_of_user(user.id)
        if match.phase is not Phase.LOBBY or seat is None or seat.character is None:
            await _open_match(context, tr, match, user.id)  # what is still to do, if anything
        return
    await send(context, user.id, Screen(tr("join.done", title=Raw(render.match_title(tr, match)))))
    await _open_match(context, tr, match, user.id)


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
        await send(context, user_id, character_screen(tr, match, pid))
    elif match.phase is Phase.RUNNING and pid in lifecycle.acting(match):
        msg = await send(context, user_id, render.builder_screen(tr, match, pid, ()))
        await stale.remember(context, match, [msg])
    else:
        await send(context, user_id, Screen(render.match_list(tr, [match])))


def character_screen(tr: Tr, match: Match, pid: str) -> Screen:
    ui = get_ui(match.ruleset)
    rules = match.rules
    presets = rules.presets(rules.config(match.config))
    rows = [
        [Button(ui.preset_label(tr, pid_, ch), Callback("chr", match.id, 0, (pid, pid_)))]
        for pid_, ch in presets.items()
    ]
    text = tr(
        "character.pick",
        title=Raw(render.match_title(tr, match)),
        example=Raw(esc(hints.character_example(match))),
    )
    return Screen(text, rows)


@command
async def cmd_duel(update: Update, context: Ctx) -> None:
    """``/duel`` or ``/newmatch`` in a group: pick the ruleset with buttons."""
    svc = services(context)
    user, chat = update.effective_user, update.effective_chat
    assert user is not None and chat is not None
    tr = Tr(svc.user_lang(user))
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
async def cmd_help(update: Update, context: Ctx) -> None:
    svc = services(context)
    user, chat = update.effective_user, update.effective_chat
    assert user is not None and chat is not None
    if chat.type == "private":
        tr = Tr(svc.user_lang(user))
        matches = _user_matches(svc, user.id)
    else:
        matches = svc.deps.repo.active_in_chat(chat.id)
        tr = Tr(matches[0].lang if matches else svc.user_lang(user))
    parts = [tr("help.private" if chat.type == "private" else "help.group")]
    for rid in dict.fromkeys(m.ruleset for m in matches):
        parts.append(tr(get_ui(rid).help_key))
    parts.append(tr("help.rulesets"))  # all of them, and /rules
    await send(context, chat.id, Screen("\n\n".join(parts)))


@command
async def cmd_lang(update: Update, context: Ctx) -> None:
    """``/lang [ru|en]``: the user's language in private; the match's language in a group (GM)."""
    svc = services(context)
    user, chat = update.effective_user, update.effective_chat
    assert user is not None and chat is not None
    choice = (context.args[0].lower() if context.args else "")[:2]
    if chat.type == "private":
        if choice not in LANGS:
            tr = Tr(svc.user_lang(user))
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
    svc = services(context)
    user, chat = update.effective_user, update.effective_chat
    assert user is not None and chat is not None
    if chat.type != "private":
        matches = svc.deps.repo.active_in_chat(chat.id)
        if not matches:
            await send(context, chat.id, Screen(Tr(svc.user_lang(user))("matches.none")))
            return
        m = matches[0]
        tr = Tr(m.lang)
        if m.phase is Phase.LOBBY:
            await send(context, chat.id, Screen(render.lobby_screen(tr, m, "").text))
        else:
            fps = usecases.sealed_fingerprints(svc.deps, m.id)
            await send(context, chat.id, Screen(render.status_text(tr, m, fps, svc.deps.clock())))
        return
    tr = Tr(svc.user_lang(user))
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
async def cmd_order(update: Update, context: Ctx) -> None:
    """``/order [match] <typed order>`` in private; with no order, the builder."""
    svc = services(context)
    user = update.effective_user
    assert user is not None
    tr = Tr(svc.user_lang(user))
    words = list(context.args or [])
    match, candidates, words = _pick_match(svc, user.id, words, Phase.RUNNING)
    if match is None:
        example = _order_example(tr, candidates, user.id)
        await _choose(context, tr, user.id, candidates, user.id, example)
        return
    pid = _own_seat(match, user.id)
    assert pid is not None
    if not words:
        msg = await send(context, user.id, render.builder_screen(tr, match, pid, ()))
        await stale.remember(context, match, [msg])
        return
    refuse_if_before_turn(update, match)
    with plain.with_example(lambda: hints.order_example(tr, match, pid)):
        order = get_ui(match.ruleset).parse_typed(words)
        await _seal(context, tr, match, pid, user.id, order, message=None)


@command
async def cmd_character(update: Update, context: Ctx) -> None:
    """``/character [match] <sheet>`` in private: a typed character for the lobby."""
    svc = services(context)
    user = update.effective_user
    assert user is not None
    tr = Tr(svc.user_lang(user))
    match, candidates, words = _pick_match(svc, user.id, list(context.args or []), Phase.LOBBY)
    if match is None:
        example = hints.character_example(candidates[0], with_id=True) if candidates else ""
        await _choose(context, tr, user.id, candidates, user.id, example)
        return
    pid = _own_seat(match, user.id)
    assert pid is not None
    if not words:
        await send(context, user.id, character_screen(tr, match, pid))
        return
    lobby = match
    with plain.with_example(lambda: hints.character_example(lobby)):
        sheet = get_ui(match.ruleset).parse_character(words)
        match = usecases.set_character(svc.deps, match.id, user.id, pid, sheet)
    label = get_ui(match.ruleset).character_label(tr, sheet)
    await send(context, user.id, Screen(tr("character.set", character=Raw(label))))
    await refresh_lobby(context, match)


@command
async def cmd_takegm(update: Update, context: Ctx) -> None:
    """``/takegm`` in a group: a chat administrator takes the GM role of the active match."""
    svc = services(context)
    user, chat = update.effective_user, update.effective_chat
    assert user is not None and chat is not None
    match = group_match(svc, chat.id)
    tr = Tr(match.lang)
    member = await _api(svc, lambda: context.bot.get_chat_member(chat.id, user.id))
    if member.status not in ("administrator", "creator"):
        raise Rejection("admins_only")
    match = usecases.hand_gm(svc.deps, match.id, user.id, user.id, as_admin=True)
    await send(context, chat.id, Screen(tr("gm.taken", name=user.full_name)))
    await gm_changed(context, match)


# --------------------------------------------------------------------------- buttons


async def btn_new(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    svc = services(context)
    rid, owner = cb.arg(0), int(cb.arg(1))
    if owner != user.id:
        raise Alert(tr("err.not_yours"))
    if svc.deps.repo.active_in_chat(msg.chat.id):
        raise Alert(tr("duel.exists", id=svc.deps.repo.active_in_chat(msg.chat.id)[0].id))
    lang = svc.user_lang(user)
    mid = cb.arg(2) or None  # pickers drawn before ids were carried: a new id
    try:
        match = usecases.create_match(svc.deps, msg.chat.id, user.id, rid, lang=lang, match_id=mid)
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
    usecases.update_ui(svc.deps, match.id, lobby=msg.message_id)
    return None


async def btn_option(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    svc = services(context)
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
    svc = services(context)
    match = gm_lobby(svc, tr, cb, user)
    match, events = usecases.start(svc.deps, match.id, user.id)
    gtr = Tr(match.lang)
    ui = get_ui(match.ruleset)
    names = names_of(match)
    lines = [gtr("start.title", title=Raw(render.match_title(gtr, match)))]
    for s in match.seats:
        lines.append(
            gtr(
                "lobby.seat", name=s.name, character=Raw(ui.character_label(gtr, s.character or {}))
            )
        )
    lines += [ui.event_text(gtr, names, e.kind, e.actor, e.data) for e in events]
    await edit(context, match.chat_id, msg.message_id, Screen("\n".join(lines)))
    await open_turn(context, match)
    return None


async def btn_character(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    svc = services(context)
    match = _load(svc, cb)
    if match.phase is not Phase.LOBBY:
        raise Alert(tr("err.stale"))
    pid, preset = cb.arg(0), cb.arg(1)
    rules = match.rules
    presets = rules.presets(rules.config(match.config))
    if preset not in presets:
        raise Alert(tr("err.stale"))
    match = usecases.set_character(svc.deps, match.id, user.id, pid, presets[preset])
    label = get_ui(match.ruleset).character_label(tr, presets[preset])
    await edit(
        context, msg.chat.id, msg.message_id, Screen(tr("character.set", character=Raw(label)))
    )
    await refresh_lobby(context, match)
    return None


async def btn_pick(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    svc = services(context)
    match = _load(svc, cb)
    await _open_match(context, tr, match, user.id)
    return None


async def btn_builder(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    svc = services(context)
    match = _load(svc, cb)
    _require_turn(tr, match, cb)
    pid = cb.arg(0)
    if match.seat(pid) not in match.controlled_by(user.id):
        raise Alert(tr("err.not_yours"))
    screen = render.builder_screen(tr, match, pid, cb.args[1:])
    if msg.chat.type == "private":
        await edit(context, msg.chat.id, msg.message_id, screen)
    else:
        await stale.remember(context, match, [await dm(context, match, user.id, screen)])
    from handlers.telegram import text_reply

    if text_reply.has_text_orders(match.ruleset):  # a text step: the next message is its text
        text_reply.remember(context, user.id, screen)
    return None


async def btn_seal(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    svc = services(context)
    match = _load(svc, cb)
    _require_turn(tr, match, cb)
    pid = cb.arg(0)
    order = get_ui(match.ruleset).order_for(match, pid, cb.args[1:])
    await _seal(context, tr, match, pid, user.id, order, message=msg)
    return tr("receipt.toast")


async def btn_gm_status(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str:
    svc = services(context)
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
    svc = services(context)
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
    res = usecases.force_resolve(svc.deps, match.id, user.id, match.turn)
    from handlers.telegram import input_flow

    await input_flow.tell_defaulted(context, res.match, res.record)  # as the deadline does
    await on_resolved(context, match, res.match, res.record)
    return None


async def btn_end(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    svc = services(context)
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
    ended = usecases.end_match(svc.deps, match.id, user.id, Outcome("draw", reason="gm"))
    await edit(context, msg.chat.id, msg.message_id, Screen(gtr("gm.ended")))
    if match.phase is Phase.RUNNING:
        await send(context, ended.chat_id, summary_screen(gtr, ended))
    return None


async def btn_back(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    """Cancel a GM confirmation: the panel (or lobby) comes back as it was."""
    svc = services(context)
    match = _load(svc, cb)
    _require_gm(tr, match, user)
    if match.phase is Phase.LOBBY:
        await refresh_lobby(context, match)
    else:
        _require_turn(tr, match, cb)
        await refresh_status(context, match)
    return None


async def btn_user_lang(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    svc = services(context)
    lang = cb.arg(0)
    if lang not in LANGS:
        raise ValueError(lang)
    svc.set_user_lang(user.id, lang)
    await edit(context, msg.chat.id, msg.message_id, Screen(Tr(lang)("lang.set")))
    return None


BUTTONS: dict[str, Button_] = {
    "new": btn_new,
    "opt": btn_option,
    "start": btn_start,
    "chr": btn_character,
    "pick": btn_pick,
    "b": btn_builder,
    "s": btn_seal,
    "gst": btn_gm_status,
    "gfr": btn_force,
    "gfc": btn_force,
    "gend": btn_end,
    "gec": btn_end,
    "gx": btn_back,
    "ul": btn_user_lang,
    stale.KIND: stale.btn_done,
}


# --------------------------------------------------------------------------- chat member


async def on_my_chat_member(update: Update, context: Ctx) -> None:
    """A user blocked (or unblocked) the bot in private: mark them (un)reachable."""
    svc = services(context)
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


# --------------------------------------------------------------------------- wiring
