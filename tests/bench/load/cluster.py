"""The load run's infrastructure: DynamoDB in moto's server mode (its own process), the fake
Bot API over HTTP (a thread here), a fake drand relay over HTTP (a thread here, serving the
local test network's rounds: :mod:`tests.bench.load.drand_http`), and N worker processes
(Lambda containers) fed from one queue, as API Gateway hands each delivery to whichever
container is free.

``Cluster.deliver`` is Telegram's side of a webhook: it re-sends an update until it is answered
200 (a 500 or 503 is retried after a short pause; every retry is counted).

The resolve queue (docs/deploy.md, "The beacon wait") is SQS's side: a job's report lists the
messages it sent to the queue with their ``DelaySeconds``; each is handed to some worker as a
``resolve`` job once its delay is over (as the event source mapping's long poll does), and one
the resolver reports failed is offered again after :data:`REDELIVERY_SECONDS` (the queue's
visibility timeout, shortened), at most :data:`MAX_RECEIVES` times (then it would be in the
dead-letter queue). ``Cluster.drain`` waits until every message is resolved and returns the
resolver's reports.
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from concurrent.futures import Future
from dataclasses import dataclass, field
from itertools import count
from pathlib import Path
from typing import Any

from tests.bench.load.botapi_http import BotAPIServer
from tests.bench.load.drand_http import DrandRelay
from tests.bench.load.worker import REGION, TABLE, WorkerConfig, serve

MAX_DELIVERIES = 20  # Telegram keeps retrying for hours; a run that needs this many is broken
RETRY_PAUSE = 0.2
REDELIVERY_SECONDS = 1.0  # the resolve queue's visibility timeout (120 s), shortened here
MAX_RECEIVES = 3  # the queue's maxReceiveCount (template.yaml)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def moto_server() -> Iterator[str]:
    """moto's server, one request at a time (:mod:`tests.bench.load.moto_serial`: moto's own
    loses writes under concurrent transactions), on a free loopback port, with the table of
    template.yaml."""
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.bench.load.moto_serial", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(200):
            try:
                urllib.request.urlopen(url + "/moto-api/", timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)
        else:
            raise RuntimeError("moto's server did not start")
        import boto3

        from tests.storage.aws import create_table

        client = boto3.client(
            "dynamodb",
            endpoint_url=url,
            region_name=REGION,
            aws_access_key_id="load",
            aws_secret_access_key="load",
        )
        create_table(client, TABLE)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:  # busy answering a closed worker's retries
            proc.kill()
            proc.wait(10)


@dataclass
class Delivery:
    """One update as Telegram delivered it: every answer's report, the last one 200."""

    update: dict[str, Any]
    reports: list[dict[str, Any]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return bool(self.reports) and self.reports[-1]["status"] == 200


class Cluster:
    """The workers, the fake Telegram and (``beacon``, production's way) the fake drand relay;
    use as a context manager."""

    def __init__(
        self, moto_url: str, workers: int, *, beacon: bool = True, queue: bool = True
    ) -> None:
        self.server = BotAPIServer()
        self.relay = DrandRelay() if beacon else None
        ctx = multiprocessing.get_context("spawn")
        self._tasks: Any = ctx.Queue()
        self._results: Any = ctx.Queue()
        drand_url = "" if self.relay is None else self.relay.url
        self._lock_dir = tempfile.TemporaryDirectory(prefix="sekundant-meter-")
        cfg = WorkerConfig(
            moto_url=moto_url,
            api_url=self.server.url,
            drand_url=drand_url,
            queue=queue,
            meter_lock=str(Path(self._lock_dir.name) / "writes.lock"),
        )
        self._procs = [
            ctx.Process(target=serve, args=(cfg, self._tasks, self._results), daemon=True)
            for _ in range(workers)
        ]
        for p in self._procs:
            p.start()
        for _ in self._procs:
            ready = self._results.get(timeout=120)
            assert ready[0] == "ready", ready
        self._ids = count(1)
        self._pending: dict[int, Future[dict[str, Any]]] = {}
        self._lock = threading.Lock()
        self._queued = 0  # resolve-queue messages sent and not yet resolved (or given up)
        self._drained = threading.Condition(self._lock)
        self._resolves: list[dict[str, Any]] = []  # the resolver's reports since drain()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while (item := self._results.get()) is not None:
            job_id, report = item
            with self._lock:
                future = self._pending.pop(job_id)
                self._queued += len(report.get("later", ()))
            for sent_at, delay, body in report.get("later", ()):
                self._enqueue(body, sent_at + delay, 1)
            future.set_result(report)

    def _enqueue(self, body: str, visible_at: float, receive: int) -> None:
        """SQS: the message is handed over once visible (``DelaySeconds`` after it was sent)."""
        wait = max(0.0, visible_at - time.time())
        timer = threading.Timer(wait, self._resolve, (body, receive))
        timer.daemon = True
        timer.start()

    def _resolve(self, body: str, receive: int) -> None:
        """The event source mapping: the message to some worker's resolver."""
        future = self._submit("resolve", body)
        future.add_done_callback(lambda f: self._resolved(body, receive, f.result()))

    def _resolved(self, body: str, receive: int, report: dict[str, Any]) -> None:
        report["match_id"] = json.loads(body)["match_id"]
        with self._lock:
            self._resolves.append(report)
        if report["status"] != 200 and receive < MAX_RECEIVES:  # offered again
            self._enqueue(body, time.time() + REDELIVERY_SECONDS, receive + 1)
            return
        with self._lock:
            self._queued -= 1
            self._drained.notify_all()

    def drain(self, timeout: float = 120.0) -> list[dict[str, Any]]:
        """Wait until every message sent to the resolve queue was resolved (their own
        re-sends included); the resolver's reports since the last drain."""
        with self._lock:
            if not self._drained.wait_for(lambda: self._queued == 0, timeout):
                raise TimeoutError(f"{self._queued} resolve-queue messages still pending")
            reports, self._resolves = self._resolves, []
        return reports

    def _submit(self, kind: str, payload: Any) -> Future[dict[str, Any]]:
        future: Future[dict[str, Any]] = Future()
        job_id = next(self._ids)
        with self._lock:
            self._pending[job_id] = future
        self._tasks.put((job_id, kind, payload))
        return future

    def deliver(self, update: dict[str, Any]) -> Delivery:
        """Deliver ``update`` until it is answered 200 (Telegram's retries)."""
        d = Delivery(update)
        for attempt in range(MAX_DELIVERIES):
            d.reports.append(self._submit("update", update).result(timeout=120))
            if d.ok:
                break
            time.sleep(RETRY_PAUSE * (attempt + 1))
        return d

    def sweep(self) -> dict[str, Any]:
        """One run of the deadline sweeper (the once-a-minute schedule), on some worker."""
        return self._submit("sweep", None).result(timeout=120)

    def __enter__(self) -> Cluster:
        return self

    def __exit__(self, *_exc: object) -> None:
        for _ in self._procs:
            self._tasks.put(None)
        for p in self._procs:
            p.join(30)
        self._results.put(None)
        self._lock_dir.cleanup()
        self.server.close()
        if self.relay is not None:
            self.relay.close()
