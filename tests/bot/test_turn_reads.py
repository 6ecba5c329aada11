"""What a turn reads from the store and how it waits for Telegram (docs/deploy.md, "Fewer
reads and waits"): a load whose result cannot have changed is not made again - the match as
the caller's own save returned it, or as it just read it, is passed down - while what must
show the latest state still reads it (the status after its edit: issue 28's late edit); and
calls whose order no chat sees go out at once. Counted with an in-memory fake of our port
that notes each read with the function that made it, and a fake Bot API that answers each
call only after the event loop has run everything else ready (as a network does), noting
the calls in flight together."""

from __future__ import annotations

import asyncio
import json
import traceback
from collections.abc import Iterator
from typing import Any

import pytest

from engine.match import TurnRecord
from engine.ports import Loaded, Owed
from handlers.telegram.fake_api import FakeBotAPI
from handlers.telegram.harness import Harness
from infra.beacon import LocalBeacon
from infra.memory import MemoryRepository
from tests.bot.conftest import Duel

MID = "m00001"
MISS = "/order move 0 aim 5:5"  # wide of the mark: the duel goes on


class Reading(MemoryRepository):
    """The in-memory store, noting each read of a match (``load``) and of its turn records
    (``history``) with the name of the bot's function that asked."""

    def __init__(self) -> None:
        super().__init__()
        self.reads: list[tuple[str, str]] = []

    def _note(self, what: str) -> None:
        ours = [f.name for f in traceback.extract_stack()[:-2] if "/infra/" not in f.filename]
        self.reads.append((what, ours[-1]))

    def load(self, match_id: str) -> Loaded:
        self._note("load")
        return super().load(match_id)

    def history(self, match_id: str, *, since: int = 0) -> list[TurnRecord]:
        self._note("history")
        return super().history(match_id, since=since)

    def take(self) -> list[tuple[str, str]]:
        reads, self.reads = self.reads, []
        return reads


class Network:
    """The fake Bot API answering each call after the event loop ran everything else ready
    (a call made at once with others is in flight with them); ``together``: each call, as
    (method, chat), with the calls in flight when it started. ``fail = ((method, chat), n)``:
    the n-th such call from now is answered 429 (``retry_after`` 30)."""

    def __init__(self, api: FakeBotAPI) -> None:
        self.flying: list[tuple[str, Any]] = []
        self.together: list[tuple[tuple[str, Any], list[tuple[str, Any]]]] = []
        self.fail: tuple[tuple[str, Any], int] | None = None
        real = api.do_request

        async def do_request(url: str, *a: Any, **k: Any) -> tuple[int, bytes]:
            data = k.get("request_data") or (a[1] if len(a) > 1 else None)
            params = dict(data.parameters) if data is not None else {}
            call = (url.rsplit("/", 1)[-1], params.get("chat_id"))
            self.together.append((call, list(self.flying)))
            self.flying.append(call)
            try:
                for _ in range(3):
                    await asyncio.sleep(0)
                if self._refused(call):
                    return 429, json.dumps({**REFUSED, "error_code": 429}).encode()
                return await real(url, *a, **k)
            finally:
                self.flying.remove(call)

        api.do_request = do_request  # type: ignore[method-assign]

    def _refused(self, call: tuple[str, Any]) -> bool:
        if self.fail is None or self.fail[0] != call:
            return False
        left = self.fail[1] - 1
        self.fail = (call, left) if left else None
        return not left

    def at_once(self, method: str) -> list[tuple[tuple[str, Any], list[tuple[str, Any]]]]:
        """The ``method`` calls made while another call was in flight."""
        return [(c, others) for c, others in self.together if c[0] == method and others]

    def sent_to(self, chat: int) -> int:
        """How many messages were sent to ``chat`` (refused ones included)."""
        return sum(1 for c, _ in self.together if c == ("sendMessage", chat))


REFUSED = {"ok": False, "description": "Too Many Requests", "parameters": {"retry_after": 30}}


@pytest.fixture
def beacon_duel() -> Iterator[tuple[Duel, Reading, Network]]:
    repo = Reading()
    h = Harness(repo, beacon=LocalBeacon(), default_lang="en")
    net = Network(h.api)
    yield Duel(h), repo, net
    h.close()


@pytest.fixture
def plain_duel() -> Iterator[tuple[Duel, Reading, Network]]:
    repo = Reading()
    h = Harness(repo, default_lang="en")
    net = Network(h.api)
    yield Duel(h), repo, net
    h.close()


def _loads(reads: list[tuple[str, str]]) -> list[str]:
    return [who for what, who in reads if what == "load"]


def test_a_button_seal_reads_the_match_once_and_the_status_once_after_its_edit(
    beacon_duel: tuple[Duel, Reading, Network],
) -> None:
    duel, repo, _net = beacon_duel
    h = duel.h
    duel.start()
    h.press(duel.alice, h.last(duel.a, with_buttons=True), 2)  # move 0
    h.press(duel.alice, h.last(duel.a, with_buttons=True), 6)  # aim -3:3
    repo.take()
    h.press_text(duel.alice, h.last(duel.a, with_buttons=True), "🔒")
    # The press's read (the seal starts from it), then the status read after its edit, so a
    # status edit never goes back in time. Before: the seal read again, and the receipt's
    # record read once more.
    assert _loads(repo.take()) == ["_load_with_orders", "_show_latest"]
    assert duel.match().sealed == ("p1",)


