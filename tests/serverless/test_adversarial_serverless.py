"""Adversarial cases for the Lambda entries: odd API Gateway events and bodies, AWS errors the
happy-path tests do not raise, a sweep with one bad match, and the sweeper racing a webhook
delivery for the same turn. moto for AWS and the fake Bot API; no network."""

from __future__ import annotations

import base64
import json
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from botocore.exceptions import ClientError

from engine import rulesets, usecases
from engine.match import Phase
from handlers import lambda_sweeper, lambda_webhook
from handlers.runtime import Runtime, cold_start
from handlers.telegram.fake_api import FakeBotAPI
from handlers.telegram.harness import GROUP_ID
from infra.dynamodb import doc_text
from infra.secrets import SecretError
from tests.serverless.duel import ORDER, fixture_users, open_duel
from tests.serverless.test_webhook import LockedRequest, Serialized, items
from tests.serverless.webhook_harness import (
    SECRET,
    TABLE,
    TOKEN,
    WebhookHarness,
    api_event,
    fixture,
    lambda_env,
    race_loads,
)
from tests.support.clock import FakeClock


def _cancelled(*codes: str, reasons: bool = True) -> ClientError:
    """A TransactWriteItems cancelled for ``codes`` (one per item), as botocore raises it."""
    response: dict[str, Any] = {
        "Error": {
            "Code": "TransactionCanceledException",
            "Message": "Transaction cancelled, please refer cancellation reasons for specific"
            f" reasons [{', '.join(codes)}]",
        },
        "ResponseMetadata": {"HTTPStatusCode": 400},
    }
    if reasons:
        response["CancellationReasons"] = [{"Code": c} for c in codes]
    return ClientError(response, "TransactWriteItems")


