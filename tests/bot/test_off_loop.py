"""Nothing blocks the long-polling loop (issue 28 point 4): while one chat's last seal waits
for its beacon round, another chat's update is answered. The polling application processes
updates through :class:`~handlers.telegram.shared.offloop.PerChatProcessor`; the beacon
fetch runs in a worker thread (``off_loop``). No timing is asserted: the order of events is."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from telegram import Update

from engine.beacon import BeaconRound, Network
from handlers.telegram.harness import Harness
from handlers.telegram.shared.offloop import PerChatProcessor, chat_key
from infra.beacon import LocalBeacon
from tests.bot.conftest import Duel

HELD_AT_MOST = 20.0  # seconds the gated fetch waits before giving up (only if the test fails)


class GatedBeacon:
    """A local beacon whose fetches wait for ``gate`` once ``armed`` (a slow relay)."""

    def __init__(self) -> None:
        self.inner = LocalBeacon()
        self.gate = threading.Event()
        self.armed = False
        self.events: list[str] = []

    @property
    def network(self) -> Network:
        return self.inner.network

    def fetch(self, round_number: int) -> BeaconRound | None:
        if self.armed:
            self.gate.wait(HELD_AT_MOST)
            self.events.append("beacon answered")
        return self.inner.fetch(round_number)


@pytest.fixture
def gated() -> Iterator[tuple[Duel, GatedBeacon]]:
    beacon = GatedBeacon()
    h = Harness(beacon=beacon)
    yield Duel(h), beacon
    h.close()


def test_a_slow_beacon_does_not_delay_another_chats_update(
    gated: tuple[Duel, GatedBeacon],
) -> None:
    duel, beacon = gated
    h = duel.h
    duel.start()
    duel.h.say(duel.alice, duel.a, "/order move 0 aim 5:5")
    held: list[dict[str, Any]] = []
    h.feed = held.append  # type: ignore[method-assign,assignment]
    h.say(duel.bob, duel.b, "/order move 0 aim 5:5")  # the last order: waits for its round
    h.say(duel.gm, int(duel.gm["id"]), "/help")  # another chat, meanwhile
    last, other = (Update.de_json(u, h.app.bot) for u in held)
    assert chat_key(last) != chat_key(other)
    beacon.armed = True

    async def both() -> None:
        processor = PerChatProcessor()
        sealing = asyncio.create_task(processor.process_update(last, h.app.process_update(last)))
        await asyncio.sleep(0.05)  # the seal is under way, waiting for the beacon
        await processor.process_update(other, h.app.process_update(other))
        beacon.events.append("other chat answered")
        beacon.gate.set()
        await sealing

    h.runner.run(both())
    assert beacon.events == ["other chat answered", "beacon answered"]
    assert h.texts(int(duel.gm["id"]))  # /help was answered
    assert duel.match().turn == 2  # and the seal resolved the turn once its round came


def test_one_chats_updates_stay_in_order() -> None:
    """Two updates of one chat: the second starts only when the first is done."""
    processor = PerChatProcessor()
    seen: list[str] = []
    update = Update.de_json(
        {
            "update_id": 1,
            "message": {
                "message_id": 1,
                "date": 0,
                "chat": {"id": 5, "type": "private"},
                "text": "x",
            },
        },
        None,
    )

    async def step(name: str, pause: float) -> None:
        seen.append(f"{name} start")
        await asyncio.sleep(pause)
        seen.append(f"{name} end")

    async def both() -> None:
        await asyncio.gather(
            processor.process_update(update, step("first", 0.02)),
            processor.process_update(update, step("second", 0)),
        )

    asyncio.run(both())
    assert seen == ["first start", "first end", "second start", "second end"]
