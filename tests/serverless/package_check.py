"""Run inside the staged Lambda package (``tests/serverless/test_package.py``), under the
runtime's Python and the oldest botocore its runtime ships: both functions import, the webhook
answers an update, the sweeper runs, the AWS clients carry the explicit retry and timeout
``Config``, the beacon's signature check runs (its BLS library is in the package: a real
quicknet round verifies, a tampered one does not), and development code is absent. Argument:
the botocore version expected."""

from __future__ import annotations

import json
import sys
from typing import Any

import botocore
from botocore.stub import Stubber
from telegram.request import BaseRequest

from engine.beacon import QUICKNET, verify_signature
from handlers import lambda_resolver, lambda_sweeper, lambda_webhook, runtime
from infra import aws
from infra.dynamodb import DynamoRepository
from infra.later import SqsLater
from infra.memory import MemoryRepository

TOKEN = "7000000001:AAH-package-check-token-not-a-real-one"
SECRET = "packagechecksecret0123456789"

assert botocore.__version__ == sys.argv[1], botocore.__version__
for dev in ("handlers.telegram.fake_api", "handlers.telegram.harness", "infra.sqlite"):
    try:
        __import__(dev)
    except ImportError:
        continue
    raise SystemExit(f"{dev} is in the package")

# A real quicknet round (tests/fairness/test_beacon.py), checked as the bot checks a relay's.
ROUND = 5928395
SIGNATURE = (
    "a5d07c0071b4e386b3ae09206522253c68fefe8490ad59ecc44a7dd0d0745be9"
    "1da5779e2247a82403fbc0cb9a34cb61"
)
assert verify_signature(QUICKNET, ROUND, SIGNATURE)
assert not verify_signature(QUICKNET, ROUND + 1, SIGNATURE)

client = aws.client(
    "dynamodb", region_name="eu-west-1", aws_access_key_id="x", aws_secret_access_key="y"
)
config = client.meta.config
assert config.retries == {"mode": "standard", "total_max_attempts": 3}, config.retries
assert (config.connect_timeout, config.read_timeout) == (1.0, 2.0)
with Stubber(client) as stub:
    key = {"PK": {"S": "USER#5"}, "SK": {"S": "PREFS"}}
    params = {"TableName": "t", "Key": key, "ConsistentRead": True}
    stub.add_response("get_item", {"Item": {**key, "doc": {"S": '{"lang": "en"}'}}}, params)
    assert DynamoRepository(client, "t").load_prefs(5) == {"lang": "en"}


class Recorder(BaseRequest):
    """A Bot API that answers every call with a message."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    async def initialize(self) -> None:
        pass

    async def shutdown(self) -> None:
        pass

    @property
    def read_timeout(self) -> float:
        return 1.0

    async def do_request(  # type: ignore[override]
        self, url: str, method: str, request_data: Any = None, **kwargs: Any
    ) -> tuple[int, bytes]:
        self.calls.append(url.rsplit("/", 1)[-1])
        chat = (request_data.parameters if request_data else {}).get("chat_id", 1)
        msg = {"message_id": len(self.calls), "date": 0, "chat": {"id": chat, "type": "private"}}
        return 200, json.dumps({"ok": True, "result": msg}).encode()


class Secrets:
    def get_parameter(self, **kwargs: Any) -> dict[str, Any]:
        return {"Parameter": {"Value": TOKEN}}

    def get_secret_value(self, **kwargs: Any) -> dict[str, Any]:
        return {"SecretString": SECRET}


env = {
    "TELEGRAM_BOT_USERNAME": "sekundant_bot",
    "SEKUNDANT_TOKEN_PARAMETER": "/sekundant/bot-token",
    "SEKUNDANT_WEBHOOK_SECRET": "webhook-secret",
    "SEKUNDANT_STORE": "dynamodb",
    "SEKUNDANT_TABLE": "t",
    "SEKUNDANT_BEACON": "none",
}
api = Recorder()
runtime.install(
    runtime.cold_start(env, request=api, clients=lambda s: Secrets(), repo=MemoryRepository())
)
update = {
    "update_id": 1,
    "message": {
        "message_id": 1,
        "date": 0,
        "chat": {"id": 5, "type": "private"},
        "from": {"id": 5, "is_bot": False, "first_name": "A"},
        "text": "/start",
        "entities": [{"type": "bot_command", "offset": 0, "length": 6}],
    },
}
event = {"headers": {"X-Telegram-Bot-Api-Secret-Token": SECRET}, "body": json.dumps(update)}
answer = lambda_webhook.lambda_handler(event, None)
assert answer["statusCode"] == 200, answer
assert "sendMessage" in api.calls, api.calls
sweeper = runtime.cold_start(
    env, webhook=False, request=api, clients=lambda s: Secrets(), repo=MemoryRepository()
)
runtime.install(sweeper, webhook=False)
summary = lambda_sweeper.lambda_handler({}, None)
assert summary["errors"] == 0, summary
# The resolve queue's client (our trimmed SQS model on this botocore) and the resolver.
sqs = aws.client("sqs", region_name="eu-west-1", aws_access_key_id="x", aws_secret_access_key="y")
queue = "https://sqs.eu-west-1.amazonaws.com/123456789012/resolve"
with Stubber(sqs) as stub:
    body = '{"match_id": "m1", "turn": 2, "attempt": 1}'
    sent = {"QueueUrl": queue, "MessageBody": body, "DelaySeconds": 3}
    stub.add_response("send_message", {"MessageId": "1", "MD5OfMessageBody": "x"}, sent)
    SqsLater(lambda: sqs, queue, lambda: 100.0).resolve_at("m1", 2, 102.5, 1)
jobs = {"Records": [{"messageId": "1", "body": body}, {"messageId": "2", "body": "junk"}]}
assert lambda_resolver.lambda_handler(jobs, None) == {"batchItemFailures": []}
print(json.dumps({"python": sys.version.split()[0], "botocore": botocore.__version__}))
