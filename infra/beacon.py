"""Beacon adapters: drand quicknet over HTTPS (production) and a local network with its own
test key (tests and the sandbox), so one verification path checks both."""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from engine.beacon import (
    QUICKNET,
    SCHEME,
    BeaconRound,
    Network,
    message,
    register_network,
    round_time,
    verify_signature,
)

if TYPE_CHECKING:
    import httpx

log = logging.getLogger("sekundant.beacon")

DRAND_URLS = (
    "https://api.drand.sh",
    "https://api2.drand.sh",
    "https://drand.cloudflare.com",
)
CHAIN_HASH = "52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971"


class DrandBeacon:
    """quicknet over HTTPS. ``fetch`` waits for a round due within ``max_wait`` seconds (a
    locked turn's round is at most one period away, 3 s), then asks each relay in turn with a
    short timeout; an answer counts only when its signature verifies against the pinned key
    (:func:`engine.beacon.verify_signature`, subgroup checks included). None when the round is
    further away or no relay gives a valid one.

    ``network`` and ``chain_hash`` are quicknet's, pinned; only code can pass others (the load
    run's fake relay serves the local test network: ``tests/bench/load/drand_http.py``), never
    the environment (:func:`beacon_from_env` takes no key, chain or relay from it)."""

    def __init__(
        self,
        *,
        network: Network = QUICKNET,
        chain_hash: str = CHAIN_HASH,
        urls: tuple[str, ...] = DRAND_URLS,
        timeout: float = 2.0,
        max_wait: float = 4.0,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], None] = time.sleep,
        get: Callable[..., Any] | None = None,
        check: Callable[[Network, int, str], bool] = verify_signature,
    ) -> None:
        self._network = network
        self._chain_hash = chain_hash
        self._get = get  # tests: an httpx.Client(transport=MockTransport(...)).get
        self._check = check  # tests of timing with fake relays only; production verifies
        self._urls = urls
        self._timeout = timeout
        self._max_wait = max_wait
        self._clock = clock
        self._sleep = sleep
        self._http: httpx.Client | None = None

    @property
    def network(self) -> Network:
        return self._network

    @property
    def client(self) -> httpx.Client:
        """The relays' HTTPS client, made on the first fetch and kept for the container's
        life (httpx's ``Client`` can be shared between threads). ``httpx.get`` made a client
        per fetch: a new TLS context (~20 ms of CPU, ~70 ms billed at a 512 MB Lambda's
        share) and a new connection every time; a kept client pays the context once and
        reuses a connection within its keep-alive (5 s)."""
        if self._http is None:
            import httpx

            self._http = httpx.Client(timeout=self._timeout)
        return self._http

    def fetch(self, round_number: int) -> BeaconRound | None:
        import httpx

        wait = round_time(self._network, round_number) - self._clock()
        if wait > self._max_wait:
            return None
        if wait > 0:
            self._sleep(wait + 0.2)  # relays serve a round a moment after its time
        for url in self._urls:
            try:
                get = self._get or self.client.get
                path = f"{url}/{self._chain_hash}/public/{round_number}"
                reply = get(path, timeout=self._timeout)
                if reply.status_code != 200:
                    continue
                doc = reply.json()
                if int(doc["round"]) != round_number:
                    continue
                signature = str(doc["signature"])
                if not self._check(self._network, round_number, signature):
                    # A relay (or whoever sits between) cannot hand us dice: only a signature
                    # that passes every check of docs/fairness.md is a round.
                    log.warning("beacon relay %s: round %s does not verify", url, round_number)
                    continue
                return BeaconRound(
                    self._network.name,
                    round_number,
                    signature,
                    hashlib.sha256(bytes.fromhex(signature)).hexdigest(),
                )
            except (httpx.HTTPError, ValueError, KeyError, TypeError) as exc:
                log.warning("beacon relay %s failed: %s", url, exc)
        return None


TEST_SECRET = 0x5EC0DA47
"""The local network's secret key: public on purpose. A local beacon proves nothing to a
player; it exists so tests and the sandbox run the very verification quicknet turns get."""


class LocalBeacon:
    """A local beacon signing with :data:`TEST_SECRET` (same scheme as quicknet). With a
    ``clock``, a round exists only from its publication time on (so a test can show that a
    turn's dice cannot be computed before); without one, every round is out at once."""

    def __init__(
        self,
        clock: Callable[[], float] | None = None,
        *,
        genesis_time: int = 1_600_000_000,
        period: int = 3,
        secret: int = TEST_SECRET,
        up: bool = True,
    ) -> None:
        from py_arkworks_bls12381 import G2Point, Scalar

        self._clock = clock
        self._secret = secret
        self.up = up
        self.fetched: list[int] = []
        key = (G2Point() * Scalar(secret)).to_compressed_bytes()
        self._network = Network("local-test", key.hex(), genesis_time, period, SCHEME)
        register_network(self._network)

    @property
    def network(self) -> Network:
        return self._network

    def fetch(self, round_number: int) -> BeaconRound | None:
        if not self.up:
            return None
        if self._clock is not None and round_time(self._network, round_number) > self._clock():
            return None
        self.fetched.append(round_number)
        signature = self.sign(round_number)
        return BeaconRound(
            self._network.name,
            round_number,
            signature,
            hashlib.sha256(bytes.fromhex(signature)).hexdigest(),
        )

    def sign(self, round_number: int) -> str:
        from py_arkworks_bls12381 import G1Point, Scalar

        from engine.beacon import DST

        point = G1Point.hash_to_curve(message(round_number), DST) * Scalar(self._secret)
        return point.to_compressed_bytes().hex()


def beacon_from_env(env: Mapping[str, str]) -> DrandBeacon | None:
    """``SEKUNDANT_BEACON``: ``drand`` (the public beacon; the default wherever a real bot
    token runs) or ``none`` (server seed only, only when asked for, e.g. a bot without
    internet: every reveal, the status and the dossier then say the operator could choose the
    dice). The offline sandbox and the tests use their own local beacon, not this."""
    choice = env.get("SEKUNDANT_BEACON", "drand").strip().lower() or "drand"
    if choice == "drand":
        return DrandBeacon()
    if choice == "none":
        return None
    raise ValueError(f"SEKUNDANT_BEACON: expected drand or none, got {choice!r}")
