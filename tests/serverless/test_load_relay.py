"""The load run's fake drand relay (tests/bench/load/drand_http.py) as production's drand
adapter sees it: a published round of the local test network comes back verified, a future
one is refused (425), and the adapter with its pinned quicknet key refuses the relay's rounds,
so only code that names the local network (the load run's worker) can take them."""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import pytest

from engine.beacon import randomness_of, round_after, verify_signature
from infra.beacon import DrandBeacon
from tests.bench.load.drand_http import CHAIN_HASH, DrandRelay


@pytest.fixture(scope="module")
def relay() -> Iterator[DrandRelay]:
    r = DrandRelay()
    yield r
    r.close()


def test_a_published_round_is_served_in_drands_shape_and_verifies(relay: DrandRelay) -> None:
    number = round_after(relay.network, time.time()) - 2
    reply = httpx.get(f"{relay.url}/{CHAIN_HASH}/public/{number}", timeout=5)
    assert reply.status_code == 200
    doc = reply.json()
    assert doc["round"] == number
    assert doc["randomness"] == randomness_of(doc["signature"])
    assert verify_signature(relay.network, number, doc["signature"])
    beacon = DrandBeacon(network=relay.network, chain_hash=CHAIN_HASH, urls=(relay.url,))
    got = beacon.fetch(number)
    assert got is not None and got.network == "local-test"
    assert got.signature == doc["signature"]


def test_a_future_round_is_too_early(relay: DrandRelay) -> None:
    future = round_after(relay.network, time.time()) + 5
    reply = httpx.get(f"{relay.url}/{CHAIN_HASH}/public/{future}", timeout=5)
    assert reply.status_code == 425
    assert httpx.get(f"{relay.url}/{'0' * 64}/public/{future}", timeout=5).status_code == 404


def test_the_pinned_quicknet_adapter_takes_no_round_of_the_local_network(
    relay: DrandRelay,
) -> None:
    number = 1000  # long published on both networks: the adapter asks at once
    pinned = DrandBeacon(chain_hash=CHAIN_HASH, urls=(relay.url,))  # quicknet's key
    assert pinned.network.name == "quicknet"
    asked = relay.requests
    # The relay answers 200 with the local network's signature; quicknet's key refuses it.
    assert pinned.fetch(number) is None
    assert relay.requests == asked + 1
