"""The Telegram bot's wiring: :func:`build_application` holds the one visible list of handlers
(commands, buttons, free text, chat-member updates) and the error handler; the command menus
(:func:`bot_commands`, :func:`set_commands`); the sweeper's entry (:func:`announce_sweep`).
Feature modules never import this module (moved from ``handlers.telegram.bot``)."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

from telegram import (
    BotCommand,
    BotCommandScopeAllGroupChats,
    BotCommandScopeAllPrivateChats,
    Update,
)
from telegram.ext import (
    Application,
    ApplicationBuilder,
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
    MessageHandler,
    TypeHandler,
    filters,
)
from telegram.request import BaseRequest

from engine.usecases import Deps
from handlers.telegram import stale, ui
from handlers.telegram.features import (
    chronicle,
    clock,
    gm_commands,
    gm_panel,
    gm_turn,
    group_orders,
    ladder,
    library,
    lobby,
    npc,
    npc_orders,
    odds,
    orders,
    player,
    records,
    roster,
    rules_help,
    text_reply,
)
from handlers.telegram.i18n import LANGS, Tr, normalize
from handlers.telegram.screens import odds_text
from handlers.telegram.shared import campaign, outbox, owed, text_steps
from handlers.telegram.shared.context import CONTEXT_TYPES, SERVICES, Ctx, Services, callback_secret
from handlers.telegram.shared.guards import Button_
from handlers.telegram.shared.offloop import PerChatProcessor
from handlers.telegram.shared.routing import add_flow, on_button, router

log = logging.getLogger("sekundant.bot")


async def on_error(update: object, context: Ctx) -> None:
    """Unexpected errors: logged, and kept for a webhook handler deciding its status code."""
    svc = context.application.bot_data.get(SERVICES)
    if isinstance(svc, Services) and context.error is not None:
        svc.errors.append(context.error)
    log.error("update failed", exc_info=context.error)


def bot_commands(lang: str) -> dict[str, list[BotCommand]]:
    """The command menus for private chats and groups in ``lang`` (used by ``run`` on startup
    and by ``setup-webhook``): ``{"private": [...], "group": [...]}``."""
    tr = Tr(lang)
    private = ["start", "order", "plan", "npcorder", "character", "characters", "side", "status"]
    private += ["history", "me"]
    private += ["dossier", "leave", "forfeit", "lang", "help", "rules"]
    group = ["duel", "status", "history", "dossier", "clock", "npc", "side", "replace", "edit"]
    group += ["gm", "lang", "takegm", "help", "rules", "library", "ladder"]
    group += ["chronicle"]
    return {
        "private": [BotCommand(c, tr(f"cmd.{c}")) for c in private],
        "group": [BotCommand(c, tr(f"cmd.{c}")) for c in group],
    }


async def set_commands(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Register the command menus for both scopes in both languages (default: English)."""
    for lang in (*LANGS, None):
        menus = bot_commands(lang or "en")
        await app.bot.set_my_commands(
            menus["private"], scope=BotCommandScopeAllPrivateChats(), language_code=lang
        )
        await app.bot.set_my_commands(
            menus["group"], scope=BotCommandScopeAllGroupChats(), language_code=lang
        )


async def announce_sweep(app: Any, results: Sequence[Any]) -> None:
    """Announce sweep results (the Lambda sweeper finds this; ``features.clock``)."""
    await clock.announce(app, results)


def build_application(
    deps: Deps,
    token: str,
    *,
    request: BaseRequest | None = None,
    get_updates_request: BaseRequest | None = None,
    base_url: str = "https://api.telegram.org",
    default_lang: str = "ru",
    updater: bool = False,
) -> Application[Any, Any, Any, Any, Any, Any]:
    """The one place the bot is wired: handlers, services, request classes.

    ``request`` replaces PTB's HTTP client (the fake Bot API in tests and the sandbox);
    ``base_url`` is the Bot API root (methods go to ``<root>/bot<token>/<method>``). With
    ``updater=False`` (webhook, tests) updates are fed with ``process_update``.
    """
    builder: ApplicationBuilder[Any, Any, Any, Any, Any, Any] = (
        Application.builder()
        .token(token)
        .base_url(f"{base_url}/bot")
        .base_file_url(f"{base_url}/file/bot")
        .context_types(CONTEXT_TYPES)
    )
    if request is not None:
        builder = builder.request(request)
        builder = builder.get_updates_request(get_updates_request or request)
    if not updater:
        builder = builder.updater(None)
    else:  # long polling: one chat's wait never delays another's update (shared/offloop.py)
        builder = builder.concurrent_updates(PerChatProcessor())
    app = builder.build()
    # In a chat, an order waits for its turn's commitment message (shared/commitments.py).
    deps.require_commitment_post = True
    # A locked turn's beacon round is fixed by its lock message's date (shared/lock.py).
    deps.lock_by_message = True
    app.bot_data[SERVICES] = Services(
        deps=deps, secret=callback_secret(token), default_lang=normalize(default_lang)
    )
    add_handlers(app)
    return app