class CancelOnce:
    """A DynamoDB client whose first ``transact_write_items`` is cancelled with ``error``."""

    def __init__(self, inner: Any, error: ClientError) -> None:
        self.inner = inner
        self.error: ClientError | None = error

    def transact_write_items(self, **kwargs: Any) -> Any:
        if self.error is not None:
            error, self.error = self.error, None
            raise error
        return self.inner.transact_write_items(**kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


# --------------------------------------------------------------------------- error mapping


@pytest.mark.parametrize(
    "codes",
    [
        ("None", "ProvisionedThroughputExceeded"),  # provisioned tables
        ("ThrottlingError", "None"),  # on-demand tables
        ("TransactionConflict",),
    ],
)
@pytest.mark.parametrize("reasons", [True, False], ids=["reasons", "message-only"])
def test_a_transaction_cancelled_for_capacity_or_a_conflict_is_transient(
    codes: tuple[str, ...], reasons: bool
) -> None:
    assert lambda_webhook.is_transient(_cancelled(*codes, reasons=reasons))


def test_a_transaction_cancelled_by_a_failed_condition_or_bad_input_is_permanent() -> None:
    assert not lambda_webhook.is_transient(_cancelled("ConditionalCheckFailed", "None"))
    assert not lambda_webhook.is_transient(_cancelled("None", "ValidationError"))


def test_a_seal_cancelled_for_throughput_is_500_and_the_redelivery_seals_it(
    harness: WebhookHarness,
) -> None:
    """Found by reading TRANSIENT_AWS_CODES against DynamoDB's cancellation reason codes: a
    transaction's per-item reason is ``ProvisionedThroughputExceeded`` (no ``Exception``), so
    the seal was answered 200 and lost, and Telegram never re-sent it. The resolving seal is
    the one saved in a transaction (with its turn record and what it owes)."""
    match_id, alice, bob = open_duel(harness)
    harness.say(alice, int(alice["id"]), ORDER)
    assert harness.responses[-1]["statusCode"] == 200
    repo: Any = harness.deps.repo
    repo.client = CancelOnce(repo.client, _cancelled("None", "ProvisionedThroughputExceeded"))
    harness.say(bob, int(bob["id"]), ORDER)
    assert harness.responses[-1]["statusCode"] == 500
    seat = harness.deps.repo.load(match_id).match.seat_of_user(int(bob["id"]))
    assert seat is not None and seat.pid not in harness.deps.repo.load(match_id).match.sealed
    records = len(harness.deps.repo.history(match_id))
    harness.feed(harness.fed[-1])  # Telegram's redelivery
    assert harness.responses[-1]["statusCode"] == 200
    resolved = harness.deps.repo.history(match_id)[records:]  # sealed and resolved
    assert seat.pid in {o.pid for r in resolved for o in r.orders if not o.default}


# --------------------------------------------------------------------------- odd events


def _v1_event(update: dict[str, Any], secret: str = SECRET) -> dict[str, Any]:
    """A REST API (payload 1.0) proxy event: headers as the client cased them, plain body."""
    return {
        "resource": "/webhook",
        "path": "/webhook",
        "httpMethod": "POST",
        "headers": {
            "Content-Type": "application/json",
            "X-Telegram-Bot-Api-Secret-Token": secret,
        },
        "multiValueHeaders": {
            "Content-Type": ["application/json"],
            "X-Telegram-Bot-Api-Secret-Token": [secret],
        },
        "queryStringParameters": None,
        "requestContext": {"httpMethod": "POST", "path": "/prod/webhook", "stage": "prod"},
        "body": json.dumps(update),
        "isBase64Encoded": False,
    }


def test_a_payload_1_0_event_with_cased_headers_is_processed(harness: WebhookHarness) -> None:
    fixture_users(harness)
    update = fixture("telegram/group_command_with_botname.json")
    assert lambda_webhook.handle(_v1_event(update), harness.rt)["statusCode"] == 200
    assert harness.api.calls_of("sendMessage")
    calls = len(harness.api.calls)
    assert lambda_webhook.handle(_v1_event(update, "wrong"), harness.rt)["statusCode"] == 401
    assert lambda_webhook.handle(_v1_event(update), harness.rt)["statusCode"] == 200
    assert len(harness.api.calls) == calls  # a duplicate


def test_a_secret_header_repeated_with_a_wrong_value_is_refused(harness: WebhookHarness) -> None:
    """HTTP API joins repeated headers with commas: the joined value is not the secret."""
    update = fixture("telegram/group_command_with_botname.json")
    event = api_event(update, secret=f"{SECRET},{SECRET}")
    assert lambda_webhook.handle(event, harness.rt)["statusCode"] == 401


@pytest.mark.parametrize(
    "body",
    [
        b"[" * 100_000 + b"]" * 100_000,  # nested past the parser's recursion limit
        b'{"update_id": 5, "message": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
        b'{"update_id": 1' + b"0" * 5000 + b"}",  # an int beyond int(str) limits
        b'{"update_id": 5.0}',
        b'{"update_id": true}',
        b'{"update_id": "5"}',
        b"\xff\xfe{}",
        b"",
    ],
    ids=["deep", "deep-update", "huge-int", "float", "bool", "string", "not-utf8", "empty"],
)
def test_a_malformed_body_is_200_and_changes_nothing(
    harness: WebhookHarness, aws: Callable[[str], Any], body: bytes
) -> None:
    """Found by feeding bodies a JSON parser chokes on: deep nesting raised RecursionError out
    of the handler (Lambda error, API Gateway 500, Telegram re-sends forever)."""
    assert lambda_webhook.handle(api_event(body), harness.rt)["statusCode"] == 200
    assert harness.api.calls == [] and items(aws) == []


def test_a_body_that_is_not_base64_is_200_and_changes_nothing(
    harness: WebhookHarness, aws: Callable[[str], Any]
) -> None:
    event = api_event(b"{}")
    event["body"] = '{"update_id": 7} not base64!'
    assert lambda_webhook.handle(event, harness.rt)["statusCode"] == 200
    assert harness.api.calls == [] and items(aws) == []


def test_an_update_of_an_unknown_type_is_200_and_claimed(
    harness: WebhookHarness, aws: Callable[[str], Any]
) -> None:
    update = {"update_id": 900_000_777, "future_kind": {"id": 1, "text": "/order x"}}
    assert lambda_webhook.handle(api_event(update), harness.rt)["statusCode"] == 200
    assert harness.api.calls == []
    assert [i["PK"]["S"] for i in items(aws)] == ["UPDATE#900000777"]


def test_a_body_too_big_for_an_update_is_answered(harness: WebhookHarness) -> None:
    """Lambda accepts up to 6 MB; a body that size is parsed and ignored, not a crash."""
    update = {"update_id": 900_000_778, "padding": "x" * 5_000_000}
    raw = base64.b64encode(json.dumps(update).encode()).decode()
    event = api_event(b"{}")
    event["body"] = raw
    assert lambda_webhook.handle(event, harness.rt)["statusCode"] == 200
    assert harness.api.calls == []


# --------------------------------------------------------------------------- the sweeper


def _timed_match(rt: Runtime, chat_id: int) -> str:
    """A running pistol match with one-hour turns in ``chat_id`` (nobody has ordered)."""
    deps = rt.deps
    gm, p1, p2 = 10 * abs(chat_id) + 1, 10 * abs(chat_id) + 2, 10 * abs(chat_id) + 3
    m = usecases.create_match(deps, chat_id, gm, "pistol")
    rules = rulesets.get("pistol")
    presets = list(rules.presets(rules.config({})).values())
    for i, uid in enumerate((p1, p2)):
        usecases.join(deps, m.id, uid, f"player{i + 1}")
        usecases.set_character(deps, m.id, uid, f"p{i + 1}", dict(presets[i % len(presets)]))
    usecases.configure_clock(deps, m.id, gm, turn_seconds=3600)
    usecases.start(deps, m.id, gm)
    return m.id


def _damage(aws: Callable[[str], Any], match_id: str, how: str) -> None:
    """Damage a stored match: ``state`` (the ruleset state: it loads, resolving crashes) or
    ``json`` (the document does not parse: a corrupt record, flagged for the GM)."""
    full = aws.full("dynamodb")  # type: ignore[attr-defined]
    key = {"PK": {"S": f"MATCH#{match_id}"}, "SK": {"S": "CUR#MATCH"}}
    text = doc_text(full.get_item(TableName=TABLE, Key=key)["Item"])
    if how == "state":
        text = json.dumps(json.loads(text) | {"state": {"damaged": True}})
    else:
        text = text[: len(text) // 2]
    full.update_item(
        TableName=TABLE,
        Key=key,
        UpdateExpression="SET doc = :d",
        ExpressionAttributeValues={":d": {"S": text}},
    )


@pytest.mark.parametrize("how", ["state", "json"])
def test_one_match_that_cannot_be_resolved_does_not_stop_the_sweep(
    make_runtime: Callable[..., Runtime], aws: Callable[[str], Any], clock: FakeClock, how: str
) -> None:
    """Found by damaging one due match's state: the exception left ``usecases.sweep`` and the
    whole sweep failed, every minute, for every other match behind it in the deadline index.
    (An unparseable document was already flagged and skipped.)"""
    rt = make_runtime(webhook=False)
    ids = [_timed_match(rt, -2000 - i) for i in range(3)]
    clock.now += 3601
    first = rt.deps.repo.due(clock.now)[0]
    _damage(aws, first, how)
    summary = lambda_sweeper.sweep(rt)
    assert summary["results"] == 2 and summary["errors"] == (1 if how == "state" else 0)
    for match_id in ids:
        if match_id != first:
            assert rt.deps.repo.load(match_id).match.turn == 2
    if how == "json":
        item = aws.full("dynamodb").get_item(  # type: ignore[attr-defined]
            TableName=TABLE, Key={"PK": {"S": f"MATCH#{first}"}, "SK": {"S": "CUR#MATCH"}}
        )["Item"]
        assert "attention" in item  # flagged for the GM, document kept
    else:
        assert rt.deps.repo.load(first).match.turn == 1  # untouched, still due


def test_a_transient_error_on_one_match_keeps_the_others_announcements(
    make_runtime: Callable[..., Runtime], fake_api: FakeBotAPI, clock: FakeClock
) -> None:
    """A turn resolved and saved, then the next match's save was throttled: the results list
    was lost with the exception, so the saved turn was never announced (and is no longer due,
    so no later sweep announces it either)."""
    rt = make_runtime(webhook=False)
    chats = [-3000, -3001]
    for chat in chats:
        _timed_match(rt, chat)
    clock.now += 3601
    repo: Any = rt.deps.repo
    real = repo.client

    class ThrottleSecond:
        writes = 0

        def transact_write_items(self, **kwargs: Any) -> Any:
            self.writes += 1
            if self.writes == 2:
                raise ClientError(
                    {"Error": {"Code": "ThrottlingException", "Message": "slow down"}},
                    "TransactWriteItems",
                )
            return real.transact_write_items(**kwargs)

        def __getattr__(self, name: str) -> Any:
            return getattr(real, name)

    repo.client = ThrottleSecond()
    summary = lambda_sweeper.sweep(rt)
    assert summary["results"] == 1 and summary["errors"] == 1

    def revealed(chat: int) -> bool:
        return any("Ход 1 — вскрытие" in m.text for m in fake_api.chat(chat).messages)

    assert len([c for c in chats if revealed(c)]) == 1  # the resolved one was told
    repo.client = real
    assert lambda_sweeper.sweep(rt)["results"] == 1  # the throttled one, a minute later
    assert all(revealed(c) for c in chats)


def test_the_sweeper_and_a_last_order_racing_for_one_turn_resolve_it_once(
    make_runtime: Callable[..., Runtime], fake_api: FakeBotAPI, clock: FakeClock
) -> None:
    """Bob's order arrives as the deadline passes: the sweeper (defaults) and the webhook
    (Bob's order) both load the turn before either saves. Exactly one resolution."""
    webhook_rt = make_runtime(api=LockedRequest(fake_api))
    sweeper_rt = make_runtime(webhook=False, api=LockedRequest(fake_api))
    for rt in (webhook_rt, sweeper_rt):
        repo: Any = rt.deps.repo
        repo.client = Serialized(repo.client)
    h = WebhookHarness([webhook_rt], fake_api, clock)

    def hour_turns(match_id: str, gm: int) -> None:
        usecases.configure_clock(h.deps, match_id, gm, turn_seconds=3600)

    match_id, alice, bob = open_duel(h, before_start=hour_turns)
    h.say(alice, int(alice["id"]), ORDER)
    clock.now += 3600
    race_loads([webhook_rt, sweeper_rt])
    h.held = []
    h.say(bob, int(bob["id"]), ORDER)
    (update,), h.held = h.held, None
    with ThreadPoolExecutor(2) as pool:
        delivered = pool.submit(lambda_webhook.handle, api_event(update), webhook_rt)
        swept = pool.submit(lambda_sweeper.sweep, sweeper_rt)
        reply, summary = delivered.result(), swept.result()
    for rt in (webhook_rt, sweeper_rt):
        del rt.deps.repo.load  # the real one again
    assert reply["statusCode"] == 200 and summary["errors"] == 0
    records = [r for r in h.deps.repo.history(match_id) if r.turn == 1]
    assert len(records) == 1
    after = h.deps.repo.load(match_id).match
    assert after.turn == 2 or after.phase is Phase.FINISHED
    reveals = [t for t in h.texts(GROUP_ID) if "Ход 1 — вскрытие" in t]
    assert len(reveals) == 1
    assert lambda_sweeper.sweep(sweeper_rt)["results"] == 0  # nothing left to do twice


# --------------------------------------------------------------------------- known gaps


def _fail_sends(api: FakeBotAPI, times: int, chat_id: int = GROUP_ID) -> None:
    """The next ``times`` sendMessage calls to ``chat_id`` (the group) answer 502 (a Telegram
    hiccup)."""
    real = api.do_request
    left = [times]

    async def flaky(url: str, method: str, request_data: Any = None, *a: Any, **k: Any) -> Any:
        params = dict(request_data.parameters) if request_data else {}
        if left[0] and url.endswith("/sendMessage") and params.get("chat_id") == chat_id:
            left[0] -= 1
            body = {"ok": False, "error_code": 502, "description": "Bad Gateway"}
            return 502, json.dumps(body).encode()
        return await real(url, method, request_data, *a, **k)

    api.do_request = flaky  # type: ignore[method-assign]


def test_a_reveal_survives_a_telegram_hiccup(harness: WebhookHarness) -> None:
    """The last order resolves the turn (saved), then the group reveal gets a 502. The webhook
    used to answer 500, and Telegram's redelivery found the turn resolved: nobody ever saw the
    reveal. The reveal is now sent again at once."""
    h = harness
    _match_id, alice, bob = open_duel(h)
    h.say(alice, int(alice["id"]), ORDER)
    _fail_sends(h.api, 1)
    h.say(bob, int(bob["id"]), ORDER)
    assert h.responses[-1]["statusCode"] == 200
    assert sum("Ход 1 — вскрытие" in t for t in h.texts(GROUP_ID)) == 1


@pytest.mark.parametrize("down", ["group", "private"])  # the reveal, or Bob's receipt
def test_an_update_that_resolved_a_turn_is_not_re_sent_into_the_next_one(
    harness: WebhookHarness, caplog: pytest.LogCaptureFixture, down: str
) -> None:
    """Telegram is down for the group (or Bob's chat) after Bob's typed order resolved turn 1
    (saved). A 500 made Telegram re-send Bob's "/order ...", which then sealed into turn 2: an
    order he never gave for it. What the turn owes is in the outbox, so the update succeeded
    (200) and is not re-sent; a redelivery anyway is a duplicate."""
    h = harness
    match_id, alice, bob = open_duel(h)
    miss = "/order move 0 aim 5:5"  # no hit: the duel goes on to turn 2
    h.say(alice, int(alice["id"]), miss)
    _fail_sends(h.api, 10, GROUP_ID if down == "group" else int(bob["id"]))
    with caplog.at_level(logging.ERROR, logger="sekundant.lambda"):
        h.say(bob, int(bob["id"]), miss)
    assert h.responses[-1]["statusCode"] == 200
    # What failed stays owed in the outbox (the reveal, or Bob's receipt): nothing failed
    # the update itself, and the sweeper delivers it later (tests/serverless/test_faults.py).
    owed = [o.key for o in h.deps.repo.owed(match_id)]
    if down == "group":
        assert owed == ["resolved:1"]
    else:  # the receipt, and Bob's builder of turn 2; the group had its reveal anyway
        assert owed == ["receipt:1:p2", "resolved:1"]
        assert sum("Ход 1 — вскрытие" in t for t in h.texts(GROUP_ID)) == 1, h.texts(GROUP_ID)[-3:]
    m = h.deps.repo.load(match_id).match
    assert m.turn == 2 and m.sealed == ()
    h.feed(h.fed[-1])  # Telegram re-sends it anyway
    assert h.responses[-1]["statusCode"] == 200
    assert h.deps.repo.load(match_id).match.sealed == ()


# --------------------------------------------------------------------------- secrets


def _env(aws: Callable[[str], Any], **changes: str | None) -> dict[str, str]:
    env = lambda_env(aws.secret_arn)  # type: ignore[attr-defined]
    for key, value in changes.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return env


def _secret(aws: Callable[[str], Any], name: str, value: str) -> str:
    sm = aws.full("secretsmanager")  # type: ignore[attr-defined]
    arn: str = sm.create_secret(Name=name, SecretString=value)["ARN"]
    return arn


@pytest.mark.parametrize(
    ("where", "value", "expected"),
    [
        ("token-secret", '{"bot": "' + TOKEN + '"}', "with a 'token' string"),
        ("token-secret", '{"token": 7}', "with a 'token' string"),
        ("token-secret", '{"token": "' + TOKEN, "not valid JSON"),
        ("token-secret", "   ", "expected the token BotFather gave"),
        ("token-secret", TOKEN.replace(":", "-"), "expected the token BotFather gave"),
        ("webhook-secret", "has spaces " + SECRET, "expected 1-256 characters"),
        ("webhook-secret", '{"secret": "' + SECRET + '"}', "expected 1-256 characters"),
    ],
)
def test_a_bad_secret_is_refused_naming_where_never_what(
    aws: Callable[[str], Any], where: str, value: str, expected: str
) -> None:
    arn = _secret(aws, f"bad-{where}", value)
    if where == "token-secret":
        env = _env(aws, SEKUNDANT_TOKEN_PARAMETER=None, SEKUNDANT_TOKEN_SECRET=arn)
    else:
        env = _env(aws, SEKUNDANT_WEBHOOK_SECRET=arn)
    with pytest.raises(SecretError) as err:  # the token is read when the bot is wired
        cold_start(env, request=FakeBotAPI(), clients=aws).wire()
    message = str(err.value)
    assert expected in message and arn in message
    assert TOKEN not in message and SECRET not in message
    assert not value.strip() or value.strip() not in message


@pytest.mark.parametrize(
    ("changes", "named"),
    [
        (
            {"SEKUNDANT_TOKEN_PARAMETER": None},
            "SEKUNDANT_TOKEN_PARAMETER or SEKUNDANT_TOKEN_SECRET",
        ),
        ({"SEKUNDANT_TOKEN_PARAMETER": "/nowhere"}, "/nowhere: ParameterNotFound"),
        ({"SEKUNDANT_WEBHOOK_SECRET": None}, "SEKUNDANT_WEBHOOK_SECRET"),
        ({"SEKUNDANT_WEBHOOK_SECRET": "no-such-secret"}, "no-such-secret"),
    ],
)
def test_a_missing_secret_is_refused_naming_it(
    aws: Callable[[str], Any], changes: dict[str, str | None], named: str
) -> None:
    with pytest.raises(SecretError, match=named):
        cold_start(_env(aws, **changes), request=FakeBotAPI(), clients=aws).wire()


def test_a_json_token_secret_with_a_token_key_works(aws: Callable[[str], Any]) -> None:
    arn = _secret(aws, "json-token", json.dumps({"token": TOKEN, "note": "x"}))
    env = _env(aws, SEKUNDANT_TOKEN_PARAMETER=None, SEKUNDANT_TOKEN_SECRET=arn)
    rt = cold_start(env, webhook=False, request=FakeBotAPI(), clients=aws)
    assert rt.app.bot.token == TOKEN
    rt.run(rt.app.shutdown())
    rt.loop.close()