def test_the_last_seal_locks_and_posts_the_lock_message_from_what_it_saved(
    beacon_duel: tuple[Duel, Reading, Network],
) -> None:
    duel, repo, _net = beacon_duel
    h = duel.h
    duel.start()
    duel.alice_seals(0, -3, 3)
    h.now += 1.25
    repo.take()
    h.say(duel.bob, duel.b, MISS)  # the last seal: the lock message, then (locally) the reveal
    assert duel.match().turn == 2
    loads = _loads(repo.take())
    # The seal's own read; the status after its edit; the lock message's date recorded from
    # that read (remembered ids no longer move the version: the other player's receipt
    # remembered while the message travels does not make it conflict); the status after its
    # edit; the resolution's. Then the reveal's delivery (the outbox's next pass). Before,
    # thirteen: the sealed fingerprints read twice, the lock delivery and the resolve read
    # what the seal had just saved, the remembered receipt read once more; then seven, the
    # lock message's date recorded from a read of its own.
    assert loads == [
        "step",  # seal_order
        "_show_latest",
        "_show_latest",
        "step",  # the resolution (usecases._finish)
        "send_resolved",
    ]


def test_a_resolving_seal_announces_from_its_own_save(
    plain_duel: tuple[Duel, Reading, Network],
) -> None:
    duel, repo, _net = plain_duel
    h = duel.h
    duel.start()
    duel.alice_seals(0, -3, 3)
    repo.take()
    h.say(duel.bob, duel.b, MISS)  # resolves the turn (no public beacon): receipt, reveal
    assert duel.match().turn == 2
    # The seal's read only: its receipt, the reveal, the next turn's commitment record and
    # its builders' record start from the resolution it saved (before: five reads of the
    # match and two of the history).
    assert repo.take() == [("load", "step")]


def test_the_receipt_and_the_status_go_at_once(
    beacon_duel: tuple[Duel, Reading, Network],
) -> None:
    duel, _repo, net = beacon_duel
    h = duel.h
    duel.start()
    h.say(duel.alice, duel.a, MISS)  # a typed order: a new receipt message
    # Her receipt (private) and the group's status edit were in flight together.
    pair = {("sendMessage", duel.a), ("editMessageText", duel.g)}
    assert any(call in pair and pair - {call} <= set(others) for call, others in net.together)


def test_a_turns_builders_go_to_the_players_at_once_and_each_is_recorded(
    plain_duel: tuple[Duel, Reading, Network],
) -> None:
    duel, repo, net = plain_duel
    h = duel.h
    duel.start()
    duel.alice_seals(0, -3, 3)
    net.together.clear()
    h.say(duel.bob, duel.b, MISS)  # resolves turn 1: the reveal, then turn 2's builders
    players = (duel.a, duel.b)
    at_once = [
        call
        for call, others in net.at_once("sendMessage")
        if call[1] in players and any(o == ("sendMessage", p) for o in others for p in players)
    ]
    assert at_once  # one player's builder went while the other's was in flight
    # Each recorded under its own identity (its chat), as when they went one by one.
    sent = Owed.from_doc(repo.outbox[MID]["resolved:1"]).sent
    assert {k for k in sent if k.startswith("builder:2@")} == {
        f"builder:2@{duel.a}#0",
        f"builder:2@{duel.b}#0",
    }


def test_a_builder_refused_while_the_other_goes_is_sent_again_alone(
    plain_duel: tuple[Duel, Reading, Network],
) -> None:
    """Issue 28's resumed delivery, with the builders at once: Bob's, refused (429), is sent
    by the sweeper once Telegram's ``retry_after`` has passed; Alice's is not sent again."""
    duel, repo, net = plain_duel
    h = duel.h
    duel.start()
    duel.alice_seals(0, -3, 3)
    net.fail = (("sendMessage", duel.b), 2)  # his receipt goes; his builder is refused
    to_bob = net.sent_to(duel.b)
    h.say(duel.bob, duel.b, MISS)
    failed = Owed.from_doc(repo.outbox[MID]["resolved:1"])
    assert not failed.done and failed.attempts == 1
    assert f"builder:2@{duel.a}#0" in failed.sent  # recorded by the failure's own write
    to_alice = net.sent_to(duel.a)
    h.now += 31
    h.sweep()
    assert Owed.from_doc(repo.outbox[MID]["resolved:1"]).done
    assert net.sent_to(duel.a) == to_alice  # Alice's builder: once
    assert net.sent_to(duel.b) - to_bob == 3  # the receipt, the refused builder, the builder
    assert duel.match().turn == 2


def test_the_seal_that_locks_the_turn_gets_a_receipt_with_nothing_left_to_change(
    beacon_duel: tuple[Duel, Reading, Network],
) -> None:
    """A locked turn takes no seal, change or withdrawal: the receipt of the order that locked
    it offers no Change or Withdraw (they would be refused), so nothing is remembered for it
    (one write fewer) and its keyboard needs no clearing when the turn resolves."""
    duel, _repo, _net = beacon_duel
    h = duel.h
    duel.start()
    duel.alice_seals(0, -3, 3)
    h.now += 1.25
    h.say(duel.bob, duel.b, MISS)
    (receipt,) = [m for m in h.api.chat(duel.b).messages if "the public dice are rolling" in m.text]
    assert duel.match().turn == 2  # resolved: the receipt was not given a keyboard then either
    assert "Your order completed turn 1" in receipt.text and not receipt.reply_markup
