"""One load-run worker: a process standing for one Lambda container.

It cold-starts exactly as the webhook function does (``handlers.runtime.cold_start`` with the
production request class, PTB's ``HTTPXRequest``, pointed at the shared fake Bot API over
HTTP, and the production DynamoDB repository on moto's server), then takes jobs from a queue
one at a time, as a container takes invocations: ``("update", update)`` through
``lambda_webhook.lambda_handler`` and ``("sweep", None)`` through ``lambda_sweeper``.

For each job it reports the HTTP status, wall and CPU time, the DynamoDB requests with their
units (:mod:`tests.bench.load.meter`), the Bot API calls by method and the bytes it logged.
"""

from __future__ import annotations

import io
import logging
import os
import sys
import time
from collections import Counter
from dataclasses import dataclass
from typing import Any

TABLE = "sekundant-load"
TOKEN = "7000000001:AAH-sandbox-token-not-a-real-one-xx"
SECRET = "S3cretWebhookToken0123456789abcdefABCDEF"
REGION = "eu-west-1"
# What Lambda's runtime itself writes to CloudWatch per invocation (START, END and REPORT
# lines; measured from a python3.12 function's log stream: about 330 bytes).
PLATFORM_LOG_BYTES = 330


@dataclass(frozen=True)
class WorkerConfig:
    moto_url: str
    api_url: str
    beacon: str = "none"


class _Secrets:
    """The SSM and Secrets Manager reads of a cold start, answered locally (not metered:
    production reads them once per container)."""

    def get_parameter(self, **_kw: Any) -> dict[str, Any]:
        return {"Parameter": {"Value": TOKEN}}

    def get_secret_value(self, **_kw: Any) -> dict[str, Any]:
        return {"SecretString": SECRET}


class _Context:
    """The Lambda context the handlers read: the webhook's 25 s timeout."""

    function_name = "sekundant-load"

    def get_remaining_time_in_millis(self) -> int:
        return 25_000


class _CountingSink(io.TextIOBase):
    """stdout/stderr of the container: what CloudWatch Logs would ingest, counted."""

    def __init__(self, echo: Any = None) -> None:
        self.bytes = 0
        self.echo = echo  # LOAD_DEBUG=1: also shown on the real stderr

    def write(self, s: str) -> int:
        self.bytes += len(s.encode())
        if self.echo is not None:
            self.echo.write(s)
        return len(s)


def env(cfg: WorkerConfig) -> dict[str, str]:
    return {
        "SEKUNDANT_STORE": "dynamodb",
        "SEKUNDANT_TABLE": TABLE,
        "SEKUNDANT_LANG": "ru",
        "TELEGRAM_BOT_USERNAME": "sekundant_bot",
        "SEKUNDANT_TOKEN_PARAMETER": "/sekundant/bot-token",
        "SEKUNDANT_WEBHOOK_SECRET": "arn:aws:secretsmanager:eu-west-1:0:secret:load",
        "TELEGRAM_API_BASE_URL": cfg.api_url,
        "SEKUNDANT_BEACON": cfg.beacon,
    }


def serve(cfg: WorkerConfig, tasks: Any, results: Any) -> None:
    """The worker process's main: cold start, then jobs until ``None``."""
    os.environ.update(
        AWS_DEFAULT_REGION=REGION, AWS_ACCESS_KEY_ID="load", AWS_SECRET_ACCESS_KEY="load"
    )
    sink = _CountingSink(sys.__stderr__ if os.environ.get("LOAD_DEBUG") else None)
    sys.stdout = sys.stderr = sink  # type: ignore[assignment]
    logging.basicConfig(level=logging.INFO, stream=sink, force=True)

    from telegram.request import HTTPXRequest

    from handlers import lambda_sweeper, lambda_webhook, runtime
    from infra import aws
    from tests.bench.load.meter import Meter, MeteredClient, trace
    from tests.serverless.webhook_harness import api_event

    meter = Meter()
    bot_calls: Counter[str] = Counter()

    class CountingRequest(HTTPXRequest):
        async def do_request(self, url: str, method: str, *a: Any, **kw: Any) -> Any:
            bot_calls[url.rsplit("/", 1)[-1]] += 1
            trace(f"BOT {url.rsplit('/', 1)[-1]}")
            return await super().do_request(url, method, *a, **kw)

    def clients(service: str) -> Any:
        if service == "dynamodb":
            inner = aws.client("dynamodb", endpoint_url=cfg.moto_url)
            peek = aws.client("dynamodb", endpoint_url=cfg.moto_url)
            return MeteredClient(inner, peek, meter, TABLE)
        return _Secrets()

    def request() -> HTTPXRequest:
        return CountingRequest(
            connection_pool_size=4,
            connect_timeout=runtime.BOT_API_CONNECT_TIMEOUT,
            read_timeout=runtime.BOT_API_READ_TIMEOUT,
            write_timeout=runtime.BOT_API_READ_TIMEOUT,
            pool_timeout=1.0,
        )

    for webhook in (True, False):
        rt = runtime.cold_start(env(cfg), webhook=webhook, request=request(), clients=clients)
        runtime.install(rt, webhook=webhook)
        rt.wire()
    meter.take()  # the cold start's own requests are not an update's
    bot_calls.clear()
    context = _Context()
    profile = None
    if os.environ.get("LOAD_PROFILE"):  # LOAD_PROFILE=<prefix>: cProfile of every job, per worker
        import cProfile

        profile = cProfile.Profile(time.process_time)
    results.put(("ready", os.getpid()))
    while (job := tasks.get()) is not None:
        job_id, kind, payload = job
        logged = sink.bytes
        trace(f"JOB {kind} {str(payload)[:160] if kind == 'update' else ''}")
        started, cpu = time.perf_counter(), time.process_time()
        if profile is not None:
            profile.enable()
        if kind == "update":
            status = int(
                lambda_webhook.lambda_handler(api_event(payload, SECRET), context)["statusCode"]
            )
        else:
            lambda_sweeper.lambda_handler({}, context)
            status = 200
        if profile is not None:
            profile.disable()
            profile.dump_stats(f"{os.environ['LOAD_PROFILE']}.{os.getpid()}")
        dynamo = meter.take()
        report = {
            "status": status,
            # the meter's reads of item sizes are not the bot's CPU (its wall time has them)
            "wall": time.perf_counter() - started,
            "cpu": time.process_time() - cpu - dynamo.pop("overhead_cpu"),
            "dynamo": dynamo,
            "bot": dict(bot_calls),
            "log_bytes": sink.bytes - logged + PLATFORM_LOG_BYTES,
        }
        bot_calls.clear()
        results.put((job_id, report))
