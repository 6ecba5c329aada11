"""The group's library (docs/campaign.md "The group's library"): presets a GM uploads for the
group's lobbies - characters every player can pick (``shared.campaign.character_rows``) and
NPC templates the GM adds with one tap.

``/library`` in the group lists the presets per ruleset; in a lobby the GM gets a ➕ button per
NPC template of its ruleset (then its side). A file sent in the group with the caption
``/library`` (or as a reply to the bot's library message) replaces that ruleset's library, all
or nothing. The GM (of the group's match, or a chat administrator) downloads it (``lbd``),
removes an entry (``lbr`` lists them, ``lbx`` removes one) or the whole library (``lbz``).
"""

from __future__ import annotations

from typing import Any

from telegram import InputFile, Message, Update, User

from engine import rulesets as registry
from engine import usecases
from engine.errors import Rejection
from engine.match import Match, Phase
from handlers.telegram.callbacks import Callback
from handlers.telegram.i18n import Tr
from handlers.telegram.screens import campaign_text
from handlers.telegram.shared import campaign
from handlers.telegram.shared.context import Ctx, Services
from handlers.telegram.shared.guards import (
    Alert,
    _load,
    command,
    gm_lobby,
    message_of,
    sender,
)
from handlers.telegram.shared.send import _api, edit, send
from handlers.telegram.shared.turns import refresh_lobby
from handlers.telegram.ui import Button, Screen

SECTIONS = ("characters", "npcs")
SIDES = "ABCDEF"


def _lobby(svc: Services, chat_id: int) -> Match | None:
    found = [m for m in svc.deps.repo.active_in_chat(chat_id) if m.phase is Phase.LOBBY]
    return found[0] if found else None


async def _may_manage(context: Ctx, chat_id: int, user_id: int) -> bool:
    """The GM of the group's current match, or a chat administrator."""
    if any(m.gm_user_id == user_id for m in context.svc.deps.repo.active_in_chat(chat_id)):
        return True
    member = await _api(context.svc, lambda: context.bot.get_chat_member(chat_id, user_id))
    return member.status in ("administrator", "creator")


def library_screen(svc: Services, tr: Tr, chat_id: int) -> Screen:
    from engine.campaign.library import presets

    store = campaign.required_store(svc)
    lines = [tr("library.title")]
    rows: list[list[Button]] = []
    lobby = _lobby(svc, chat_id)
    for rid in campaign.rulesets():
        lib = store.library(chat_id, rid)
        if lib is None:
            continue
        lines.append(tr("library.ruleset", ruleset=tr(f"ruleset.{rid}")))
        for section in SECTIONS:
            names = [n for n, _ in presets(lib, section)]
            if names:
                lines.append(tr(f"library.{section}", names=", ".join(names)))
        if lib.get("tables"):
            counts = ", ".join(f"{k} ({len(v)})" for k, v in lib["tables"].items())
            lines.append(tr("library.tables", tables=counts))
        if lobby is not None and lobby.ruleset == rid and lib.get("tables"):
            rows.append([Button(tr("library.btn_tables"), Callback("lbt", lobby.id))])
        if lobby is not None and lobby.ruleset == rid:
            for i, (name, _) in enumerate(presets(lib, "npcs")):
                data = Callback("lba", lobby.id, 0, (str(i), campaign.tag(name)))
                rows.append([Button(tr("library.btn_add_npc", name=name), data)])
        rows.append(
            [
                Button(tr("library.btn_download"), Callback("lbd", "", 0, (rid,))),
                Button(tr("library.btn_remove"), Callback("lbr", "", 0, (rid,))),
            ]
        )
    if not rows:
        lines.append(tr("library.empty"))
    lines.append(tr("library.help"))
    return Screen("\n".join(lines), rows)


@command
async def cmd_library(update: Update, context: Ctx) -> None:
    """``/library`` in a group: its presets (a file with this caption: an upload)."""
    user, chat = sender(update)
    tr = _group_tr(context, chat.id, user)
    await send(context, chat.id, library_screen(context.svc, tr, chat.id))


def _group_tr(context: Ctx, chat_id: int, user: User) -> Tr:
    active = context.svc.deps.repo.active_in_chat(chat_id)
    return Tr(active[0].lang) if active else context.tr(user)


def _is_upload(msg: Message) -> bool:
    if (msg.caption or "").split("@")[0].split(" ")[0] == "/library":
        return True
    replied = msg.reply_to_message
    return bool(
        replied is not None
        and replied.from_user is not None
        and replied.from_user.is_bot
        and "📚" in (replied.text or "")[:4]
    )


@command
async def on_document(update: Update, context: Ctx) -> None:
    """A file in the group, captioned ``/library`` (or replying to the library message): the
    group's new library of the file's ruleset, if every entry is right."""
    from engine.campaign import documents, library

    svc = context.svc
    user, chat = sender(update)
    msg = message_of(update)
    if msg.document is None or not _is_upload(msg):
        return
    tr = _group_tr(context, chat.id, user)
    if not await _may_manage(context, chat.id, user.id):
        raise Rejection("library_gm_only")
    try:
        data = await campaign.download(context, msg.document.file_id, msg.document.file_size)
        parsed = documents.load_text(data)
        rid = parsed.get("ruleset") if isinstance(parsed, dict) else None
        if rid not in campaign.rulesets():
            problem = Rejection("doc_no_ruleset", known=", ".join(campaign.rulesets()))
            raise documents.DocumentError([documents.EntryError("", problem)])
        rules = registry.get(rid)
        doc = library.parse_library(rules, data, rid, by=user.id, now=svc.deps.clock())
    except documents.DocumentError as exc:
        await send(context, chat.id, Screen(campaign_text.errors_text(tr, exc.errors)))
        return
    campaign.required_store(svc).put_library(chat.id, rid, doc)
    counts = {s: len(doc.get(s, [])) for s in SECTIONS}
    text = tr("library.saved", ruleset=tr(f"ruleset.{rid}"), **counts)
    await send(context, chat.id, Screen(text))
    await send(context, chat.id, library_screen(svc, tr, chat.id))


