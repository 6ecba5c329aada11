"""The load run (tests/bench/load, ``make bench``) at its smallest: one match of each ruleset,
two worker processes running the real webhook handler on moto's DynamoDB server, one turn
sealed by everyone at once, production's beacon path (lock message, a round from the fake
drand relay, its signature checked), each locked turn resolved from the resolve queue by the
resolver (docs/deploy.md, "The beacon wait"). Nothing is lost, doubled or left stale, and the
meter saw the requests, the queue's and the beacon's fetches it prices."""

from __future__ import annotations

import pytest

from tests.bench.load.__main__ import run


@pytest.mark.slow
def test_a_small_load_run_loses_doubles_and_leaves_stale_nothing() -> None:
    figures = run(matches=3, workers=2, turns=1)
    assert figures["turns_resolved"] == 3
    assert (figures["lost"], figures["doubled"], figures["stale"]) == (0, 0, 0)
    assert figures["setup_failed"] == 0
    assert figures["updates"] >= 6  # two seals a match at least
    assert figures["dynamo_requests"] > 0 and figures["bot_calls"] > 0
    assert sum(u.wru for u in figures["usage"].values()) > 0
    # every resolved turn fetched its round from the relay and checked it (wherever it ran)
    usages = [*figures["usage"].values(), figures["sweep"]]
    assert sum(u.beacon_fetches for u in usages) >= 3
    assert sum(u.beacon_check_cpu for u in usages) > 0
    # no function slept for a round: the resolver took each locked turn from the queue
    assert sum(u.beacon_wait for u in usages) == 0
    assert sum(u.resolves for u in usages) >= 3
    assert sum(u.sqs_requests for u in usages) >= 9  # a send, a receive, a delete each
    assert sum(u.sleep_avoided for u in usages) > 0
