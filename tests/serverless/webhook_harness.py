"""The serverless tests' webhook harness without pytest or moto (also used by the memory
benchmark in a clean process): fixture-shaped API Gateway events, the functions' environment,
and a bot harness that delivers every update through the Lambda webhook entry."""

from __future__ import annotations

import base64
import copy
import itertools
import json
import threading
from collections.abc import Sequence
from typing import Any

from handlers import lambda_webhook
from handlers.runtime import Runtime
from handlers.telegram.fake_api import BOT_USERNAME, FakeBotAPI
from handlers.telegram.harness import Harness
from tests.storage.aws import FAKE_ENV
from tests.support.clock import FakeClock
from tests.support.fixtures import load as fixture

REGION = FAKE_ENV["AWS_DEFAULT_REGION"]
TABLE = "sekundant-lambda-test"
TOKEN = "7000000001:AAH-sandbox-token-not-a-real-one-xx"
TOKEN_PARAMETER = "/sekundant/bot-token"
SECRET_NAME = "sekundant-webhook-secret"
SECRET = "S3cretWebhookToken0123456789abcdefABCDEF"
# The serverless tests' fake time (a date in late 2025), kept from their first fake clock.
WEBHOOK_NOW = 1_764_440_000.0


def api_event(update: dict[str, Any] | bytes, secret: str | None = SECRET) -> dict[str, Any]:
    """A real HTTP API (payload 2.0) event, as the fixture, carrying ``update`` base64 encoded."""
    event = copy.deepcopy(fixture("aws/http-api-v2-base64.json"))
    raw = update if isinstance(update, bytes) else json.dumps(update).encode()
    event["body"] = base64.b64encode(raw).decode()
    event["isBase64Encoded"] = True
    event["rawPath"] = event["requestContext"]["http"]["path"] = "/webhook"
    event["headers"] = {"content-type": "application/json", "host": "id.execute-api"}
    if secret is not None:
        event["headers"]["x-telegram-bot-api-secret-token"] = secret
    return event


def writes_match(kwargs: dict[str, Any]) -> bool:
    """Whether a DynamoDB write request (``update_item`` or ``transact_write_items`` keyword
    arguments) writes a match item: a save, an UpdateItem alone or a transaction led by it
    (docs/storage.md, "Access patterns")."""
    if "Key" in kwargs:
        return bool(kwargs["Key"]["SK"]["S"] == "CUR#MATCH")
    return any(
        next(iter(op.values())).get("Key", {}).get("SK", {}).get("S") == "CUR#MATCH"
        or next(iter(op.values())).get("Item", {}).get("SK", {}).get("S") == "CUR#MATCH"
        for op in kwargs.get("TransactItems", [])
    )


def lambda_env(secret_arn: str) -> dict[str, str]:
    """The functions' environment as ``template.yaml`` sets it (no token in it)."""
    return {
        "SEKUNDANT_STORE": "dynamodb",
        "SEKUNDANT_TABLE": TABLE,
        "SEKUNDANT_LANG": "ru",
        "TELEGRAM_BOT_USERNAME": BOT_USERNAME,
        "SEKUNDANT_TOKEN_PARAMETER": TOKEN_PARAMETER,
        "SEKUNDANT_WEBHOOK_SECRET": secret_arn,
        # No network here: server seed only, asked for explicitly (the default is drand).
        "SEKUNDANT_BEACON": "none",
    }


class WebhookHarness(Harness):
    """The bot harness, but every update goes through the Lambda webhook entry of one or more
    "containers" (runtimes) as an API Gateway event; responses are kept."""

    def __init__(self, runtimes: list[Runtime], api: FakeBotAPI, clock: FakeClock) -> None:
        # Not Harness.__init__: the runtimes were wired by cold_start, like on Lambda.
        self.runtimes = runtimes
        self.rt = runtimes[0]
        self.app = self.rt.app
        self.deps = self.rt.deps
        self.api = api
        self.clock = clock
        self._update_ids = itertools.count(900_000_100)
        self._cbq = itertools.count(1)
        self.slept: list[float] = []
        self.responses: list[dict[str, Any]] = []
        self.held: list[dict[str, Any]] | None = None
        self.fed: list[dict[str, Any]] = []

        async def no_sleep(seconds: float) -> None:
            self.slept.append(seconds)

        for rt in runtimes:
            rt.services.sleep = no_sleep

    @property
    def now(self) -> float:  # type: ignore[override]
        return self.clock.now

    def feed(self, update: dict[str, Any]) -> None:
        if self.held is not None:  # collecting updates to deliver later (concurrency)
            self.held.append(update)
            return
        self.fed.append(update)
        self.responses.append(lambda_webhook.handle(api_event(update), self.rt))

    def close(self) -> None:
        for rt in self.runtimes:
            rt.run(rt.app.shutdown())
            rt.loop.close()


def race_loads(runtimes: Sequence[Runtime]) -> None:
    """Hold the first repository load of each runtime (in whichever thread it runs) until
    every runtime has made one: all loads happen before any save, so the writers truly race.
    Only that first load waits: a runtime's later loads (its outbox, in another thread) go
    straight through, so nothing waits for a partner that never comes (the barrier's time-out
    used to decide which runtime delivered what)."""
    barrier = threading.Barrier(len(runtimes), timeout=30)
    for rt in runtimes:
        repo: Any = rt.deps.repo
        real_load = repo.load
        first = threading.Lock()  # held by nobody: taken once, by the runtime's first load

        def load(mid: str, real_load: Any = real_load, first: Any = first) -> Any:
            loaded = real_load(mid)
            if first.acquire(blocking=False):  # never released: only the first load waits
                barrier.wait()
            return loaded

        repo.load = load
