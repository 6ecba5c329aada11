"""Peak memory of a Lambda container in a clean process: cold start plus a whole pistol duel
played through ``handlers.lambda_webhook.lambda_handler`` with fixture-shaped API Gateway
events and the fake Bot API, then ``ru_maxrss``.

``python -m tests.bench.lambda_duel`` injects an in-memory repository (the figure to compare
with the function's memory size); ``--moto`` uses a moto DynamoDB table instead and also
prints the peak before the handler is imported, which is moto's own share (moto, its
backends and its table; Lambda has none of it).
"""

from __future__ import annotations

import resource
import sys
from typing import Any


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


class _Stub:
    """The SSM / Secrets Manager reads of a cold start, answered locally."""

    def __init__(self, token: str, secret: str) -> None:
        self.token, self.secret = token, secret

    def get_parameter(self, **_kw: Any) -> dict[str, Any]:
        return {"Parameter": {"Value": self.token}}

    def get_secret_value(self, **_kw: Any) -> dict[str, Any]:
        return {"SecretString": self.secret}


def main(argv: list[str]) -> int:
    from tests.storage.aws import use_fake_aws_env

    use_fake_aws_env()
    with_moto = "--moto" in argv
    moto_ctx = None
    if with_moto:
        import boto3
        from moto import mock_aws

        from tests.serverless.webhook_harness import (
            REGION,
            SECRET,
            SECRET_NAME,
            TABLE,
            TOKEN,
            TOKEN_PARAMETER,
        )
        from tests.storage.aws import create_table

        moto_ctx = mock_aws()
        moto_ctx.start()
        made: dict[str, Any] = {}

        def clients(service: str) -> Any:
            if service not in made:
                made[service] = boto3.client(service, region_name=REGION)
            return made[service]

        create_table(clients("dynamodb"), TABLE)
        clients("ssm").put_parameter(Name=TOKEN_PARAMETER, Value=TOKEN, Type="SecureString")
        arn = clients("secretsmanager").create_secret(Name=SECRET_NAME, SecretString=SECRET)
        secret_arn, repo = arn["ARN"], None
        print(f"moto ready: {peak_mib():.0f} MiB")
    # The cold start proper: what Lambda imports and wires.
    from handlers import lambda_webhook, runtime
    from handlers.telegram.fake_api import FakeBotAPI
    from tests.serverless.duel import play_duel
    from tests.serverless.webhook_harness import (
        SECRET,
        TOKEN,
        WEBHOOK_NOW,
        WebhookHarness,
        api_event,
        lambda_env,
    )
    from tests.support.clock import FakeClock

    if not with_moto:
        from infra.memory import MemoryRepository

        stub = _Stub(TOKEN, SECRET)

        def clients(service: str) -> Any:
            return stub

        secret_arn, repo = "arn:aws:secretsmanager:eu-west-1:0:secret:bench", MemoryRepository()

    class HandlerHarness(WebhookHarness):
        """Every update goes through the function's real entry point."""

        def feed(self, update: dict[str, Any]) -> None:
            self.fed.append(update)
            self.responses.append(lambda_webhook.lambda_handler(api_event(update), None))

    api, clock = FakeBotAPI(), FakeClock(WEBHOOK_NOW)
    rt = runtime.cold_start(
        lambda_env(secret_arn), request=api, clients=clients, clock=clock, repo=repo
    )
    runtime.install(rt, webhook=True)
    h = HandlerHarness([rt], api, clock)
    play_duel(h)
    if any(r["statusCode"] != 200 for r in h.responses):
        print("FAILED: a delivery was not answered 200", file=sys.stderr)
        return 1
    print(f"updates: {len(h.responses)}")
    print(f"RSS {peak_mib():.1f} MiB")
    h.close()
    if moto_ctx is not None:
        moto_ctx.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
