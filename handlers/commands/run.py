"""``sekundant run`` (``make run``): the bot with long polling when ``TELEGRAM_BOT_TOKEN`` is
set, else the offline sandbox (same Application, fake in-process Bot API)."""

from __future__ import annotations

import argparse
import logging
import os
import time
from typing import Any

from telegram.error import TelegramError

from handlers.cli import UsageError, settings_or_usage
from infra.settings import Settings

ALLOWED_UPDATES = ["message", "callback_query", "my_chat_member"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--sandbox", action="store_true", help="run the offline sandbox even when a token is set"
    )


def run(args: argparse.Namespace) -> int:
    settings = settings_or_usage()
    if settings.bot_token is None or args.sandbox:
        from handlers.commands.sandbox import interactive

        print(
            "TELEGRAM_BOT_TOKEN is not set: starting the offline sandbox "
            "(a fake Telegram in this process)."
        )
        return interactive(settings.lang)
    return poll(settings, settings.bot_token)


def poll(settings: Settings, token: str) -> int:
    """Long polling against Telegram (or ``TELEGRAM_API_BASE_URL``) with the configured store."""
    from engine.usecases import Deps, SystemEntropy
    from handlers.telegram.app import build_application, set_commands
    from handlers.telegram.features.clock import install_timer
    from infra.store import make_repository

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)
    try:
        repo = make_repository(settings)
    except (OSError, ValueError) as exc:
        raise UsageError(f"cannot open the {settings.store} store: {exc}") from None
    from infra.beacon import beacon_from_env

    try:
        beacon = beacon_from_env(os.environ)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    deps = Deps(repo=repo, clock=time.time, entropy=SystemEntropy(), beacon=beacon)
    app = build_application(
        deps, token, base_url=settings.api_base_url, default_lang=settings.lang, updater=True
    )
    from handlers.telegram.shared.context import SERVICES

    app.bot_data[SERVICES].webapp_url = settings.webapp_url  # the page's public HTTPS address

    async def post_init(application: Any) -> None:
        await set_commands(application)
        from handlers.webapp.local import for_polling

        for_polling(deps, application, token, settings.lang)  # the page on localhost

    app.post_init = post_init
    install_timer(app)  # the turn clock: a sweep every ~20 s while polling
    # PTB logs a failed startup with three chained tracebacks; the one line below says it.
    logging.getLogger("telegram.ext").addFilter(_quiet_bootstrap)
    try:
        app.run_polling(allowed_updates=ALLOWED_UPDATES)
    except TelegramError as exc:  # at startup: no network, a bad token... one line, exit 2
        raise UsageError(startup_failure(settings.api_base_url, exc)) from None
    return 0


def _quiet_bootstrap(record: logging.LogRecord) -> bool:
    return not record.getMessage().startswith("Network Retry Loop (Bootstrap")


def startup_failure(base_url: str, exc: Exception) -> str:
    """One line naming why the bot could not start talking to Telegram."""
    from telegram.error import InvalidToken, NetworkError

    detail = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    if isinstance(exc, InvalidToken):
        return f"Telegram refused the bot token ({detail}); check TELEGRAM_BOT_TOKEN"
    if isinstance(exc, NetworkError):
        return f"cannot reach Telegram at {base_url} ({detail}); check the network"
    return f"Telegram answered with an error at startup: {detail}"
