"""A player's roster (docs/campaign.md "My characters"): every custom character a player
types in a lobby is kept, offered in any lobby of its ruleset as one tap, and managed here in
private.

Commands (private): ``/characters`` lists them, with a button per character (its sheet, then
delete) and an export per ruleset; ``/characters set <ruleset> <name> = <sheet>`` adds or
replaces one (the sheet as ``/character`` takes it). A file sent in private (JSON or YAML, the
format of an export) is imported, all or nothing.

Buttons: ``cmc`` picks a roster character or a group preset in a lobby (drawn by
``shared.campaign.character_rows``); ``rsv`` shows one, ``rsd`` deletes it, ``rse`` exports a
ruleset's characters, ``rsl`` goes back to the list.
"""

from __future__ import annotations

from telegram import InputFile, Message, Update, User

from engine import rulesets as registry
from engine import usecases
from engine.errors import Rejection
from engine.match import Phase
from handlers.telegram import plain
from handlers.telegram.callbacks import Callback
from handlers.telegram.i18n import Raw, Tr
from handlers.telegram.screens import campaign_text
from handlers.telegram.shared import campaign
from handlers.telegram.shared.context import Ctx, Services
from handlers.telegram.shared.guards import Alert, _load, command, message_of, sender
from handlers.telegram.shared.send import _api, edit, send
from handlers.telegram.shared.turns import refresh_lobby
from handlers.telegram.ui import Button, Screen, get_ui


def list_screen(svc: Services, tr: Tr, user_id: int) -> Screen:
    store = campaign.required_store(svc)
    lines = [tr("roster.title")]
    rows: list[list[Button]] = []
    for rid in campaign.rulesets():
        kept = store.roster(user_id, rid)
        if not kept:
            continue
        lines.append(tr("roster.ruleset", ruleset=tr(f"ruleset.{rid}"), n=len(kept)))
        for i, e in enumerate(kept):
            label = Raw(get_ui(rid).character_label(tr, e["sheet"]))
            lines.append(tr("roster.line", name=e["name"], character=label))
            data = Callback("rsv", "", 0, (rid, str(i), campaign.tag(e["name"])))
            rows.append([Button(tr("roster.btn_show", name=e["name"]), data)])
        rows.append([Button(tr("roster.btn_export", ruleset=tr(f"ruleset.{rid}")),
                            Callback("rse", "", 0, (rid,)))])  # fmt: skip
    if not rows:
        lines.append(tr("roster.empty"))
    lines.append(tr("roster.help"))
    return Screen("\n".join(lines), rows)


@command
async def cmd_characters(update: Update, context: Ctx) -> None:
    """``/characters`` (private): the roster; ``/characters set <ruleset> <name> = <sheet>``."""
    svc = context.svc
    user, chat = sender(update)
    tr = context.tr(user)
    words = list(context.args or [])
    if words[:1] == ["set"]:
        await _set(context, tr, user.id, words[1:])
        return
    await send(context, chat.id, list_screen(svc, tr, user.id))


async def _set(context: Ctx, tr: Tr, user_id: int, words: list[str]) -> None:
    from engine.campaign import roster

    svc = context.svc
    example = "/characters set pistol Duelist = weapon=revolver perks=lucky"
    if len(words) < 3 or "=" not in words or words[0] not in campaign.rulesets():
        raise Rejection("roster_set_usage", example=example)
    rid, cut = words[0], words.index("=")
    name, sheet_words = " ".join(words[1:cut]).strip(), words[cut + 1 :]
    rules = registry.get(rid)
    with plain.with_example(lambda: example):
        from engine.campaign.documents import check_name

        bad = check_name(name, set())
        if bad is not None or not sheet_words:
            raise bad or Rejection("roster_set_usage")
        sheet = get_ui(rid).parse_character(sheet_words)
        rules.check_character(rules.config(), sheet)
    store = campaign.required_store(svc)
    kept = store.roster(user_id, rid)
    entry = roster.entry_doc(rid, name, sheet, svc.deps.clock())
    if entry["key"] not in {e["key"] for e in kept} and len(kept) >= roster.ROSTER_MAX:
        raise Rejection("roster_full", limit=roster.ROSTER_MAX)
    store.put_characters(user_id, [entry])
    label = Raw(get_ui(rid).character_label(tr, sheet))
    await send(context, user_id, Screen(tr("roster.saved", name=entry["name"], character=label)))


