"""The Telegram bot's wiring: :func:`build_application` holds the one visible list of handlers
(commands, buttons, free text, chat-member updates) and the error handler; the command menus
(:func:`bot_commands`, :func:`set_commands`); the sweeper's entry (:func:`announce_sweep`).
Feature modules never import this module (moved from ``handlers.telegram.bot``)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
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
    TypeHandler,
    filters,
)
from telegram.request import BaseRequest

from engine.usecases import Deps
from handlers.telegram import stale
from handlers.telegram.features import (
    gm_commands,
    gm_panel,
    gm_turn,
    lobby,
    npc,
    npc_orders,
    orders,
    player,
    records,
)
from handlers.telegram.i18n import LANGS, Tr, normalize
from handlers.telegram.shared import owed
from handlers.telegram.shared.context import CONTEXT_TYPES, SERVICES, Ctx, Services, callback_secret
from handlers.telegram.shared.routing import on_button, router

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
    private = ["start", "order", "plan", "npcorder", "character", "side", "status", "history"]
    private += ["dossier", "leave", "forfeit", "lang", "help", "rules"]
    group = ["duel", "status", "history", "dossier", "clock", "npc", "side", "replace", "edit"]
    group += ["gm", "lang", "takegm", "help", "rules"]
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
    from handlers.telegram.features import clock

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
    app = builder.build()
    # In a chat, an order waits for its turn's commitment message (shared/commitments.py).
    deps.require_commitment_post = True
    app.bot_data[SERVICES] = Services(
        deps=deps, secret=callback_secret(token), default_lang=normalize(default_lang)
    )
    add_handlers(app)
    return app


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
    app.add_handler(CommandHandler("character", lobby.cmd_character, filters=private))
    app.add_handler(CommandHandler("takegm", player.cmd_takegm, filters=group))
    from handlers.telegram.features import text_reply
    from handlers.telegram.ui.plans import flow as plans_flow

    text_reply.register(app)  # orders with free text, sealed by a reply (plans, powers)
    from handlers.telegram.features import rules_help

    rules_help.register(app)  # /rules: the ruleset in play, in short
    plans_flow.register(app)  # plans: /plan, the GM's veto
    npc.register(app)  # NPCs and sides: /npc, /side, /npcorder and their buttons
    from handlers.telegram.features import clock, odds

    clock.register(app)  # turn clock: /clock, lobby clock buttons
    odds.register(app)  # the lobby's 🎲 Odds: the matchup simulated
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
    # Every button, by its callback kind (a wire format: old buttons live in chats).
    router(app).add_buttons(
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
            "gwc": gm_panel.btn_result,
            "pff": player.btn_forfeit,
            "pfx": player.btn_forfeit,
            "wd": player.btn_withdraw,
            "dos": records.btn_dossier,
            "nsl": npc_orders.btn_same_as_last,
            "nnr": npc_orders.btn_nearest,
        }
    )
    owed.register()  # the outbox's send functions, one per kind of owed message
    app.add_handler(CallbackQueryHandler(on_button))
    app.add_handler(ChatMemberHandler(lobby.on_my_chat_member, ChatMemberHandler.MY_CHAT_MEMBER))
    app.add_error_handler(on_error)
