"""The Lambda webhook entry over moto (DynamoDB, SSM, Secrets Manager) and the fake Bot API,
fed real API Gateway payload-2.0 events built from the fixtures (``tests/fixtures/``)."""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from botocore.exceptions import ClientError
from telegram.request import BaseRequest, RequestData

from engine import usecases
from engine.match import Phase
from handlers import lambda_sweeper, lambda_webhook
from handlers.runtime import Runtime
from handlers.telegram.fake_api import BOT_ID, BOT_USERNAME, FakeBotAPI
from handlers.telegram.harness import GROUP_ID
from tests.serverless.conftest import (
    SECRET,
    TABLE,
    TOKEN,
    WebhookHarness,
    api_event,
    fixture,
    lambda_env,
)
from tests.serverless.duel import ORDER, fixture_users, open_duel, play_duel
from tests.serverless.webhook_harness import race_loads, writes_match
from tests.support.clock import FakeClock


def items(aws: Callable[[str], Any]) -> list[dict[str, Any]]:
    full = aws.full("dynamodb")  # type: ignore[attr-defined]
    found: list[dict[str, Any]] = full.scan(TableName=TABLE)["Items"]
    return found


def test_whole_pistol_duel_through_the_webhook(harness: WebhookHarness) -> None:
    match_id = play_duel(harness)
    assert harness.responses and all(r["statusCode"] == 200 for r in harness.responses)
    assert harness.deps.repo.history(match_id)  # every turn was resolved and recorded
    group = harness.texts(GROUP_ID)
    assert any("&lt;b&gt;Smith&lt;/b&gt;" in t for t in group)  # Bob's HTML name escaped
    assert "<b>Smith</b>" not in "".join(group)
    assert not harness.api.calls_of("getMe")


def test_cold_start_makes_no_network_call(
    make_runtime: Callable[..., Runtime], fake_api: FakeBotAPI
) -> None:
    rt = make_runtime()
    assert fake_api.calls == []  # getMe answered from configuration
    assert rt.app.bot.username == BOT_USERNAME
    assert rt.app.bot.id == BOT_ID  # the token's prefix
    assert rt.webhook_secret == SECRET


def test_token_never_logged_nor_in_the_environment(
    aws: Callable[[str], Any],
    make_runtime: Callable[..., Runtime],
    fake_api: FakeBotAPI,
    clock: FakeClock,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)  # even if someone turns the log level all the way down
    h = WebhookHarness([make_runtime()], fake_api, clock)
    play_duel(h)
    h.api.fail_next["sendMessage"] = [(502, {"description": "Bad Gateway"})]
    h.say(h.api.users[222222222], GROUP_ID, "/duel@sekundant_bot")  # an error path, logged
    assert h.responses[-1]["statusCode"] == 500
    assert "update" in caplog.text
    assert TOKEN not in caplog.text
    assert TOKEN.partition(":")[2] not in caplog.text
    assert TOKEN not in lambda_env(aws.secret_arn).values()  # type: ignore[attr-defined]


@pytest.mark.parametrize("header", [None, "", "wrong", SECRET + "x", SECRET[:-1]])
def test_wrong_or_missing_secret_is_401_and_changes_nothing(
    harness: WebhookHarness, aws: Callable[[str], Any], header: str | None
) -> None:
    update = fixture("telegram/group_command_with_botname.json")
    fixture_users(harness)
    reply = lambda_webhook.handle(api_event(update, secret=header), harness.rt)
    assert reply["statusCode"] == 401
    assert harness.api.calls == []
    assert items(aws) == []  # not even the update claim
    # The same update with the right secret is then processed normally (nothing was claimed).
    assert lambda_webhook.handle(api_event(update), harness.rt)["statusCode"] == 200
    assert harness.api.calls_of("sendMessage")


