"""One load-run worker: a process standing for one Lambda container.

It cold-starts exactly as the webhook function does (``handlers.runtime.cold_start`` with the
production request class, PTB's ``HTTPXRequest``, pointed at the shared fake Bot API over
HTTP, and the production DynamoDB repository on moto's server), then takes jobs from a queue
one at a time, as a container takes invocations: ``("update", update)`` through
``lambda_webhook.lambda_handler``, ``("sweep", None)`` through ``lambda_sweeper`` and
``("resolve", body)`` - a message of the resolve queue, as its event source mapping delivers it
- through ``lambda_resolver``.

With ``WorkerConfig.queue`` (production's way, docs/deploy.md "The beacon wait") no job sleeps
for a beacon round: the bot's ``Deps.later`` is :class:`QueueLater` (a hook, as the beacon's),
which reports each message the job would send to the resolve queue, its ``DelaySeconds``
computed as :class:`infra.later.SqsLater` does; the cluster delivers it to some worker as a
``resolve`` job once the delay is over (:mod:`tests.bench.load.cluster`).

With a fake drand relay (``WorkerConfig.drand_url``, :mod:`tests.bench.load.drand_http`) the
bot runs production's beacon path: ``SEKUNDANT_BEACON=drand``, the lock message, the wait for
its round, the relay fetch and the BLS check, by production's :class:`infra.beacon.DrandBeacon`
given the local test network and the relay's address here (:func:`_beacon`: a hook of this
test worker; production takes neither from its environment).

For each job it reports the HTTP status, wall and CPU time, the DynamoDB requests with their
units (:mod:`tests.bench.load.meter`), the Bot API calls by method and the waits they made
(their round trips one after another: :class:`tests.bench.load.meter.Waits`), the bytes it
logged, and the beacon's part (:class:`BeaconMeter`: the wall time slept waiting for the
round, the relay fetches, the CPU of the signature checks).
"""

from __future__ import annotations

import io
import logging
import os
import sys
import time
from collections import Counter
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from infra.beacon import DrandBeacon

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
    drand_url: str = ""  # a fake drand relay; "" : no beacon (SEKUNDANT_BEACON=none)
    queue: bool = True  # locked turns go to the resolve queue (else the function sleeps)
    meter_lock: str = ""  # a file the workers' meters lock around each write (meter._alone)


class QueueLater:
    """The bot's :class:`engine.ports.Later` in a worker: the messages a job sends to the
    resolve queue (``SendMessage``), kept for its report as ``[sent_at, delay, body]``, and
    ``avoided``: the seconds the function would have slept for the round instead (production's
    drand adapter sleeps until the round's time plus 0.2 s; only a turn's first message)."""

    def __init__(self) -> None:
        self.sent: list[tuple[float, int, str]] = []
        self.avoided = 0.0

    def resolve_at(self, match_id: str, turn: int, due: float, attempt: int) -> None:
        from engine.usecases import LATER_MARGIN
        from infra.later import Job, delay_seconds

        now = time.time()
        self.sent.append((now, delay_seconds(due, now), Job(match_id, turn, attempt).to_json()))
        if attempt == 1:
            self.avoided += max(0.0, due - LATER_MARGIN + 0.2 - now)

    def take(self) -> tuple[list[tuple[float, int, str]], float]:
        sent, avoided, self.sent, self.avoided = self.sent, self.avoided, [], 0.0
        return sent, avoided


# What the resolve queue's event source mapping does per message besides the SendMessage:
# the ReceiveMessage that hands it over and the DeleteMessageBatch after the resolver (one
# message a batch here: the load run's turns all lock at once, but production's seldom do).
SQS_REQUESTS_PER_RESOLVE = 2


@dataclass
class BeaconMeter:
    """The beacon's part of one job: ``wait`` seconds of wall time slept for the round,
    ``fetches`` relay requests (and their ``fetch_wall`` seconds on the loopback), ``checks``
    signature checks and their ``check_cpu`` seconds (CPU time, also in the job's CPU)."""

    wait: float = 0.0
    fetches: int = 0
    fetch_wall: float = 0.0
    checks: int = 0
    check_cpu: float = 0.0

    def take(self) -> dict[str, Any]:
        out = asdict(self)
        self.wait = self.fetch_wall = self.check_cpu = 0.0
        self.fetches = self.checks = 0
        return out


