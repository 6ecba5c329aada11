"""Sides and GM-run participants (NPCs): lobby buttons, the GM's NPC panel, typed commands,
and the GM's private order builders for NPCs (and for seats the ruleset hands to the GM, D34).

Wired in :func:`handlers.telegram.app.add_handlers` (its commands and buttons) and
``shared.gm_seats.open_turn_gm`` (one line in ``open_turn``). Handlers stay thin: one use case each.

Commands:

- ``/npc <preset|{json}> [side] [name…]`` — the GM adds an NPC in the lobby (group or private);
  ``/npc remove <pid>`` takes one out;
- ``/side <side>`` — a player puts their seat on a side; the GM: ``/side <pid> <side>``;
- ``/npcorder [match] <pid> <typed order>`` — the GM's typed order for an NPC (private).

Buttons (callback kinds): ``nsd`` a player's side in the lobby; ``npp`` the GM's NPC panel in
private; ``npa``/``npb`` add an NPC from a preset, then its side; ``npr`` removes an NPC;
``nsc`` the GM cycles a seat's side; ``nsl`` "same as last turn" and ``nnr`` "attack nearest"
fill an NPC order in one tap.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from telegram import Message, Update, User

from engine import usecases
from engine.errors import Rejection
from engine.match import Match, Phase
from handlers.telegram import hints, plain
from handlers.telegram.callbacks import Callback
from handlers.telegram.i18n import Raw, Tr
from handlers.telegram.shared import outbox
from handlers.telegram.shared.builders import refuse_if_before_turn
from handlers.telegram.shared.context import Ctx, Services
from handlers.telegram.shared.gm_seats import gm_run
from handlers.telegram.shared.guards import (
    Alert,
    _load,
    command,
    gm_lobby,
    message_of,
    sender,
    user_of,
)
from handlers.telegram.shared.notes import show
from handlers.telegram.shared.send import dm, edit
from handlers.telegram.shared.turns import _seal, note, refresh_lobby
from handlers.telegram.ui import (
    Button,
    Screen,
    aliases,
    bare_name,
    esc,
    get_ui,
    leading_phrase,
    parse_words,
    shown_names,
)

SIDE_LETTERS = "ABCDEF"


# --------------------------------------------------------------------------- commands


def _lobby_for_gm(svc: Services, user_id: int, chat_id: int, private: bool) -> list[Match]:
    if private:
        return [
            m
            for m in svc.deps.repo.active_for_user(user_id)
            if m.phase is Phase.LOBBY and m.gm_user_id == user_id
        ]
    return [m for m in svc.deps.repo.active_in_chat(chat_id) if m.phase is Phase.LOBBY]


@cache
def _preset_names(ruleset: str) -> dict[str, str]:
    """Every name the bot shows for a preset, in every language, and the ruleset's own typed
    words (``aliases.json``, "молодой"), to the preset id (docs/glossary.md); built when first
    needed, never at import (the webhook's cold path)."""
    typed = aliases(ruleset).get("character", {})
    return {**shown_names("dr.preset.", "preset.", "plans.preset."), **typed}


def npc_example(tr: Tr, presets: dict[str, Any]) -> str:
    """A ``/npc`` line as the reader would type it: the first preset by its shown name."""
    first = next(iter(presets), "young")
    key = next(
        (p + first for p in ("dr.preset.", "preset.", "plans.preset.") if tr.has(p + first)), ""
    )
    shown = bare_name(tr(key)) if key else first
    return f"/npc {shown} B {tr('npc.example_name')}"


def parse_npc(
    text: str, presets: dict[str, Any], ruleset: str = "dragons"
) -> tuple[dict[str, Any], str, str]:
    """``<preset|{json}> [side] [name…]`` -> (character, side, name). Raises Rejection."""
    body = text.strip()
    if not body:
        raise Rejection("typed_empty", what="npc")
    if body.startswith("{"):
        try:
            sheet, end = json.JSONDecoder().raw_decode(body)
        except json.JSONDecodeError as exc:
            raise Rejection("typed_json", what="npc", detail=exc.msg) from None
        except RecursionError:  # a message can nest deeper than the parser recurses
            raise Rejection("typed_too_deep", what="npc") from None
        if not isinstance(sheet, dict):
            raise Rejection("typed_json", what="npc", detail="object expected")
        rest = body[end:].split()
    else:
        words = body.split()
        found = leading_phrase(_preset_names(ruleset), words)  # a shown name: "Боевой дракон"
        if found is not None and found[0] in presets:
            words = [found[0], *words[found[1] :]]
        first, *rest = words
        if first.lower() not in presets:
            raise Rejection(
                "invalid_field",
                what="npc",
                field="preset",
                expected=", ".join(presets) + " or a JSON stat block",
            )
        sheet = dict(presets[first.lower()])
        overrides = [w for w in rest if "=" in w]
        rest = [w for w in rest if "=" not in w]
        if overrides:
            sheet.update(parse_words(overrides, what="character"))
    side = rest[0] if rest else ""
    name = " ".join(rest[1:]).strip()
    return sheet, side, name


@command
async def cmd_npc(update: Update, context: Ctx) -> None:
    """``/npc <preset|{json}> [side] [name…]``: the GM adds an NPC in the lobby;
    ``/npc remove <pid>`` takes one out."""
    svc = context.svc
    user, chat = sender(update)
    msg = message_of(update)
    tr = context.tr(user)  # the example a refusal shows, in the GM's words
    matches = _lobby_for_gm(svc, user.id, chat.id, chat.type == "private")
    if not matches:
        raise Rejection("no_active_match")
    if len(matches) > 1:  # in private: never guess which lobby the GM means
        raise Rejection("several_lobbies")
    match = matches[0]
    if match.gm_user_id != user.id:
        raise Rejection("gm_only")
    rules = match.rules
    presets = dict(rules.presets(rules.config(match.config)))
    text = (msg.text or "").partition(" ")[2]
    words = text.split()
    if len(words) == 2 and words[0].lower() == "remove" and "remove" not in presets:
        name = match.seat(words[1]).name
        told = note("npc.removed", chat=chat.id, user=user.id, name=name, pid=words[1])
        notes = [told, show("lobby")]  # owed with the removal (the outbox, issue 28)
        match = usecases.remove_npc(svc.deps, match.id, user.id, words[1], notes=notes)
        await outbox.deliver(context, match.id)
        return
    lobby = match
    with plain.with_example(lambda: npc_example(tr, presets)):
        sheet, side, name = parse_npc(text, presets, match.ruleset)
        name = name or _auto_name(lobby, sheet)
        # Its announcement and the lobby are owed with it (the outbox, issue 28).
        notes = [show("npc_added", chat=chat.id, user=user.id, name=name), show("lobby")]
        match = usecases.add_npc(svc.deps, match.id, user.id, name, side or "", sheet, notes=notes)
    await outbox.deliver(context, match.id)


def _auto_name(match: Match, sheet: dict[str, Any]) -> str:
    base = str(sheet.get("name") or "NPC")[:30]
    same = sum(1 for s in match.seats if s.npc and s.name.startswith(base))
    return f"{base} {same + 1}"


@command
async def cmd_side(update: Update, context: Ctx) -> None:
    """``/side <side>`` (your own seat) or, for the GM, ``/side <pid> <side>``."""
    svc = context.svc
    user, chat = sender(update)
    words = list(context.args or [])
    if chat.type == "private":
        matches = [
            m
            for m in svc.deps.repo.active_for_user(user.id)
            if m.phase is Phase.LOBBY
            and (m.seat_of_user(user.id) is not None or m.gm_user_id == user.id)
        ]
    else:
        matches = [m for m in svc.deps.repo.active_in_chat(chat.id) if m.phase is Phase.LOBBY]
    if not matches:
        raise Rejection("no_active_match")
    if len(matches) > 1:  # in private: never guess which lobby the player means
        raise Rejection("several_lobbies")
    match = matches[0]
    own = match.seat_of_user(user.id)
    example = "/side A" if own is not None else "/side p1 B"  # a player / the GM
    with plain.with_example(lambda: example):
        if len(words) == 2:
            pid, side = words
        elif len(words) == 1:
            if own is None:
                raise Rejection("not_a_participant")
            pid, side = own.pid, words[0]
        else:
            raise Rejection("invalid_field", what="side", field="side", expected="/side A")
        # The answer and the lobby are owed with the change (the outbox, issue 28).
        told = [show("side_set", chat=chat.id, user=user.id, pid=pid), show("lobby")]
        match = usecases.set_side(svc.deps, match.id, user.id, pid, side, notes=told)
    await outbox.deliver(context, match.id)


@command
async def cmd_npcorder(update: Update, context: Ctx) -> None:
    """``/npcorder [match] <pid> <typed order>``: the GM's typed order for an NPC."""
    svc = context.svc
    user = user_of(update)
    tr = context.tr(user)
    words = list(context.args or [])
    running = [
        m
        for m in svc.deps.repo.active_for_user(user.id)
        if m.phase is Phase.RUNNING and any(s.pid in gm_run(m) for s in m.controlled_by(user.id))
    ]
    if words and any(m.id == words[0] for m in running):
        running = [m for m in running if m.id == words[0]]
        words = words[1:]
    if not running:
        raise Rejection("no_active_match")
    if len(running) > 1:  # an NPC order sealed into the wrong match: ask for the id
        some = running[0]
        example = hints.order_example(tr, some, gm_run(some)[0], with_id=True)
        raise Rejection("name_the_match", example=example)
    match = running[0]
    mine = [p for p in gm_run(match) if match.seat(p) in match.controlled_by(user.id)]
    first = next((p for p in mine if p not in match.sealed), mine[0] if mine else "")
    pid = words[0] if words and any(p == words[0] for p in mine) else first
    with plain.with_example(lambda: hints.order_example(tr, match, pid)):
        if len(words) < 2:
            raise Rejection("npcorder_empty")
        if not any(s.pid == words[0] for s in match.seats):
            raise Rejection("no_such_participant", pid=words[0])
        if match.seat(pid) not in match.controlled_by(user.id) or pid != words[0]:
            raise Rejection("not_your_seat")
        refuse_if_before_turn(update, match)
        order = get_ui(match.ruleset).parse_typed_in(match, words[1:])
        await _seal(context, tr, match, pid, user.id, order, message=None)


# --------------------------------------------------------------------------- lobby buttons


async def btn_side(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    """A player presses "Side X" under the lobby: their own seat moves to X."""
    svc = context.svc
    match = _load(svc, cb)
    if match.phase is not Phase.LOBBY:
        raise Alert(tr("err.stale"))
    seat = match.seat_of_user(user.id)
    if seat is None:
        raise Rejection("not_a_participant")
    side = cb.arg(0)
    match = usecases.set_side(svc.deps, match.id, user.id, seat.pid, side)
    await refresh_lobby(context, match)
    return tr("npc.side_set_toast", side=side)


def panel_screen(tr: Tr, match: Match) -> Screen:
    """The GM's NPC panel (private): add an NPC from a preset, move any seat to a side."""
    rules = match.rules
    ui = get_ui(match.ruleset)
    presets = rules.presets(rules.config(match.config))
    lines = [tr("npc.panel", id=match.id)]
    for s in match.seats:
        tag = tr("dr.lobby.npc_tag") if s.npc else ""
        lines.append(f"• <code>{s.pid}</code> {esc(s.name)}{tag} — <b>{esc(s.side)}</b>")
    lines.append(tr("npc.panel_hint", example=Raw(esc(npc_example(tr, dict(presets))))))
    rows: list[list[Button]] = []
    row: list[Button] = []
    for pid_, ch in presets.items():
        label = ui.preset_label(tr, pid_, ch).replace("<b>", "").replace("</b>", "")
        row.append(Button(tr("npc.btn.add", preset=label), Callback("npa", match.id, 0, (pid_,))))
        if len(row) == 2:
            rows.append(row)
            row = []
    if row:
        rows.append(row)
    for s in match.seats:
        row = [
            Button(
                tr("npc.btn.cycle", name=s.name, side=s.side),
                Callback("nsc", match.id, 0, (s.pid,)),
            )
        ]
        if s.npc:  # an NPC added by mistake can be taken out again (players leave themselves)
            row.append(Button(tr("npc.btn.remove"), Callback("npr", match.id, 0, (s.pid,))))
        rows.append(row)
    return Screen("\n".join(lines), rows)


async def btn_panel(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    svc = context.svc
    match = gm_lobby(svc, tr, cb, user)
    if msg.chat.type == "private":
        await edit(context, msg.chat.id, msg.message_id, panel_screen(tr, match))
        return None
    sent = await dm(context, match, user.id, panel_screen(context.own_tr(user), match))
    if sent is None:
        raise Alert(tr("npc.start_bot_first"))
    return tr("npc.panel_sent")


def _sides(match: Match) -> list[str]:
    ui = get_ui(match.ruleset)
    sides: list[str] = list(getattr(ui, "sides", lambda m: list(SIDE_LETTERS[:2]))(match))
    fresh = next((c for c in SIDE_LETTERS if c not in sides), None)
    return [*sides, fresh] if fresh else sides


async def btn_add_preset(
    context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback
) -> str | None:
    """The GM picked a preset: now its side."""
    svc = context.svc
    match = gm_lobby(svc, tr, cb, user)
    preset = cb.arg(0)
    rows = [
        [Button(tr("dr.btn.side", side=s), Callback("npb", match.id, 0, (preset, s)))]
        for s in _sides(match)
    ]
    rows.append([Button(tr("btn.back"), Callback("npp", match.id, 0))])
    await edit(context, msg.chat.id, msg.message_id, Screen(tr("npc.pick_side"), rows))
    return None


async def btn_add_side(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    svc = context.svc
    match = gm_lobby(svc, tr, cb, user)
    preset, side = cb.arg(0), cb.arg(1)
    rules = match.rules
    presets = rules.presets(rules.config(match.config))
    if preset not in presets:
        raise Alert(tr("err.stale"))
    sheet = dict(presets[preset])
    name = _auto_name(match, sheet)
    lobby = [show("lobby")]  # the group's lobby: owed with the change (the outbox, issue 28)
    match = usecases.add_npc(svc.deps, match.id, user.id, name, side, sheet, notes=lobby)
    await edit(context, msg.chat.id, msg.message_id, panel_screen(tr, match))
    await outbox.deliver(context, match.id)
    return tr("npc.added_toast", name=match.seats[-1].name)


async def btn_cycle_side(
    context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback
) -> str | None:
    svc = context.svc
    match = gm_lobby(svc, tr, cb, user)
    seat = match.seat(cb.arg(0))
    sides = _sides(match)
    nxt = sides[(sides.index(seat.side) + 1) % len(sides)] if seat.side in sides else sides[0]
    match = usecases.set_side(svc.deps, match.id, user.id, seat.pid, nxt, notes=[show("lobby")])
    await edit(context, msg.chat.id, msg.message_id, panel_screen(tr, match))
    await outbox.deliver(context, match.id)  # the group's lobby, owed with the change
    return None


async def btn_remove(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    """The GM takes an NPC out of the lobby from the panel, after one confirmation."""
    svc = context.svc
    match = gm_lobby(svc, tr, cb, user)
    name = match.seat(cb.arg(0)).name
    if cb.arg(1) != "y":  # asked first, as every GM action that removes (issue 24)
        yes = Callback("npr", match.id, 0, (cb.arg(0), "y"))
        rows = [
            [Button(tr("btn.confirm"), yes), Button(tr("btn.back"), Callback("npp", match.id, 0))]
        ]
        text = tr("traps.npc.remove_confirm", name=name)
        await edit(context, msg.chat.id, msg.message_id, Screen(text, rows))
        return None
    match = usecases.remove_npc(svc.deps, match.id, user.id, cb.arg(0), notes=[show("lobby")])
    await edit(context, msg.chat.id, msg.message_id, panel_screen(tr, match))
    await outbox.deliver(context, match.id)  # the group's lobby, owed with the change
    return tr("npc.removed_toast", name=name)


# --------------------------------------------------------------------------- NPC helpers
