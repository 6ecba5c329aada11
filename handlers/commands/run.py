"""``sekundant run`` (``make run``): the bot with long polling when ``TELEGRAM_BOT_TOKEN`` is
set, else the offline sandbox (same Application, fake in-process Bot API)."""

from __future__ import annotations

import argparse
import logging
import os
import time

from handlers.cli import UsageError
from infra.settings import Settings, SettingsError, load_settings

ALLOWED_UPDATES = ["message", "callback_query", "my_chat_member"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--sandbox", action="store_true", help="run the offline sandbox even when a token is set"
    )


def settings_or_usage() -> Settings:
    """Settings, or a one-line usage error naming the bad setting (exit 2)."""
    try:
        return load_settings()
    except SettingsError as exc:
        raise UsageError(f"invalid settings: {exc}") from None


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
    from handlers.telegram.bot import build_application, set_commands
    from handlers.telegram.clock import install_timer
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
    app.post_init = set_commands
    install_timer(app)  # the turn clock: a sweep every ~20 s while polling
    app.run_polling(allowed_updates=ALLOWED_UPDATES)
    return 0