def test_an_event_with_a_plain_json_body_is_processed(harness: WebhookHarness) -> None:
    """API Gateway passes a JSON body as text (``isBase64Encoded`` false): the fixture shape."""
    fixture_users(harness)
    event = fixture("aws/http-api-v2-plain.json")
    event["headers"]["x-telegram-bot-api-secret-token"] = SECRET
    event["body"] = json.dumps(fixture("telegram/group_command_with_botname.json"))
    assert event["isBase64Encoded"] is False
    assert lambda_webhook.handle(event, harness.rt)["statusCode"] == 200
    assert "Which duel" in harness.api.calls_of("sendMessage")[-1].params["text"]


def test_the_same_update_delivered_twice_is_handled_once(harness: WebhookHarness) -> None:
    fixture_users(harness)
    update = fixture("telegram/group_command_with_botname.json")
    first = lambda_webhook.handle(api_event(update), harness.rt)
    sent = len(harness.api.calls)
    second = lambda_webhook.handle(api_event(update), harness.rt)
    assert first["statusCode"] == second["statusCode"] == 200
    assert sent > 0
    assert len(harness.api.calls) == sent  # nothing repeated


@pytest.mark.parametrize("body", [b"not json", b"[]", b'{"message": {}}'])
def test_unusable_input_is_200_and_changes_nothing(
    harness: WebhookHarness, aws: Callable[[str], Any], body: bytes
) -> None:
    assert lambda_webhook.handle(api_event(body), harness.rt)["statusCode"] == 200
    assert harness.api.calls == [] and items(aws) == []


def test_telegram_outage_is_500_and_the_redelivery_succeeds(harness: WebhookHarness) -> None:
    fixture_users(harness)
    update = fixture("telegram/group_command_with_botname.json")
    harness.api.fail_next["sendMessage"] = [(502, {"description": "Bad Gateway"})]
    assert lambda_webhook.handle(api_event(update), harness.rt)["statusCode"] == 500
    assert lambda_webhook.handle(api_event(update), harness.rt)["statusCode"] == 200
    sent = harness.api.chat(GROUP_ID).messages
    assert len([m for m in sent if m.from_bot]) == 1  # the ruleset picker, once


