"""A fake drand relay on the loopback: the rounds of the local test network
(:class:`infra.beacon.LocalBeacon`, same scheme as quicknet) served over HTTP in drand's JSON
shape, so the load run's workers fetch and verify them with production's
:class:`infra.beacon.DrandBeacon` as Lambda containers fetch quicknet's from drand's relays.

``GET /<chain hash>/public/<round>`` answers ``{"round", "randomness", "signature"}`` (an
unchained scheme has no ``previous_signature``) once the round's time has come by the real
clock, ``425 Too Early`` before (the beacon then gives up, and the sweeper resolves the turn),
``404`` for another chain. Signatures are made ahead by a thread (the rounds of the next few
periods) and kept, so an answer never waits for the signing.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from engine.beacon import Network, randomness_of, round_after, round_time
from infra.beacon import LocalBeacon
from tests.bench.load.loopback import json_server

CHAIN_HASH = "10ca1" * 12 + "7e57"  # the local network's made-up chain hash (64 hex digits)
AHEAD = 4  # periods signed ahead


class DrandRelay:
    """The relay at ``url`` (``http://127.0.0.1:<port>``) until :meth:`close`; ``requests``
    counts the rounds asked for."""

    def __init__(self) -> None:
        self.beacon = LocalBeacon()
        self.requests = 0
        self._signed: dict[int, str] = {}
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self._httpd, self.url = json_server(lambda request: self.answer(request.path))
        self._sign_ahead()  # the current rounds before the first request
        self._threads = [
            threading.Thread(target=self._httpd.serve_forever, daemon=True),
            threading.Thread(target=self._signer, daemon=True),
        ]
        for t in self._threads:
            t.start()

    @property
    def network(self) -> Network:
        return self.beacon.network

    def signature(self, round_number: int) -> str:
        with self._lock:
            known = self._signed.get(round_number)
        if known is None:  # an old round (not signed ahead): sign it now
            known = self.beacon.sign(round_number)
            with self._lock:
                self._signed[round_number] = known
        return known

    def answer(self, path: str) -> tuple[int, dict[str, Any]]:
        """What a relay answers to ``GET path``."""
        parts = path.strip("/").split("/")
        if len(parts) != 3 or parts[0] != CHAIN_HASH or parts[1] != "public":
            return 404, {"error": "unknown chain or path"}
        try:
            number = int(parts[2])
        except ValueError:
            return 400, {"error": "bad round"}
        with self._lock:
            self.requests += 1
        if number < 1 or round_time(self.network, number) > time.time():
            return 425, {"error": "requested future beacon"}
        signature = self.signature(number)
        return 200, {
            "round": number,
            "randomness": randomness_of(signature),
            "signature": signature,
        }

    def _sign_ahead(self) -> None:
        first = round_after(self.network, time.time()) - 1
        for number in range(first, first + AHEAD + 1):
            self.signature(number)

    def _signer(self) -> None:
        while not self._closed.wait(self.network.period):
            self._sign_ahead()

    def close(self) -> None:
        self._closed.set()
        self._httpd.shutdown()
        self._httpd.server_close()