# Every button, by its callback kind (a wire format: old buttons live in chats); a ruleset
# UI's own buttons come with its flow (add_handlers).
BUTTONS: Mapping[str, Button_] = MappingProxyType(
    {
        "new": lobby.btn_new,
        "opt": lobby.btn_option,
        "start": lobby.btn_start,
        "chr": lobby.btn_character,
        "pick": lobby.btn_pick,
        "b": orders.btn_builder,
        "s": orders.btn_seal,
        "gst": gm_turn.btn_gm_status,
        "gfr": gm_turn.btn_force,
        "gfc": gm_turn.btn_force,
        "gend": gm_turn.btn_end,
        "gec": gm_turn.btn_end,
        "gx": gm_turn.btn_back,
        "ul": player.btn_user_lang,
        stale.KIND: stale.btn_done,
        "gm": gm_panel.btn_menu,
        "gpa": gm_panel.btn_pause,
        "gre": gm_panel.btn_pause,
        "gex": gm_panel.btn_extend,
        "gun": gm_panel.btn_undo,
        "guc": gm_panel.btn_undo,
        "gsu": gm_panel.btn_summary_undo,
        "gsc": gm_panel.btn_summary_undo,
        "gsb": gm_panel.btn_summary_undo,
        "grp": gm_panel.btn_replace,
        "gko": gm_panel.btn_remove,
        "gkc": gm_panel.btn_remove,
        "gwn": gm_panel.btn_result,
        "gwp": gm_panel.btn_result,  # a result picked: asks to confirm
        "gwc": gm_panel.btn_result,
        "pff": player.btn_forfeit,
        "pfx": player.btn_forfeit,
        "wd": player.btn_withdraw,
        "dos": records.btn_dossier,
        "nsl": npc_orders.btn_same_as_last,
        "nnr": npc_orders.btn_nearest,
        "nsd": npc.btn_side,
        "npp": npc.btn_panel,
        "npa": npc.btn_add_preset,
        "npb": npc.btn_add_side,
        "nsc": npc.btn_cycle_side,
        "npr": npc.btn_remove,
        "clk": clock.btn_clock,
        odds_text.KIND: odds.btn_odds,  # the lobby's 🎲 Odds: the matchup simulated
        text_steps.KIND: text_reply.btn_text_hint,  # "✍️": reply with the order's text
        text_reply.SEAL: text_reply.btn_text_seal,  # 🔒 under the text shown back
        text_reply.REWRITE: text_reply.btn_text_rewrite,  # ✏️ under the text shown back
        campaign.PICK: roster.btn_pick,  # a roster character or group preset in a lobby
        "rsv": roster.btn_roster,
        "rsd": roster.btn_roster,
        "rsl": roster.btn_roster,
        "rse": roster.btn_roster,
        "lba": library.btn_add_npc,  # a library NPC template added to the lobby, then its side
        "lbs": library.btn_add_npc,
        "lbd": library.btn_manage,
        "lbr": library.btn_manage,
        "lbx": library.btn_manage,
        "lbz": library.btn_manage,
        "lbl": library.btn_manage,
        "lbt": library.btn_tables,  # the library's weapon/perk tables into the lobby (GM)
        "cru": ladder.btn_rated,  # the lobby's rated/unrated switch (GM)
    }
)
# The outbox's send functions, one per kind of owed message (shared/owed.py).
SENDERS: Mapping[str, outbox.Sender] = MappingProxyType(
    {
        "started": owed.send_started,
        "receipt": owed.send_receipt,
        "resolved": owed.send_resolved,
        "reminder": owed.send_reminder,
        "resumed": owed.send_resumed,
        "beacon_late": owed.send_beacon_late,
        "lock": owed.send_lock,
        "note": owed.send_note,
        "joined": lobby.send_joined,
    }
)