def _beacon(cfg: WorkerConfig, meter: BeaconMeter) -> DrandBeacon:
    """Production's drand adapter on the local test network, fetching from the fake relay,
    with its sleep, relay requests and checks metered. Every fetch runs the whole check
    (``verify_signature`` without its per-process cache): in the load run every match locks
    in the same second, so one container would otherwise check one round for many matches,
    which a real bot's spread-out turns rarely share."""
    import httpx

    from engine.beacon import Network, verify_signature
    from infra.beacon import DrandBeacon, LocalBeacon
    from tests.bench.load.drand_http import CHAIN_HASH

    def sleep(seconds: float) -> None:
        started = time.perf_counter()
        time.sleep(seconds)
        meter.wait += time.perf_counter() - started

    def check(network: Network, round_number: int, signature: str) -> bool:
        started = time.process_time()
        try:
            return bool(verify_signature.__wrapped__(network, round_number, signature))
        finally:
            meter.checks += 1
            meter.check_cpu += time.process_time() - started

    network = LocalBeacon().network  # its key, registered for the dossier as the sandbox's
    beacon = DrandBeacon(
        network=network, chain_hash=CHAIN_HASH, urls=(cfg.drand_url,), sleep=sleep, check=check
    )
    started: list[float] = []

    def on_request(_request: httpx.Request) -> None:
        meter.fetches += 1
        started.append(time.perf_counter())

    def on_response(_response: httpx.Response) -> None:
        meter.fetch_wall += time.perf_counter() - started.pop()

    # Production's own client (made here, once per container, as its first fetch would),
    # its requests metered by httpx's event hooks.
    beacon.client.event_hooks = {"request": [on_request], "response": [on_response]}
    return beacon


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
        "SEKUNDANT_BEACON": "drand" if cfg.drand_url else "none",
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

    from handlers import lambda_resolver, lambda_sweeper, lambda_webhook, runtime
    from infra import aws
    from tests.bench.load.meter import Meter, MeteredClient, Waits, trace
    from tests.serverless.webhook_harness import api_event

    meter = Meter()
    beacon_meter = BeaconMeter()
    bot_calls: Counter[str] = Counter()
    waits = Waits()  # the calls' round trips one after another (cost.py bills these)

    class CountingRequest(HTTPXRequest):
        async def do_request(self, url: str, method: str, *a: Any, **kw: Any) -> Any:
            bot_calls[url.rsplit("/", 1)[-1]] += 1
            trace(f"BOT {url.rsplit('/', 1)[-1]}{' (with another)' if waits.in_flight else ''}")
            started = waits.start()
            try:
                return await super().do_request(url, method, *a, **kw)
            finally:
                waits.end(started)

    def clients(service: str) -> Any:
        if service == "dynamodb":
            inner = aws.client("dynamodb", endpoint_url=cfg.moto_url)
            peek = aws.client("dynamodb", endpoint_url=cfg.moto_url)
            return MeteredClient(inner, peek, meter, TABLE, cfg.meter_lock)
        return _Secrets()

    def request() -> HTTPXRequest:
        return CountingRequest(
            connection_pool_size=4,
            connect_timeout=runtime.BOT_API_CONNECT_TIMEOUT,
            read_timeout=runtime.BOT_API_READ_TIMEOUT,
            write_timeout=runtime.BOT_API_READ_TIMEOUT,
            pool_timeout=1.0,
        )

    later = QueueLater()
    for webhook in (True, False):
        rt = runtime.cold_start(env(cfg), webhook=webhook, request=request(), clients=clients)
        runtime.install(rt, webhook=webhook)
        rt.wire()
        if cfg.drand_url:  # the hook: the local network's relay instead of drand's
            rt.deps.beacon = _beacon(cfg, beacon_meter)
            if cfg.queue:  # and the resolve queue (SEKUNDANT_RESOLVE_QUEUE in production)
                rt.deps.later = later
    meter.take()  # the cold start's own requests are not an update's
    bot_calls.clear()
    waits.take()
    beacon_meter.take()
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
        sqs = 0
        if kind == "update":
            status = int(
                lambda_webhook.lambda_handler(api_event(payload, SECRET), context)["statusCode"]
            )
        elif kind == "resolve":
            event = {"Records": [{"messageId": str(job_id), "body": payload}]}
            failed = lambda_resolver.lambda_handler(event, context)["batchItemFailures"]
            status = 500 if failed else 200
            sqs = SQS_REQUESTS_PER_RESOLVE
        else:
            lambda_sweeper.lambda_handler({}, context)
            status = 200
        if profile is not None:
            profile.disable()
            profile.dump_stats(f"{os.environ['LOAD_PROFILE']}.{os.getpid()}")
        dynamo = meter.take()
        report: dict[str, Any] = {
            "status": status,
            # the meter's reads of item sizes are not the bot's CPU (its wall time has them)
            "wall": time.perf_counter() - started,
            "cpu": time.process_time() - cpu - dynamo.pop("overhead_cpu"),
            "dynamo": dynamo,
            "bot": dict(bot_calls),
            "bot_waits": waits.take(),
            "log_bytes": sink.bytes - logged + PLATFORM_LOG_BYTES,
            "beacon": beacon_meter.take(),
        }
        report["later"], report["sleep_avoided"] = later.take()
        report["sqs"] = sqs + len(report["later"])
        bot_calls.clear()
        results.put((job_id, report))
