"""Serverless fixtures: moto AWS (DynamoDB table from ``template.yaml``, the token in SSM, the
webhook secret in Secrets Manager), Lambda runtimes wired exactly as a cold start does, and a
harness that delivers updates as API Gateway payload-2.0 events through the webhook entry."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from handlers.runtime import Runtime, cold_start
from handlers.telegram.fake_api import FakeBotAPI
from tests.serverless.webhook_harness import (  # noqa: F401 - re-exported for the tests
    REGION,
    SECRET,
    SECRET_NAME,
    TABLE,
    TOKEN,
    TOKEN_PARAMETER,
    WEBHOOK_NOW,
    WebhookHarness,
    api_event,
    fixture,
    lambda_env,
)
from tests.storage.aws import create_table, use_fake_aws_env
from tests.support.clock import FakeClock

use_fake_aws_env()
# moto imported before any botocore session exists (``infra.aws`` keeps one per process, as
# boto3 does): sessions copy botocore's handlers when created, moto's hook among them.
import moto  # noqa: E402, F401


@pytest.fixture
def aws() -> Iterator[Callable[[str], Any]]:
    """moto for every AWS call; yields the client factory the runtime uses: production's
    (:mod:`infra.aws`, trimmed models) for the services it covers; full boto3 clients set
    the resources up and are ``.full(service)`` for inspection."""
    import boto3
    from moto import mock_aws

    from infra import aws as trimmed

    with mock_aws():
        clients: dict[str, Any] = {}

        def full(service: str) -> Any:
            return boto3.client(service, region_name=REGION)  # type: ignore[call-overload]

        def client(service: str) -> Any:
            if service not in clients:
                known = service in trimmed.OPERATIONS
                clients[service] = (
                    trimmed.client(service, region_name=REGION) if known else full(service)
                )
            return clients[service]

        create_table(full("dynamodb"), TABLE)
        full("ssm").put_parameter(Name=TOKEN_PARAMETER, Value=TOKEN, Type="SecureString")
        arn = full("secretsmanager").create_secret(Name=SECRET_NAME, SecretString=SECRET)["ARN"]
        client.secret_arn = arn  # type: ignore[attr-defined]
        client.full = full  # type: ignore[attr-defined] # for inspection (scan, describe...)
        yield client


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(WEBHOOK_NOW)


@pytest.fixture
def fake_api() -> FakeBotAPI:
    return FakeBotAPI()


@pytest.fixture
def make_runtime(
    aws: Callable[[str], Any], fake_api: FakeBotAPI, clock: FakeClock
) -> Iterator[Callable[..., Runtime]]:
    made: list[Runtime] = []

    def make(*, webhook: bool = True, api: FakeBotAPI | None = None) -> Runtime:
        env = lambda_env(aws.secret_arn)  # type: ignore[attr-defined]
        rt = cold_start(env, webhook=webhook, request=api or fake_api, clients=aws, clock=clock)
        made.append(rt)
        return rt

    yield make
    for rt in made:
        if not rt.loop.is_closed():
            rt.run(rt.app.shutdown())
            rt.loop.close()


@pytest.fixture
def harness(
    make_runtime: Callable[..., Runtime], fake_api: FakeBotAPI, clock: FakeClock
) -> WebhookHarness:
    return WebhookHarness([make_runtime()], fake_api, clock)
