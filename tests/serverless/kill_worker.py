"""A webhook container in its own process, for ``test_webhook_lease``: it handles one update
against a shared SQLite store and hangs where it would confirm it, so the test can kill it
(SIGKILL: no cleanup of ours runs) between the claim and the confirm."""

from __future__ import annotations

import time
from typing import Any


class Secrets:
    def get_parameter(self, **kwargs: Any) -> dict[str, Any]:
        from tests.serverless.webhook_harness import TOKEN

        return {"Parameter": {"Value": TOKEN}}

    def get_secret_value(self, **kwargs: Any) -> dict[str, Any]:
        from tests.serverless.webhook_harness import SECRET

        return {"SecretString": SECRET}


def work(
    path: str, update: dict[str, Any], users: list[dict[str, Any]], now: float, at: Any
) -> None:
    from handlers import lambda_webhook
    from handlers.runtime import cold_start
    from handlers.telegram.fake_api import FakeBotAPI
    from infra.sqlite import SqliteRepository
    from tests.serverless.webhook_harness import api_event, lambda_env

    api = FakeBotAPI()
    for user in users:
        api.add_user(user)
    repo = SqliteRepository(path)

    def hang(*args: Any, **kwargs: Any) -> bool:
        at.set()  # processed: the test kills us now
        time.sleep(3600)
        return True

    repo.confirm_update = hang  # type: ignore[method-assign]
    rt = cold_start(
        lambda_env("webhook-secret"),
        request=api,
        clients=lambda s: Secrets(),
        clock=lambda: now,
        repo=repo,
    )
    lambda_webhook.handle(api_event(update), rt)