class ThrottleOnce:
    """A DynamoDB client whose first write of a match item (a save) is throttled."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.throttled = False

    def _once(self, op: str, kwargs: dict[str, Any]) -> None:
        if not self.throttled and writes_match(kwargs):
            self.throttled = True
            raise ClientError(
                {"Error": {"Code": "ProvisionedThroughputExceededException", "Message": "slow"}},
                op,
            )

    def transact_write_items(self, **kwargs: Any) -> Any:
        self._once("TransactWriteItems", kwargs)
        return self.inner.transact_write_items(**kwargs)

    def update_item(self, **kwargs: Any) -> Any:
        self._once("UpdateItem", kwargs)
        return self.inner.update_item(**kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def test_dynamodb_throttling_is_500_and_the_redelivery_succeeds(harness: WebhookHarness) -> None:
    match_id, alice, _bob = open_duel(harness)
    repo: Any = harness.deps.repo
    repo.client = ThrottleOnce(repo.client)
    harness.say(alice, int(alice["id"]), ORDER)
    assert harness.responses[-1]["statusCode"] == 500
    seat = harness.deps.repo.load(match_id).match.seat_of_user(int(alice["id"]))
    assert seat is not None
    assert seat.pid not in harness.deps.repo.load(match_id).match.sealed  # nothing sealed
    # Telegram re-sends the same update: it is processed this time.
    harness.feed(harness.fed[-1])
    assert harness.responses[-1]["statusCode"] == 200
    assert seat.pid in harness.deps.repo.load(match_id).match.sealed


def test_permanent_error_is_200_and_not_retried(harness: WebhookHarness) -> None:
    fixture_users(harness)
    update = fixture("telegram/group_command_with_botname.json")
    harness.api.fail_next["sendMessage"] = [(400, {"description": "Bad Request: chat not found"})]
    assert lambda_webhook.handle(api_event(update), harness.rt)["statusCode"] == 200
    calls = len(harness.api.calls)
    assert lambda_webhook.handle(api_event(update), harness.rt)["statusCode"] == 200
    assert len(harness.api.calls) == calls  # the claim stayed: a duplicate now


class Serialized:
    """DynamoDB applies each conditional write atomically; moto's backend is not thread-safe,
    so concurrent containers go through one lock per call (the race stays in our code)."""

    lock = threading.Lock()

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self.inner, name)
        if not callable(attr):
            return attr

        def call(*args: Any, **kwargs: Any) -> Any:
            with self.lock:
                return attr(*args, **kwargs)

        return call


class LockedRequest(BaseRequest):
    """One fake Telegram shared by two containers."""

    lock = threading.Lock()

    def __init__(self, inner: FakeBotAPI) -> None:
        self.inner = inner

    @property
    def read_timeout(self) -> float | None:
        return 1.0

    async def initialize(self) -> None:
        return None

    async def shutdown(self) -> None:
        return None

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        *args: Any,
        **kwargs: Any,
    ) -> tuple[int, bytes]:
        with self.lock:
            return await self.inner.do_request(url, method, request_data)


def test_two_final_orders_delivered_concurrently_resolve_once(
    make_runtime: Callable[..., Runtime], fake_api: FakeBotAPI, clock: FakeClock
) -> None:
    containers = [make_runtime(api=LockedRequest(fake_api)) for _ in range(2)]
    for rt in containers:
        repo: Any = rt.deps.repo
        repo.client = Serialized(repo.client)
    h = WebhookHarness(containers, fake_api, clock)
    match_id, alice, bob = open_duel(h)
    # Both loads of the seal happen before either save: the two last orders truly race.
    race_loads(containers)
    h.held = []
    for user in (alice, bob):
        h.say(user, int(user["id"]), ORDER)
    held, h.held = h.held, None
    with ThreadPoolExecutor(2) as pool:
        replies = list(
            pool.map(lambda rt, u: lambda_webhook.handle(api_event(u), rt), containers, held)
        )
    assert [r["statusCode"] for r in replies] == [200, 200]
    records = h.deps.repo.history(match_id)
    assert [r.turn for r in records if r.turn == 1] == [1]  # exactly one resolution
    reveals = [t for t in h.texts(GROUP_ID) if "Ход 1 — вскрытие" in t]
    assert len(reveals) == 1


def test_sweeper_resolves_a_turn_past_its_deadline(
    harness: WebhookHarness, make_runtime: Callable[..., Runtime], clock: FakeClock
) -> None:
    def hour_turns(match_id: str, gm: int) -> None:
        usecases.configure_clock(harness.deps, match_id, gm, turn_seconds=3600)

    match_id, alice, _bob = open_duel(harness, before_start=hour_turns)
    harness.say(alice, int(alice["id"]), ORDER)  # Bob never orders
    sweeper = make_runtime(webhook=False)
    assert sweeper.webhook_secret is None  # the sweeper cannot read it (and needs not)
    assert lambda_sweeper.sweep(sweeper)["results"] == 0  # not due yet
    clock.now += 3601
    summary = lambda_sweeper.sweep(sweeper)
    assert summary["results"] == 1 and summary["errors"] == 0
    match = harness.deps.repo.load(match_id).match
    assert match.turn >= 2 or match.phase is Phase.FINISHED
    assert any("Ход 1 — вскрытие" in t for t in harness.texts(GROUP_ID))
    assert lambda_sweeper.sweep(sweeper)["results"] == 0  # nothing twice


def test_a_warm_container_serves_many_updates_on_one_loop(harness: WebhookHarness) -> None:
    loop = harness.rt.loop
    play_duel(harness)
    assert harness.rt.loop is loop and not loop.is_closed()