async def btn_manage(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    """``lbd`` download, ``lbr`` the entries to remove, ``lbx`` remove one, ``lbz`` remove
    the whole library, ``lbl`` back to the list."""
    from engine.campaign.library import presets, without

    svc = context.svc
    chat_id = msg.chat.id
    gtr = _group_tr(context, chat_id, user)
    if cb.kind == "lbl":
        await edit(context, chat_id, msg.message_id, library_screen(svc, gtr, chat_id))
        return None
    rid = cb.arg(0)
    lib = campaign.required_store(svc).library(chat_id, rid) if rid in campaign.rulesets() else None
    if lib is None:
        raise Alert(tr("err.stale"))
    if cb.kind == "lbd":
        data = InputFile(campaign_text.sheet_file(_public(lib)), filename=f"library-{rid}.json")
        caption = gtr("library.download_caption")
        await _api(svc, lambda: context.bot.send_document(chat_id, data, caption=caption))
        return None
    if not await _may_manage(context, chat_id, user.id):
        raise Alert(tr("err.library_gm_only"))
    if cb.kind == "lbz":
        campaign.required_store(svc).delete_library(chat_id, rid)
    elif cb.kind == "lbx":
        section = SECTIONS[cb.int_arg(1)]
        names = [n for n, _ in presets(lib, section)]
        i = cb.int_arg(2)
        if i >= len(names) or campaign.tag(names[i]) != cb.arg(3):
            raise Alert(tr("err.stale"))
        campaign.required_store(svc).put_library(chat_id, rid, without(lib, section, names[i]))
    else:  # lbr: the entries, each with its remove button
        await edit(context, chat_id, msg.message_id, _remove_screen(gtr, rid, lib))
        return None
    await edit(context, chat_id, msg.message_id, library_screen(svc, gtr, chat_id))
    return None


def _remove_screen(tr: Tr, rid: str, lib: dict[str, Any]) -> Screen:
    from engine.campaign.library import presets

    rows = []
    for s, section in enumerate(SECTIONS):
        for i, (name, _) in enumerate(presets(lib, section)):
            data = Callback("lbx", "", 0, (rid, str(s), str(i), campaign.tag(name)))
            rows.append([Button(tr("library.btn_remove_one", name=name), data)])
    rows.append([Button(tr("library.btn_remove_all"), Callback("lbz", "", 0, (rid,)))])
    rows.append([Button(tr("btn.back"), Callback("lbl"))])
    return Screen(tr("library.remove_pick", ruleset=tr(f"ruleset.{rid}")), rows)


def _public(lib: dict[str, Any]) -> dict[str, Any]:
    """The library as a file (what an upload reads back): no uploader, no time."""
    return {k: v for k, v in lib.items() if k not in ("uploaded_by", "uploaded_at")}


async def btn_tables(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    """``lbt``: the GM puts the library's tables (weapons, perks) into the lobby's options."""
    from engine.campaign.library import tables_patch

    svc = context.svc
    match = gm_lobby(svc, tr, cb, user)
    lib = campaign.required_store(svc).library(match.chat_id, match.ruleset) or {}
    if not lib.get("tables"):
        raise Alert(tr("err.stale"))
    patch = tables_patch(match.rules, match.ruleset, lib["tables"])
    match = usecases.configure(svc.deps, match.id, user.id, patch)
    await refresh_lobby(context, match)
    return Tr(match.lang)("library.tables_applied")


async def btn_add_npc(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    """``lba``: a library NPC template picked for the lobby (then ``lbs``: its side)."""
    from engine.campaign.library import presets

    svc = context.svc
    match = _load(svc, cb)
    if match.phase is not Phase.LOBBY:
        raise Alert(tr("err.stale"))
    if match.gm_user_id != user.id:
        raise Alert(tr("err.gm_only"))
    npcs = presets(campaign.required_store(svc).library(match.chat_id, match.ruleset), "npcs")
    i = cb.int_arg(0)
    if i >= len(npcs) or campaign.tag(npcs[i][0]) != cb.arg(1):
        raise Alert(tr("err.stale"))
    name, sheet = npcs[i]
    gtr = Tr(match.lang)
    if cb.kind == "lba":
        sides = list(dict.fromkeys(s.side for s in match.seats if s.side))
        sides += [c for c in SIDES if c not in sides][:1]
        rows = [
            [
                Button(
                    gtr("library.btn_side", side=side),
                    Callback("lbs", match.id, 0, (*cb.args[:2], side)),
                )
            ]
            for side in sides
        ]
        await edit(
            context, msg.chat.id, msg.message_id, Screen(gtr("library.pick_side", name=name), rows)
        )
        return None
    taken = {s.name for s in match.seats}
    label, n = name, 1
    while label in taken:
        n += 1
        label = f"{name} {n}"
    match = usecases.add_npc(svc.deps, match.id, user.id, label, cb.arg(2), sheet)
    await edit(context, msg.chat.id, msg.message_id, library_screen(svc, gtr, match.chat_id))
    await refresh_lobby(context, match)
    return gtr("library.npc_added", name=label)
