"""Production's drand adapter (:class:`infra.beacon.DrandBeacon`) over fake relays, on a
test's fake clock, for tests about *when* rounds are waited for and asked for
(``tests/test_beacon_wait.py``, ``tests/serverless/test_beacon_queue.py``)."""

from __future__ import annotations

from collections.abc import Callable

import httpx

from infra.beacon import DrandBeacon
from tests.support.clock import FakeClock

# A real quicknet signature (of another round): the relays answer every round with it, and the
# adapter's signature check is bypassed here only (tests/fairness/test_subgroup.py covers it).
SIGNATURE = (
    "a5d07c0071b4e386b3ae09206522253c68fefe8490ad59ecc44a7dd0d0745be9"
    "1da5779e2247a82403fbc0cb9a34cb61"
)


def relayed(
    clock: FakeClock, get: Callable[[str, float], httpx.Response]
) -> tuple[DrandBeacon, list[float]]:
    """The adapter asking ``get`` (the relays) on ``clock``, and the list of its sleeps:
    each is recorded and passes on the clock at once."""
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        clock.advance(seconds)

    beacon = DrandBeacon(
        urls=("https://relay.example",),
        clock=clock,
        sleep=sleep,
        get=get,
        check=lambda network, number, signature: True,
    )
    return beacon, slept
