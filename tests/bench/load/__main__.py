"""The load run: ``python -m tests.bench.load [--matches 200] [--workers 8] [--turns 3]``
(``make bench`` runs it with the defaults as ``bench_load``).

Matches are set up through the bot (their cost is printed apart), then every turn every player
of every running match seals at once (:mod:`tests.bench.load.scenario`). Printed: lost,
doubled and stale (targets 0), updates per second, time per update (p50/p95/p99), conditional
write conflicts and Telegram retries per turn, DynamoDB requests and Bot API calls per turn,
and the cost of 1,000 turns by ruleset and number of players (:mod:`tests.bench.load.cost`),
with the beacon's share of it apart (the wait for the round, the relay fetch, the signature
check). The bot runs production's beacon path against a fake drand relay (``--beacon none``:
without a beacon, for comparison): a locked turn goes to the resolve queue and the resolver
takes it when its round is due, as in production (docs/deploy.md, "The beacon wait"; the
queue's requests and the resolver's invocations are billed); ``--beacon-wait sleep`` instead
has the invocation sleep for the round, as before the queue, for comparison.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from tests.bench.load.cluster import Cluster, Delivery, moto_server
from tests.bench.load.cost import (
    PRICES_DATE,
    TARGET_UTILIZATION,
    Usage,
    lambda_seconds_dollars,
    per_thousand,
    provisioned_dynamodb,
)
from tests.bench.load.scenario import (
    LoadHarness,
    Plan,
    TurnOutcome,
    make_tables,
    plans,
    play_turn,
    set_up,
)

TARGET_PER_1000 = 0.02  # USD per 1,000 two-player turns (issue: production under load)


def _repo(moto_url: str) -> Any:
    from infra import aws
    from infra.dynamodb import DynamoRepository
    from tests.bench.load.worker import TABLE

    return DynamoRepository(aws.client("dynamodb", endpoint_url=moto_url), TABLE)


def run(
    matches: int,
    workers: int,
    turns: int,
    budget: float = 0.0,
    *,
    beacon: bool = True,
    queue: bool = True,
) -> dict[str, Any]:
    """Play the run; the figures as a dict (also what the smoke test reads). ``budget``
    (seconds, 0: none): no turn is started once the run has taken that long (the turns
    played are reported; at least one is). ``beacon``: production's drand path (a fake
    relay), else none (``SEKUNDANT_BEACON=none``); ``queue``: the resolve queue, else the
    invocation sleeps for the round."""
    import os

    from tests.bench.load.worker import REGION

    os.environ.update(AWS_DEFAULT_REGION=REGION, AWS_ACCESS_KEY_ID="load",
                      AWS_SECRET_ACCESS_KEY="load")  # fmt: skip
    with moto_server() as url, Cluster(url, workers, beacon=beacon, queue=queue) as cluster:
        h = LoadHarness(cluster, _repo(url))
        tables = make_tables(h, plans(matches))
        begun = started = time.perf_counter()
        with ThreadPoolExecutor(max(4 * workers, 8)) as pool:
            ready = list(pool.map(lambda t: _set_up(h, t), tables))
            failed = ready.count(False)
            tables = [t for t, ok in zip(tables, ready, strict=True) if ok]
            setup_seconds = time.perf_counter() - started
            outcomes: list[TurnOutcome] = []
            started = time.perf_counter()
            for _ in range(turns):
                if outcomes and budget and time.perf_counter() - begun > budget:
                    break
                outcomes.append(play_turn(h, tables, pool))
            turn_seconds = time.perf_counter() - started
    figures = summarize(h.deliveries, outcomes, setup_seconds, turn_seconds, matches, workers)
    figures["beacon"] = beacon
    figures["queue"] = beacon and queue
    figures["setup_failed"] = failed
    figures["turns_played"] = len(outcomes)
    figures["lost_details"] = [x for o in outcomes for x in o.lost_details]
    return figures


def _set_up(h: LoadHarness, t: Any) -> bool:
    """Set a match up; False (counted, and the match left out) when the bot's chats never
    showed the next step (e.g. the lobby's join link)."""
    try:
        set_up(h, t)
    except LookupError:
        return False
    return True


def _pct(values: list[float], q: float) -> float:
    return sorted(values)[min(len(values) - 1, int(len(values) * q))] if values else 0.0


def summarize(
    setup: list[Delivery],
    outcomes: list[TurnOutcome],
    setup_seconds: float,
    turn_seconds: float,
    matches: int,
    workers: int,
) -> dict[str, Any]:
    reports = [r for _p, d in (s for o in outcomes for s in o.seals) for r in d.reports]
    # the resolver's invocations (the resolve queue): not updates, but a turn's requests
    invoked = reports + [r for o in outcomes for _p, r in o.resolves]
    walls = [r["wall"] for r in reports]
    resolved = sum(o.resolved for o in outcomes)
    usage: dict[Plan, Usage] = defaultdict(Usage)
    turns_of: dict[Plan, int] = defaultdict(int)
    sweep = Usage()
    for o in outcomes:
        sweep.add(o.sweep, http=False)
        for plan, d in o.seals:
            for r in d.reports:
                usage[plan].add(r)
        for plan, r in o.resolves:  # the resolver's invocations (no API Gateway request)
            usage[plan].add(r, http=False)
        for plan, n in o.by_plan.items():
            turns_of[plan] += n
    setup_usage = Usage()
    for d in setup:
        for r in d.reports:
            setup_usage.add(r)
    return {
        "matches": matches,
        "workers": workers,
        "turns_resolved": resolved,
        "lost": sum(o.lost for o in outcomes),
        "doubled": sum(o.doubled for o in outcomes),
        "stale": sum(o.stale for o in outcomes),
        "updates": len(reports),
        "updates_per_second": len(reports) / turn_seconds if turn_seconds else 0.0,
        "p50": _pct(walls, 0.50),
        "p95": _pct(walls, 0.95),
        "p99": _pct(walls, 0.99),
        "retries": sum(len(d.reports) - 1 for o in outcomes for _p, d in o.seals),
        "conflicts": sum(r["dynamo"]["conflicts"] for r in invoked),
        "dynamo_requests": sum(sum(r["dynamo"]["requests"].values()) for r in invoked),
        "bot_calls": sum(sum(r["bot"].values()) for r in invoked),
        "bot_waits": sum(int(r.get("bot_waits", 0)) for r in invoked),
        "group_messages": sum(o.group_messages for o in outcomes),
        "cpu_p50": statistics.median(r["cpu"] for r in reports) if reports else 0.0,
        "wru_by_kind": _by_kind(invoked),
        "usage": dict(usage),
        "turns_of": dict(turns_of),
        "sweep": sweep,
        "setup": setup_usage,
        "setup_seconds": setup_seconds,
        "turn_seconds": turn_seconds,
    }


def _by_kind(reports: list[dict[str, Any]]) -> dict[str, float]:
    out: dict[str, float] = defaultdict(float)
    for r in reports:
        for kind, units in r["dynamo"]["wru_by_kind"].items():
            out[kind] += units
    return dict(out)


def report(f: dict[str, Any]) -> None:
    """Print the figures with their targets."""
    t = max(f["turns_resolved"], 1)
    rounds, took = f.get("turns_played", "?"), f.get("turn_seconds", 0.0)
    print(f"   {f['matches']} matches, {f['workers']} workers, {rounds} rounds of seals,"
          f" {f['turns_resolved']} turns resolved"
          f" (setup {f['setup_seconds']:.0f} s, turns {took:.0f} s)")  # fmt: skip
    print(f"   lost {f['lost']}, doubled {f['doubled']}, stale {f['stale']},"
          f" matches whose setup failed {f.get('setup_failed', 0)}   target 0 each")  # fmt: skip
    print(f"   updates/s {f['updates_per_second']:.1f}; per update p50 {f['p50'] * 1000:.0f} ms,"
          f" p95 {f['p95'] * 1000:.0f} ms, p99 {f['p99'] * 1000:.0f} ms"
          f" (CPU p50 {f['cpu_p50'] * 1000:.0f} ms)")  # fmt: skip
    for detail in f.get("lost_details", []):
        print("   LOST " + detail)
    per_turn = [
        f"conflicts {f['conflicts'] / t:.2f}",
        f"Telegram retries {f['retries'] / t:.2f}",
        f"DynamoDB requests {f['dynamo_requests'] / t:.1f}",
        f"Bot API calls {f['bot_calls'] / t:.1f} (waits {f.get('bot_waits', 0) / t:.1f})",
        f"new group messages {f['group_messages'] / t:.2f}",
    ]
    print("   per turn: " + ", ".join(per_turn))
    kinds = ", ".join(f"{k} {v / t:.1f}" for k, v in sorted(f["wru_by_kind"].items()))
    print(f"   write units per turn by item: {kinds}")
    resolved_all = sum(f["turns_of"].values()) or 1
    print(f"   cost of 1,000 turns (USD, prices of {PRICES_DATE}; sweeper shared by turns):")
    for plan in sorted(f["usage"], key=lambda p: (p.ruleset, p.players)):
        turns = f["turns_of"].get(plan, 0)
        if not turns:
            continue
        bill = per_thousand(f["usage"][plan], turns)
        sweep = per_thousand(f["sweep"], resolved_all)
        lines = {k: bill[k] + sweep.get(k, 0.0) for k in bill}
        whole = sum(lines.values())
        target = f"   target < {TARGET_PER_1000}" if plan.players == 2 else ""
        u = f["usage"][plan]
        print(f"     {plan.ruleset:8} {plan.players}p: {whole:.4f} (Lambda {lines['lambda']:.4f},"
              f" API {lines['api']:.4f}, DynamoDB {lines['dynamodb']:.4f},"
              f" logs {lines['logs']:.4f}, SQS {lines['sqs']:.4f}){target}")  # fmt: skip
        updates = u.invocations - u.resolves  # the resolver's invocations are on their line
        print(f"       per turn: {updates / turns:.1f} updates, {u.wru / turns:.1f} write"
              f" and {u.rru / turns:.1f} read units, {u.bot_calls / turns:.1f} Bot API calls"
              f" ({u.bot_waits / turns:.1f} waits),"
              f" CPU {u.cpu / turns * 1000:.0f} ms")  # fmt: skip
        provisioned = (
            provisioned_dynamodb(u) * 1000 / turns
            + provisioned_dynamodb(f["sweep"]) * 1000 / resolved_all
        )
        print(f"       with provisioned capacity at {TARGET_UTILIZATION:.0%} utilization:"
              f" DynamoDB {provisioned:.4f}, in all"
              f" {whole - lines['dynamodb'] + provisioned:.4f}")  # fmt: skip
        if f.get("beacon", True):
            print("       " + beacon_line(u, turns, f["sweep"], resolved_all))
        if f.get("queue"):
            print("       " + queue_line(u, turns))
    s, n = f["setup"], f["matches"]
    print(
        "   a match's setup (lobby, joins, characters, start): "
        f"{s.invocations / n:.1f} updates, {s.dynamo_requests / n:.1f} DynamoDB requests"
    )


def beacon_line(u: Usage, turns: int, sweep: Usage, resolved_all: int) -> str:
    """The beacon's part of a turn (the sweeper's share included): the wall time slept for
    the round, the relay fetches, the signature checks' CPU, and what they bill as Lambda
    duration per 1,000 turns."""
    wait = u.beacon_wait / turns + sweep.beacon_wait / resolved_all
    fetches = u.beacon_fetches / turns + sweep.beacon_fetches / resolved_all
    check = u.beacon_check_cpu / turns + sweep.beacon_check_cpu / resolved_all
    seconds = u.beacon_seconds() / turns + sweep.beacon_seconds() / resolved_all
    return (
        f"beacon per turn: wait {wait * 1000:.0f} ms, {fetches:.2f} relay fetches,"
        f" check CPU {check * 1000:.0f} ms: {seconds * 1000:.0f} ms billed,"
        f" {lambda_seconds_dollars(seconds) * 1000:.4f} USD per 1,000 turns (in Lambda)"
    )


def queue_line(u: Usage, turns: int) -> str:
    """The resolve queue's part of a turn: the resolver's invocations and the SQS requests,
    what they cost per 1,000 turns, and the sleep for the round they replace (what it would
    have billed as Lambda duration)."""
    from tests.bench.load.cost import PRICES

    sqs = u.sqs_requests * PRICES["sqs_request"] * 1000 / turns
    fee = u.resolves * PRICES["lambda_request"] * 1000 / turns
    slept = u.sleep_avoided / turns
    return (
        f"resolve queue per turn: {u.resolves / turns:.2f} resolver invocations,"
        f" {u.sqs_requests / turns:.1f} SQS requests: {sqs:.4f} USD (SQS) + {fee:.4f} USD"
        f" (invocations) per 1,000 turns, instead of a sleep of {slept * 1000:.0f} ms a turn:"
        f" {lambda_seconds_dollars(slept) * 1000:.4f} USD per 1,000 turns"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.bench.load")
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--turns", type=int, default=3)
    parser.add_argument(
        "--budget", type=float, default=0.0, help="seconds after which no turn is started"
    )
    parser.add_argument(
        "--beacon",
        choices=("drand", "none"),
        default="drand",
        help="drand: production's path against a fake relay (default); none: no beacon",
    )
    parser.add_argument(
        "--beacon-wait",
        choices=("queue", "sleep"),
        default="queue",
        help="queue: the resolve queue, as in production (default); sleep: the invocation"
        " sleeps for the round, as before it (for comparison)",
    )
    args = parser.parse_args(argv)
    figures = run(
        args.matches,
        args.workers,
        args.turns,
        args.budget,
        beacon=args.beacon == "drand",
        queue=args.beacon_wait == "queue",
    )
    report(figures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
