"""Cold-start wiring shared by the Lambda entries (webhook and deadline sweeper).

Built once per container and reused by every warm invocation:

- settings from the environment (no ``.env`` on Lambda), the DynamoDB repository;
- the bot token read once from SSM Parameter Store or Secrets Manager (:mod:`infra.secrets`),
  never from a plain environment variable, never logged;
- one event loop that lives as long as the container: PTB's HTTP client pools connections
  bound to the loop that opened them, so ``asyncio.run`` per invocation breaks every second
  call (``shared/notes/serverless-lambda.md`` section 3a);
- a request class that answers ``getMe`` from configuration (``TELEGRAM_BOT_USERNAME`` and
  the id before the token's colon), so a cold start makes no network call.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import time
from collections.abc import Awaitable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from telegram.ext import Application
from telegram.request import BaseRequest, RequestData

from engine.usecases import Deps, SystemEntropy
from handlers.telegram.bot import SERVICES, Services, build_application
from infra import secrets
from infra.settings import SettingsError, load_settings
from infra.store import make_repository

T = TypeVar("T")
log = logging.getLogger("sekundant.lambda")

# Loggers that would print the token: httpx logs every request URL (which contains it) at
# INFO, PTB logs its base URL at DEBUG, botocore logs response bodies (the decrypted
# parameter) at DEBUG. None of that may reach the logs, whatever the configured level.
logging.getLogger("httpx").setLevel(logging.WARNING)
logging.getLogger("httpcore").setLevel(logging.WARNING)
logging.getLogger("telegram").setLevel(logging.INFO)
logging.getLogger("botocore").setLevel(logging.INFO)


def bot_info(token: str, username: str) -> dict[str, Any]:
    """The ``getMe`` answer synthesised from configuration (the token's prefix is the bot id)."""
    head = token.partition(":")[0]
    return {
        "id": int(head),
        "is_bot": True,
        "first_name": username,
        "username": username.lstrip("@"),
        "can_join_groups": True,
        "can_read_all_group_messages": False,
        "supports_inline_queries": False,
    }


class LocalGetMe(BaseRequest):
    """Answers ``getMe`` locally and hands every other method to ``inner`` (PTB's
    ``HTTPXRequest`` in production, a fake Bot API in tests)."""

    def __init__(self, inner: BaseRequest, info: Mapping[str, Any]) -> None:
        self.inner = inner
        self._answer = json.dumps({"ok": True, "result": dict(info)}).encode()

    @property
    def read_timeout(self) -> float | None:
        return self.inner.read_timeout

    async def initialize(self) -> None:
        await self.inner.initialize()

    async def shutdown(self) -> None:
        await self.inner.shutdown()

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: Any = None,
        write_timeout: Any = None,
        connect_timeout: Any = None,
        pool_timeout: Any = None,
    ) -> tuple[int, bytes]:
        if url.rsplit("/", 1)[-1] == "getMe":
            return 200, self._answer
        return await self.inner.do_request(
            url,
            method,
            request_data,
            read_timeout=read_timeout,
            write_timeout=write_timeout,
            connect_timeout=connect_timeout,
            pool_timeout=pool_timeout,
        )


@dataclass
class Runtime:
    """One container's wiring: the initialised Application, its use-case deps, its loop."""

    app: Application[Any, Any, Any, Any, Any, Any]
    deps: Deps
    loop: asyncio.AbstractEventLoop
    webhook_secret: str | None = None

    @property
    def services(self) -> Services:
        svc: Services = self.app.bot_data[SERVICES]
        return svc

    def run(self, coro: Awaitable[T]) -> T:
        """Run a coroutine on the container's loop (never closed between invocations)."""
        return self.loop.run_until_complete(coro)


def cold_start(
    env: Mapping[str, str] | None = None,
    *,
    webhook: bool = True,
    request: BaseRequest | None = None,
    clients: secrets.ClientFactory | None = None,
    clock: Any = time.time,
) -> Runtime:
    """Wire a container: settings, token, repository, Application (initialised, no network).

    ``webhook`` also reads the webhook secret (the sweeper does not need it). ``request`` and
    ``clients`` (``service name -> boto3 client``) are the seams tests use."""
    env = dict(os.environ if env is None else env)
    settings = load_settings(env, dotenv=False)
    if not settings.bot_username:
        raise SettingsError("TELEGRAM_BOT_USERNAME: expected the bot's username (without @)")
    make_client = clients or _boto3_client
    token = secrets.bot_token(env, make_client)
    repo = make_repository(settings, store="dynamodb", client=make_client("dynamodb"))
    deps = Deps(repo=repo, clock=clock, entropy=SystemEntropy())
    if request is None:
        from telegram.request import HTTPXRequest

        # Sequential updates need few connections; timeouts stay PTB's (5 s), within the
        # function's Timeout (template.yaml).
        request = HTTPXRequest(connection_pool_size=4)
    app = build_application(
        deps,
        token,
        request=LocalGetMe(request, bot_info(token, settings.bot_username)),
        base_url=settings.api_base_url,
        default_lang=settings.lang,
    )
    loop = asyncio.new_event_loop()
    loop.run_until_complete(app.initialize())
    secret = secrets.webhook_secret(env, make_client) if webhook else None
    return Runtime(app=app, deps=deps, loop=loop, webhook_secret=secret)


def _boto3_client(service: str) -> Any:
    import boto3

    return boto3.client(service)


_CONTAINER: dict[bool, Runtime] = {}


def container(*, webhook: bool = True) -> Runtime:
    """This container's runtime, wired on first use (the cold start)."""
    rt = _CONTAINER.get(webhook)
    if rt is None:
        started = time.perf_counter()
        rt = _CONTAINER[webhook] = cold_start(webhook=webhook)
        log.info("cold start wired in %.0f ms", (time.perf_counter() - started) * 1000)
    return rt
