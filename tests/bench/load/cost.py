"""What 1,000 turns cost on AWS, from what the load run counted.

Per delivered update the run counts DynamoDB request units (:mod:`tests.bench.load.meter`),
Bot API calls, CPU time and log bytes. The bill per invocation:

- Lambda: requests, and GB-seconds at :data:`MEMORY_MB` on arm64. The billed duration is the
  CPU time measured here scaled to the function's CPU share (Lambda gives a full vCPU at
  1,769 MB, so 512 MB runs at 512/1769 of one) plus the time spent waiting on the network:
  :data:`DYNAMODB_LATENCY` per DynamoDB request and :data:`BOT_API_LATENCY` per Bot API wait
  (assumptions, stated in docs/deploy.md: in-region DynamoDB, Telegram's servers in Europe;
  calls in flight at the same time in one invocation wait once: the round trips one after
  another, measured by the run, :class:`tests.bench.load.meter.Waits`),
  and the beacon's waits: the wall time slept for a round (measured) and
  :data:`DRAND_LATENCY` per relay fetch (its signature check is CPU, already counted);
- API Gateway HTTP API: one request per update (the sweeper is a scheduled event: none);
- DynamoDB on-demand: read and write request units;
- CloudWatch Logs: the bytes logged, ingestion only (storage is kept 14 days: negligible);
- SQS: the resolve queue's requests (docs/deploy.md, "The beacon wait"): each message sent,
  and per message the event source mapping's receive and delete; the resolver's invocations
  are Lambda invocations without an API Gateway request.

:data:`PRICES` is the dated price table also printed in docs/deploy.md.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

MEMORY_MB = 512
FULL_VCPU_MB = 1769
SHARE = MEMORY_MB / FULL_VCPU_MB  # of one vCPU: a 512 MB function's CPU
DYNAMODB_LATENCY = 0.006  # seconds per request, in-region
BOT_API_LATENCY = 0.040  # seconds per call, a Lambda in eu-central-1 to Telegram's servers
# seconds per drand relay fetch: a new HTTPS connection (TCP and TLS handshakes and the
# request: three round trips to a CDN edge; the adapter's kept client reuses a connection only
# within 5 s) for a round just out (not cached at the edge)
DRAND_LATENCY = 0.060

# US East (N. Virginia) list prices in USD, as of 2026-12-01 (DynamoDB on-demand as cut on
# 2024-11-01; Lambda arm64; HTTP API first 300 million; CloudWatch Logs standard ingestion).
PRICES_DATE = "2026-12-01"
PRICES: Mapping[str, float] = {
    "lambda_request": 0.20 / 1e6,
    "lambda_gb_second_arm64": 0.0000133334,
    "http_api_request": 1.00 / 1e6,
    "dynamodb_write_unit": 0.625 / 1e6,
    "dynamodb_read_unit": 0.125 / 1e6,
    "log_gb": 0.50,
    "sqs_request": 0.40 / 1e6,  # standard queue, beyond the free million a month
    # provisioned capacity (the table's other billing mode): per unit of capacity an hour
    "dynamodb_wcu_hour": 0.00065,
    "dynamodb_rcu_hour": 0.00013,
}
# With provisioned capacity the table pays for the capacity it holds, not for requests:
# auto scaling keeps it at consumed / TARGET_UTILIZATION (DynamoDB's own default target), so a
# unit consumed costs an hour's price over the units one unit of capacity serves at that
# utilization. An assumption about steady load (a busy deployment; bursts are absorbed by
# DynamoDB's burst capacity), stated in docs/deploy.md, not a measurement.
TARGET_UTILIZATION = 0.70


@dataclass
class Usage:
    """Summed over some updates (and the sweeper runs among them)."""

    invocations: int = 0
    http_requests: int = 0
    cpu: float = 0.0
    dynamo_requests: int = 0
    rru: float = 0.0
    wru: float = 0.0
    bot_calls: int = 0
    bot_waits: int = 0  # the calls' round trips one after another (calls at once: one)
    log_bytes: int = 0
    beacon_wait: float = 0.0  # wall seconds slept for beacon rounds
    beacon_fetches: int = 0
    beacon_check_cpu: float = 0.0  # CPU seconds of signature checks (part of ``cpu``)
    sqs_requests: int = 0  # the resolve queue's: sent, received, deleted
    resolves: int = 0  # invocations of the resolver (part of ``invocations``)
    sleep_avoided: float = 0.0  # seconds the functions would have slept for rounds instead

    def add(self, report: Mapping[str, Any], *, http: bool = True) -> None:
        self.invocations += 1
        self.http_requests += int(http)
        self.cpu += float(report["cpu"])
        dyn = report["dynamo"]
        self.dynamo_requests += sum(dyn["requests"].values())
        self.rru += float(dyn["rru"])
        self.wru += float(dyn["wru"])
        calls = sum(report["bot"].values())
        self.bot_calls += calls
        self.bot_waits += int(report.get("bot_waits", calls))
        self.log_bytes += int(report["log_bytes"])
        beacon = report.get("beacon") or {}
        self.beacon_wait += float(beacon.get("wait", 0.0))
        self.beacon_fetches += int(beacon.get("fetches", 0))
        self.beacon_check_cpu += float(beacon.get("check_cpu", 0.0))
        self.sqs_requests += int(report.get("sqs", 0))
        self.resolves += int("match_id" in report)  # a resolver's report (cluster.drain)
        self.sleep_avoided += float(report.get("sleep_avoided", 0.0))

    def billed_seconds(self) -> float:
        return (
            self.cpu / SHARE
            + self.dynamo_requests * DYNAMODB_LATENCY
            + self.bot_waits * BOT_API_LATENCY
            + self.beacon_wait
            + self.beacon_fetches * DRAND_LATENCY
        )

    def beacon_seconds(self) -> float:
        """The part of :meth:`billed_seconds` that is the beacon's: the wait for the round,
        the relay fetches, the signature checks."""
        fetches = self.beacon_fetches * DRAND_LATENCY
        return self.beacon_wait + fetches + self.beacon_check_cpu / SHARE


def lambda_seconds_dollars(seconds: float) -> float:
    """What ``seconds`` of billed duration cost at :data:`MEMORY_MB` on arm64."""
    return seconds * MEMORY_MB / 1024 * PRICES["lambda_gb_second_arm64"]


def dollars(u: Usage) -> dict[str, float]:
    """The bill of ``u`` by line."""
    p = PRICES
    return {
        "lambda": u.invocations * p["lambda_request"] + lambda_seconds_dollars(u.billed_seconds()),
        "api": u.http_requests * p["http_api_request"],
        "dynamodb": u.wru * p["dynamodb_write_unit"] + u.rru * p["dynamodb_read_unit"],
        "logs": u.log_bytes / 1024**3 * p["log_gb"],
        "sqs": u.sqs_requests * p["sqs_request"],
    }


def provisioned_dynamodb(u: Usage) -> float:
    """What the DynamoDB line of :func:`dollars` would be with provisioned capacity under
    auto scaling at :data:`TARGET_UTILIZATION` (same counted units, the other price list)."""
    served = 3600 * TARGET_UTILIZATION  # units one unit of capacity serves in an hour
    p = PRICES
    return (u.wru * p["dynamodb_wcu_hour"] + u.rru * p["dynamodb_rcu_hour"]) / served


def per_thousand(u: Usage, turns: int) -> dict[str, float]:
    """The bill of ``u`` scaled to 1,000 turns (``u`` covered ``turns``)."""
    return {k: v * 1000 / turns for k, v in dollars(u).items()} if turns else {}


def total(lines: Iterable[float]) -> float:
    return sum(lines)