def add_handlers(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Every command, button and update the bot answers, in one list (as in PTB's examples)."""
    private = filters.ChatType.PRIVATE & filters.UpdateType.MESSAGE
    group = filters.ChatType.GROUPS & filters.UpdateType.MESSAGE
    anywhere = filters.UpdateType.MESSAGE
    app.add_handler(CommandHandler("start", lobby.cmd_start, filters=private))
    app.add_handler(CommandHandler(["duel", "newmatch"], lobby.cmd_duel, filters=anywhere))
    app.add_handler(CommandHandler("help", player.cmd_help, filters=anywhere))
    app.add_handler(CommandHandler("lang", player.cmd_lang, filters=anywhere))
    app.add_handler(CommandHandler("status", player.cmd_status, filters=anywhere))
    app.add_handler(CommandHandler("order", orders.cmd_order, filters=private))
    app.add_handler(  # typed in the group: answered, deleted if allowed, never sealed
        CommandHandler(group_orders.COMMANDS, group_orders.cmd_order_in_group, filters=group)
    )
    app.add_handler(CommandHandler("character", lobby.cmd_character, filters=private))
    app.add_handler(CommandHandler("takegm", player.cmd_takegm, filters=group))
    # Orders with free text, sealed by a reply (plans, powers); its "✍️" button is below.
    app.add_handler(MessageHandler(private & filters.TEXT & ~filters.COMMAND, text_reply.on_text))
    app.add_handler(CommandHandler("rules", rules_help.cmd_rules, filters=anywhere))
    routes = router(app)
    routes.on_seal(text_steps.forget_after_seal)  # a sealed order's pending text step is done
    for flow in ui.flows():  # each ruleset UI's own flow (plans: /plan, the GM's veto)
        add_flow(app, flow)
    # NPCs and sides
    app.add_handler(CommandHandler("npc", npc.cmd_npc, filters=anywhere))
    app.add_handler(CommandHandler("side", npc.cmd_side, filters=anywhere))
    app.add_handler(CommandHandler("npcorder", npc.cmd_npcorder, filters=private))
    app.add_handler(CommandHandler("clock", clock.cmd_clock, filters=group))
    # GM powers, player commands, records
    app.add_handler(TypeHandler(Update, gm_commands.remember_users), group=-2)
    app.add_handler(CommandHandler("start", gm_commands.cmd_claim, filters=private), group=-1)
    app.add_handler(CommandHandler("gm", gm_commands.cmd_gm, filters=group))
    app.add_handler(CommandHandler("replace", gm_commands.cmd_replace, filters=group))
    app.add_handler(CommandHandler("edit", gm_commands.cmd_edit, filters=group))
    app.add_handler(CommandHandler("leave", player.cmd_leave, filters=anywhere))
    app.add_handler(CommandHandler("forfeit", player.cmd_forfeit, filters=anywhere))
    app.add_handler(CommandHandler("history", records.cmd_history, filters=anywhere))
    app.add_handler(CommandHandler("dossier", records.cmd_dossier, filters=anywhere))
    # Campaigns (docs/campaign.md): the roster, the group's library, the ladder, the chronicle
    app.add_handler(CommandHandler("characters", roster.cmd_characters, filters=private))
    app.add_handler(MessageHandler(private & filters.Document.ALL, roster.on_document))
    app.add_handler(CommandHandler("library", library.cmd_library, filters=group))
    app.add_handler(MessageHandler(group & filters.Document.ALL, library.on_document))
    app.add_handler(CommandHandler("ladder", ladder.cmd_ladder, filters=group))
    app.add_handler(CommandHandler("me", ladder.cmd_me, filters=private))
    app.add_handler(CommandHandler("chronicle", chronicle.cmd_chronicle, filters=group))
    routes.add_buttons(BUTTONS)  # every button press goes to on_button, then by its kind
    outbox.add_senders(app, SENDERS)
    app.add_handler(CallbackQueryHandler(on_button))
    app.add_handler(ChatMemberHandler(lobby.on_my_chat_member, ChatMemberHandler.MY_CHAT_MEMBER))
    app.add_error_handler(on_error)
