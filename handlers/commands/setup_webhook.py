"""``sekundant setup-webhook --stack NAME``: point Telegram at a deployed stack.

Reads the stack's outputs (CloudFormation ``describe_stacks``), the bot token (SSM) and the
webhook secret (Secrets Manager), then: ``getMe`` (checks the token belongs to the configured
username), ``setWebhook`` with the secret, ``allowed_updates`` and ``max_connections``, the
command menus for private and group chats in Russian and English, and the private chats' menu
button opening the order page (the ``WebAppUrl`` output, docs/bot.md "The order page"). Every
call sets a value, so running it again changes nothing (idempotent). The token and secret are
never printed.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Callable
from typing import Any

from handlers.cli import UsageError

# Updates the bot handles; edited messages, inline queries, polls... are never sent to it.
ALLOWED_UPDATES = ("message", "callback_query", "my_chat_member")
DEFAULT_MAX_CONNECTIONS = 40


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--stack", required=True, help="the CloudFormation stack name")
    parser.add_argument("--region", help="the stack's region (default: the AWS configuration)")
    parser.add_argument(
        "--max-connections",
        type=int,
        default=DEFAULT_MAX_CONNECTIONS,
        help="concurrent deliveries Telegram may make, 1-100 (caps Lambda concurrency)",
    )
    parser.add_argument(
        "--drop-pending-updates", action="store_true", help="discard updates waiting in Telegram"
    )


def run(args: argparse.Namespace) -> int:
    summary = setup(
        args.stack,
        region=args.region,
        max_connections=args.max_connections,
        drop_pending_updates=args.drop_pending_updates,
    )
    for key, value in summary.items():
        print(f"{key}: {value}")
    return 0


def setup(
    stack: str,
    *,
    region: str | None = None,
    max_connections: int = DEFAULT_MAX_CONNECTIONS,
    drop_pending_updates: bool = False,
    clients: Callable[[str], Any] | None = None,
    request: Any = None,
) -> dict[str, Any]:
    """Do the setup; returns what was set (for printing). ``clients`` and ``request`` are the
    test seams (boto3 client factory, PTB request object)."""
    if not 1 <= max_connections <= 100:
        raise UsageError(f"--max-connections: expected 1-100, got {max_connections}")
    from infra import secrets

    make = clients or _client_factory(region)
    outputs = stack_outputs(make("cloudformation"), stack)
    try:
        token = secrets.read_parameter(outputs["BotTokenParameterName"], make("ssm"))
        secret = secrets.read_secret(outputs["WebhookSecretArn"], make("secretsmanager")).strip()
    except secrets.SecretError as exc:
        raise UsageError(str(exc)) from None
    if not secrets.valid_webhook_secret(secret):
        raise UsageError(f"{outputs['WebhookSecretArn']}: not a valid webhook secret_token")
    return asyncio.run(
        _configure(
            token,
            url=outputs["WebhookUrl"],
            secret=secret,
            username=outputs.get("BotUsername", ""),
            page=outputs.get("WebAppUrl", ""),
            page_lang=outputs.get("DefaultLanguage", "ru"),
            max_connections=max_connections,
            drop_pending_updates=drop_pending_updates,
            request=request,
        )
    )


def stack_outputs(cloudformation: Any, stack: str) -> dict[str, str]:
    """The stack's outputs; a missing stack or output is a :class:`UsageError`."""
    from botocore.exceptions import ClientError

    try:
        found = cloudformation.describe_stacks(StackName=stack)["Stacks"]
    except ClientError as exc:
        raise UsageError(f"--stack: {exc.response['Error'].get('Message', exc)}") from None
    outputs = {o["OutputKey"]: o["OutputValue"] for o in found[0].get("Outputs", [])}
    missing = {"WebhookUrl", "WebhookSecretArn", "BotTokenParameterName"} - set(outputs)
    if missing:
        raise UsageError(
            f"--stack {stack}: outputs {', '.join(sorted(missing))} missing (not a Sekundant "
            "stack, or not deployed yet)"
        )
    return outputs


async def _configure(
    token: str,
    *,
    url: str,
    secret: str,
    username: str,
    max_connections: int,
    page: str = "",
    page_lang: str = "ru",
    drop_pending_updates: bool,
    request: Any,
) -> dict[str, Any]:
    from telegram import Bot, BotCommandScopeAllGroupChats, BotCommandScopeAllPrivateChats

    from handlers.telegram.app import bot_commands
    from handlers.telegram.i18n import LANGS

    bot = Bot(token, request=request, get_updates_request=request)
    async with bot:  # initialize() calls getMe: the token works, and whose it is
        if username and bot.username.lower() != username.lstrip("@").lower():
            raise UsageError(
                f"the token belongs to @{bot.username}, but the stack is configured for "
                f"@{username} (BotUsername parameter)"
            )
        await bot.set_webhook(
            url,
            secret_token=secret,
            allowed_updates=list(ALLOWED_UPDATES),
            max_connections=max_connections,
            drop_pending_updates=drop_pending_updates,
        )
        # Each language's menus, and English as the default for every other language.
        for lang in (*LANGS, None):
            menus = bot_commands(lang or "en")
            await bot.set_my_commands(
                menus["private"], scope=BotCommandScopeAllPrivateChats(), language_code=lang
            )
            await bot.set_my_commands(
                menus["group"], scope=BotCommandScopeAllGroupChats(), language_code=lang
            )
        menu = await _menu_button(bot, page, page_lang)
        return {
            "bot": f"@{bot.username} (id {bot.id})",
            "menu_button": menu,
            "webhook": url,
            "allowed_updates": ", ".join(ALLOWED_UPDATES),
            "max_connections": max_connections,
            "commands": f"private and group menus in {', '.join(LANGS)} (+ default)",
        }


async def _menu_button(bot: Any, page: str, lang: str) -> str:
    """The private chats' menu button: the order page (a stack from before it had one keeps
    Telegram's command list)."""
    from telegram import MenuButtonWebApp, WebAppInfo

    from handlers.telegram.i18n import Tr, normalize

    if not page:
        return "unchanged (the stack has no WebAppUrl output: deploy again)"
    text = Tr(normalize(lang))("webapp.menu")
    await bot.set_chat_menu_button(menu_button=MenuButtonWebApp(text, WebAppInfo(page)))
    return f"{text} -> {page}"


def _client_factory(region: str | None) -> Callable[[str], Any]:
    import boto3

    session = boto3.Session(region_name=region)
    if session.region_name is None:
        raise UsageError("--region: no region given and none in the AWS configuration")
    if session.get_credentials() is None:
        raise UsageError("no AWS credentials (aws configure, aws sso login, or AWS_PROFILE)")
    make: Callable[[str], Any] = session.client
    return make
