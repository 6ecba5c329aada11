"""Cold-start wiring shared by the Lambda entries (webhook and deadline sweeper).

Built once per container and reused by every warm invocation, in two stages:

- :func:`cold_start` (on the container's first call): what authenticating a delivery needs,
  and nothing more: the webhook secret (the only AWS call a delivery with a wrong secret
  ever causes, once per container); one event loop
  that lives as long as the container: PTB's HTTP client pools connections bound to the loop
  that opened them, so ``asyncio.run`` per invocation breaks every second call
  (measured when the Lambda adapter was built).
- :meth:`Runtime.wire` (on first use of ``app``/``deps``): what processing one needs. The bot
  token read once from SSM Parameter Store or Secrets Manager (:mod:`infra.secrets`), never
  from a plain environment variable, never logged; settings validated (no ``.env`` on
  Lambda), the DynamoDB client and repository, the Application built and initialised. This
  imports the engine, pydantic, botocore and the bot's handlers and creates the DynamoDB
  client (:mod:`infra.aws`: trimmed models, no boto3) - most of a cold start's CPU - so a
  delivery with a wrong secret never pays for it; the first real update pays it once,
  before it is processed.

A request class answers ``getMe`` from configuration (``TELEGRAM_BOT_USERNAME`` and the id
before the token's colon), so wiring makes no network call.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from telegram.request import BaseRequest, RequestData

from infra import secrets

if TYPE_CHECKING:
    from telegram.ext import Application

    from engine.beacon import Beacon
    from engine.ports import MatchRepository
    from engine.usecases import Deps
    from handlers.telegram.shared.context import Services

T = TypeVar("T")
log = logging.getLogger("sekundant.lambda")

# Bot API timeouts (seconds) of production's HTTP client: a reveal tried three times
# (``shared.reveal_post.REVEAL_RETRIES``) stays under ~12 s.
BOT_API_CONNECT_TIMEOUT = 2.0
BOT_API_READ_TIMEOUT = 3.0

# Loggers that would print the token: httpx logs every request URL (which contains it) at
# INFO, PTB logs its base URL at DEBUG, botocore logs response bodies (the decrypted
# parameter) at DEBUG. None of that may reach the logs, whatever the configured level.
logging.getLogger("httpx").setLevel(logging.WARNING)
logging.getLogger("httpcore").setLevel(logging.WARNING)
logging.getLogger("telegram").setLevel(logging.INFO)
logging.getLogger("botocore").setLevel(logging.INFO)

# We use no pydantic plugins; without this, building the first model scans the metadata of
# every installed distribution for plugin entry points (~9 ms of a cold start).
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")


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
    """One container's wiring: its loop and webhook secret now, the initialised Application
    and its use-case deps on first use (:meth:`wire`)."""

    loop: asyncio.AbstractEventLoop
    webhook_secret: str | None = None
    wiring: Callable[[Runtime], tuple[Deps, Application[Any, Any, Any, Any, Any, Any]]] | None = (
        field(default=None, repr=False)
    )
    _deps: Deps | None = field(default=None, repr=False)
    _app: Application[Any, Any, Any, Any, Any, Any] | None = field(default=None, repr=False)

    def wire(self) -> None:
        """Build and initialise the Application and the deps, once (never inside ``run``)."""
        if self._app is None:
            assert self.wiring is not None, "a Runtime needs its wiring"
            started = time.perf_counter()
            self._deps, self._app = self.wiring(self)
            self.wiring = None
            log.info("wired the bot in %.0f ms", (time.perf_counter() - started) * 1000)

    @property
    def app(self) -> Application[Any, Any, Any, Any, Any, Any]:
        self.wire()
        assert self._app is not None
        return self._app

    @property
    def deps(self) -> Deps:
        self.wire()
        assert self._deps is not None
        return self._deps

    @property
    def services(self) -> Services:
        from handlers.telegram.shared.context import SERVICES

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
    repo: MatchRepository | None = None,
    beacon: Beacon | None = None,
) -> Runtime:
    """Start a container: token, webhook secret, loop; the repository and the bot are wired
    on first use (:meth:`Runtime.wire`, no network call either).

    ``webhook`` also reads the webhook secret (the sweeper does not need it). ``request``,
    ``clients`` (``service name -> client``, default :func:`aws_client`) and ``repo``
    (instead of the DynamoDB repository, e.g. :class:`infra.memory.MemoryRepository`) are
    the seams tests and the benchmark use."""
    env = dict(os.environ if env is None else env)
    if not env.get("TELEGRAM_BOT_USERNAME"):
        from infra.settings import SettingsError

        raise SettingsError("TELEGRAM_BOT_USERNAME: expected the bot's username (without @)")
    make_client = clients or aws_client
    # Only the webhook secret now: a delivery with a wrong secret costs no other AWS call.
    secret = secrets.webhook_secret(env, make_client) if webhook else None

    def wiring(rt: Runtime) -> tuple[Deps, Application[Any, Any, Any, Any, Any, Any]]:
        token = secrets.bot_token(env, make_client)
        return _wire(rt, env, token, make_client, repo, request, clock, beacon)

    return Runtime(loop=asyncio.new_event_loop(), webhook_secret=secret, wiring=wiring)


def _wire(
    rt: Runtime,
    env: Mapping[str, str],
    token: str,
    make_client: secrets.ClientFactory,
    repo: MatchRepository | None,
    request: BaseRequest | None,
    clock: Any,
    beacon: Beacon | None = None,
) -> tuple[Deps, Application[Any, Any, Any, Any, Any, Any]]:
    from engine.usecases import Deps, SystemEntropy
    from handlers.telegram.app import build_application
    from infra.settings import SettingsError, load_settings
    from infra.store import make_repository

    settings = load_settings(env, dotenv=False)
    if not settings.bot_username:
        raise SettingsError("TELEGRAM_BOT_USERNAME: expected the bot's username (without @)")
    if repo is None:
        repo = make_repository(settings, store="dynamodb", client=make_client("dynamodb"))
    from infra.beacon import beacon_from_env
    from infra.later import later_from_env

    deps = Deps(
        repo=repo,
        clock=clock,
        entropy=SystemEntropy(),
        beacon=beacon_from_env(env) if beacon is None else beacon,
        # Nothing waits for a beacon round: the resolve queue (docs/deploy.md, "The beacon
        # wait"); its client is made when the first locked turn is handed over.
        later=later_from_env(env, lambda: make_client("sqs"), clock),
    )
    if request is None:
        from telegram.request import HTTPXRequest

        # Sequential updates need few connections. Explicit timeouts: a hanging Bot API
        # fails a call in a few seconds, so the webhook answers inside its Timeout
        # (template.yaml; the outbox sends what failed later).
        request = HTTPXRequest(
            connection_pool_size=4,
            connect_timeout=BOT_API_CONNECT_TIMEOUT,
            read_timeout=BOT_API_READ_TIMEOUT,
            write_timeout=BOT_API_READ_TIMEOUT,
            pool_timeout=1.0,
        )
    app = build_application(
        deps,
        token,
        request=LocalGetMe(request, bot_info(token, settings.bot_username)),
        base_url=settings.api_base_url,
        default_lang=settings.lang,
    )
    from handlers.telegram.shared.context import SERVICES

    app.bot_data[SERVICES].webapp_url = settings.webapp_url  # else: from the first delivery
    rt.run(app.initialize())
    return deps, app


def aws_client(service: str) -> Any:
    """The production client factory: botocore clients with trimmed models (:mod:`infra.aws`;
    boto3 itself is never imported, which saves its import too)."""
    from infra import aws

    return aws.client(service)


_CONTAINER: dict[bool, Runtime] = {}


def container(*, webhook: bool = True) -> Runtime:
    """This container's runtime, wired on first use (the cold start)."""
    rt = _CONTAINER.get(webhook)
    if rt is None:
        from handlers import observe

        observe.use_json_logs()  # one JSON object a line (docs/deploy.md, logs and metrics)
        started = time.perf_counter()
        rt = _CONTAINER[webhook] = cold_start(webhook=webhook)
        log.info("cold start wired in %.0f ms", (time.perf_counter() - started) * 1000)
    return rt


def install(rt: Runtime, *, webhook: bool = True) -> None:
    """Make ``rt`` this process's container, so the entries' ``lambda_handler`` use it (the
    memory benchmark and tests wire theirs with :func:`cold_start`'s seams)."""
    _CONTAINER[webhook] = rt