def _entry(svc: Services, user_id: int, tr: Tr, cb: Callback) -> dict[str, object]:
    rid = cb.arg(0)
    kept = campaign.required_store(svc).roster(user_id, rid) if rid in campaign.rulesets() else []
    i = cb.int_arg(1)
    if i >= len(kept) or campaign.tag(kept[i]["name"]) != cb.arg(2):
        raise Alert(tr("err.stale"))
    return kept[i]


async def btn_roster(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    """``rsv`` show, ``rsd`` delete, ``rsl`` back to the list, ``rse`` export."""
    svc = context.svc
    if cb.kind == "rsl":
        await edit(context, msg.chat.id, msg.message_id, list_screen(svc, tr, user.id))
        return None
    if cb.kind == "rse":
        await _export(context, tr, user.id, cb.arg(0))
        return None
    entry = _entry(svc, user.id, tr, cb)
    rid, name = cb.arg(0), str(entry["name"])
    if cb.kind == "rsd":
        campaign.required_store(svc).delete_character(user.id, rid, str(entry["key"]))
        await edit(context, msg.chat.id, msg.message_id, list_screen(svc, tr, user.id))
        return tr("roster.deleted", name=name)
    sheet = dict(entry["sheet"])  # type: ignore[call-overload]
    label = Raw(get_ui(rid).character_label(tr, sheet))
    text = tr("roster.one", name=name, ruleset=tr(f"ruleset.{rid}"), character=label)
    text += "\n" + campaign_text.sheet_block(sheet)
    text += "\n" + tr("roster.edit_hint", ruleset=rid, name=name)
    rows = [
        [Button(tr("roster.btn_delete"), Callback("rsd", "", 0, cb.args))],
        [Button(tr("btn.back"), Callback("rsl"))],
    ]
    await edit(context, msg.chat.id, msg.message_id, Screen(text, rows))
    return None


async def _export(context: Ctx, tr: Tr, user_id: int, rid: str) -> None:
    from engine.campaign import roster

    if rid not in campaign.rulesets():
        raise Alert(tr("err.stale"))
    doc = roster.export(rid, campaign.required_store(context.svc).roster(user_id, rid))
    data = InputFile(campaign_text.sheet_file(doc), filename=f"characters-{rid}.json")
    caption = tr("roster.export_caption")
    await _api(context.svc, lambda: context.bot.send_document(user_id, data, caption=caption))


@command
async def on_document(update: Update, context: Ctx) -> None:
    """A file in private: characters to import into the roster (all or nothing)."""
    from engine.campaign import documents, roster

    svc = context.svc
    user, chat = sender(update)
    tr = context.tr(user)
    doc = message_of(update).document
    if doc is None:
        return
    try:
        data = await campaign.download(context, doc.file_id, doc.file_size)
        parsed = documents.load_text(data)
        rid = parsed.get("ruleset") if isinstance(parsed, dict) else None
        if rid not in campaign.rulesets():
            raise documents.DocumentError(
                [
                    documents.EntryError(
                        "", Rejection("doc_no_ruleset", known=", ".join(campaign.rulesets()))
                    )
                ]
            )
        store = campaign.required_store(svc)
        kept = store.roster(user.id, rid)
        entries = roster.parse_import(registry.get(rid), data, rid, kept, svc.deps.clock())
    except documents.DocumentError as exc:
        await send(context, chat.id, Screen(campaign_text.errors_text(tr, exc.errors)))
        return
    store.put_characters(user.id, entries)
    names = ", ".join(str(e["name"]) for e in entries)
    await send(context, chat.id, Screen(tr.n("roster.imported", len(entries), names=names)))


async def btn_pick(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    """A roster character or a group preset picked in a lobby (``cmc``): the sheet is copied
    into the seat, so the match never depends on the roster again."""
    svc = context.svc
    match = _load(svc, cb)
    if match.phase is not Phase.LOBBY:
        raise Alert(tr("err.stale"))
    pid = cb.arg(0)
    picks = campaign.choices(svc, match, user.id)
    i = cb.int_arg(1)
    if i >= len(picks) or campaign.tag(picks[i][1]) != cb.arg(2):
        raise Alert(tr("err.stale"))
    _, name, sheet = picks[i]
    match = usecases.set_character(svc.deps, match.id, user.id, pid, sheet)
    label = Raw(get_ui(match.ruleset).character_label(tr, sheet))
    text = tr("campaign.picked", name=name, character=label)
    await edit(context, msg.chat.id, msg.message_id, Screen(text))
    await refresh_lobby(context, match)
    return None
