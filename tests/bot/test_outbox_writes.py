"""What the outbox writes for one owed item (``handlers.telegram.shared.outbox``; docs/deploy.md
"The outbox's writes"): only sends are recorded (an edit is made again by a resumed delivery),
and a send's entry is written before the delivery's next Bot API call or with the write that
ends it, so a delivery of N sends writes N times (the last with ``done``), not once per
message plus once more. Counted with an in-memory fake of our port that notes each write."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from engine.match import Match
from engine.ports import Loaded, Owed, Remember
from handlers.telegram import stale
from handlers.telegram.fake_api import FakeBotAPI
from handlers.telegram.harness import Harness
from handlers.telegram.shared import outbox
from infra.beacon import LocalBeacon
from infra.memory import MemoryRepository
from tests.bot.conftest import Duel

MID = "m00001"
SENDS = frozenset({"sendMessage", "sendPhoto", "sendDocument", "sendMediaGroup"})


class Counting(MemoryRepository):
    """The in-memory store, noting each write of an owed item: ``(key, what)`` with what one
    of ``save`` (with the change that owes it), ``claim``, ``journal``, ``done``, ``failed``
    (a journal or an end carried by a save of the match counts here too); and each write
    request to the store made during an item's delivery (``requests``: the key delivered,
    and ``save``, ``claim``, ``owed`` or ``remember``), whatever it carries."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[tuple[str, str]] = []
        self.requests: list[tuple[str, str]] = []
        self.refuse_done = 0  # how many done writes fail (the store unreachable)
        self.refuse_key = ""  # only those of this item, when set
        self.take_over = ""  # this item is taken over (its lease ran out) at a save carrying it

    def _request(self, what: str) -> None:
        journal = outbox.current()
        if journal is not None:
            self.requests.append((journal.item.key, what))

    def save(self, match: Match, **kwargs: Any) -> Match:
        self._request("save")
        entry = kwargs.get("entry")
        if entry is not None and entry.key == self.take_over:
            self.take_over = ""
            assert super().claim_owed(match.id, entry.key, entry.lease, 60.0) is not None
        saved = super().save(match, **kwargs)
        self.writes += [(o.key, "save") for o in kwargs.get("owe", ())]
        if entry is not None:
            self.writes.append((entry.key, "done" if entry.done else "journal"))
        return saved

    def claim_owed(self, match_id: str, key: str, now: float, lease: float) -> Owed | None:
        got = super().claim_owed(match_id, key, now, lease)
        if got is not None:
            self.writes.append((key, "claim"))
            self.requests.append((key, "claim"))
        return got

    def update_owed(self, item: Owed, *, remember: Remember | None = None) -> bool:
        if item.done and self.refuse_done and self.refuse_key in ("", item.key):
            self.refuse_done -= 1
            raise ConnectionError("the store is unreachable")
        self.requests.append((item.key, "owed"))
        written = super().update_owed(item, remember=remember)
        if written:
            what = "failed" if item.attempts and not item.done else "journal"
            self.writes.append((item.key, "done" if item.done else what))
        return written

    def remember_messages(self, match_id: str, key: str, turn: int, items: Any) -> None:
        self._request("remember")
        super().remember_messages(match_id, key, turn, items)

    def load(self, match_id: str) -> Loaded:
        self._request("load")  # (a read, noted for where it falls among the writes)
        return super().load(match_id)

    def of(self, key: str) -> list[str]:
        return [what for k, what in self.writes if k == key]

    def requested(self, key: str) -> list[str]:
        """The write requests made while ``key`` was delivered (its claim included)."""
        return [what for k, what in self.requests if k == key and what != "load"]

    def stored(self, key: str) -> Owed:
        return Owed.from_doc(self.outbox[MID][key])


class Calls:
    """The fake Bot API's calls, each with the owed item whose delivery made it (None outside
    a delivery) and the message it answered with; ``fail``: answer the Nth call of a method
    within an item's delivery with a 429 (``retry_after`` 30) instead."""

    def __init__(self, api: FakeBotAPI) -> None:
        self.made: list[tuple[str | None, str, int | None]] = []
        self.fail: tuple[str, str, int] | None = None
        real = api.do_request

        async def do_request(url: str, *a: Any, **k: Any) -> tuple[int, bytes]:
            method = url.rsplit("/", 1)[-1]
            journal = outbox.current()
            key = None if journal is None else journal.item.key
            made = sum(1 for c in self.made if c[:2] == (key, method))
            if self.fail is not None and self.fail == (key, method, made + 1):
                self.fail = None
                self.made.append((key, method, None))
                body = {"ok": False, "error_code": 429, "description": "Too Many Requests"}
                return 429, json.dumps({**body, "parameters": {"retry_after": 30}}).encode()
            code, raw = await real(url, *a, **k)
            result = json.loads(raw).get("result") if code == 200 else None
            mid = result.get("message_id") if isinstance(result, dict) else None
            self.made.append((key, method, mid))
            return code, raw

        api.do_request = do_request  # type: ignore[method-assign]

    def of(self, key: str, methods: frozenset[str] | str) -> list[int | None]:
        names = {methods} if isinstance(methods, str) else methods
        return [mid for k, m, mid in self.made if k == key and m in names]


@pytest.fixture
def counted() -> Iterator[tuple[Duel, Counting, Calls]]:
    repo = Counting()
    h = Harness(repo)
    calls = Calls(h.api)
    yield Duel(h), repo, calls
    h.close()


@pytest.fixture
def locked() -> Iterator[tuple[Duel, Counting, Calls]]:
    """:func:`counted` with production's beacon path: each turn locked by a lock message,
    which its reveal turns into the picture."""
    repo = Counting()
    h = Harness(repo, beacon=LocalBeacon(), default_lang="en")
    calls = Calls(h.api)
    yield Duel(h), repo, calls
    h.close()


def _turn_one(duel: Duel) -> None:
    duel.start()
    duel.alice_seals(0, -3, 3)
    duel.h.say(duel.bob, duel.b, "/order move 0 aim 5:5")  # wide: the duel goes on


def test_a_resolved_turn_records_its_sends_not_its_edits(
    counted: tuple[Duel, Counting, Calls],
) -> None:
    duel, repo, calls = counted
    _turn_one(duel)
    item = repo.stored("resolved:1")
    assert item.done and not item.error
    sent = calls.of("resolved:1", SENDS)  # the reveal, the next turn's builders
    cleared = calls.of("resolved:1", "editMessageReplyMarkup")  # turn 1's keyboards
    assert len(sent) >= 3 and cleared
    # Recorded: each message sent, none of the edited ones (an edit is simply made again).
    recorded = sorted(int(entry[1]) for entry in item.sent.values())
    assert recorded == sorted(int(m or 0) for m in sent)
    assert not set(recorded) & set(cleared)


def test_an_items_sends_are_written_once_each_the_last_with_done(
    counted: tuple[Duel, Counting, Calls],
) -> None:
    duel, repo, calls = counted
    _turn_one(duel)
    for key in ("receipt:1:p2", "resolved:1"):
        sends = len(calls.of(key, SENDS))
        assert sends >= 1, key
        # One write per send: each before the next call, the last one with the item's done.
        assert repo.of(key).count("journal") == sends - 1, key
        assert repo.of(key)[-1] == "done" and repo.of(key).count("done") == 1, key
        assert len(repo.stored(key).sent) == sends, key


def test_a_resumed_delivery_makes_its_edits_again_and_no_send_twice(
    counted: tuple[Duel, Counting, Calls],
) -> None:
    duel, repo, calls = counted
    h = duel.h
    calls.fail = ("resolved:1", "sendMessage", 3)  # after the reveal: Bob's builder (429)
    _turn_one(duel)
    failed = repo.stored("resolved:1")
    assert not failed.done and failed.attempts == 1
    first_sends = [m for m in calls.of("resolved:1", SENDS) if m is not None]
    # Every send made before the failure is recorded, by the failure's own write.
    assert len(failed.sent) == len(first_sends) and repo.of("resolved:1")[-1] == "failed"
    cleared = calls.of("resolved:1", "editMessageReplyMarkup")
    keyboards = {mid: _message(duel, mid).reply_markup for mid in cleared}
    bob_had = len(h.texts(duel.b))
    h.now += 31  # Telegram's retry_after has passed: the sweeper delivers the rest
    h.sweep()
    done = repo.stored("resolved:1")
    assert done.done and not done.error
    # The edits were made again (Telegram: "not modified"); no message was sent twice.
    assert len(calls.of("resolved:1", "editMessageReplyMarkup")) == 2 * len(cleared)
    again = [m for m in calls.of("resolved:1", SENDS) if m is not None][len(first_sends) :]
    assert len(again) == 1  # only the builder that failed
    assert {mid: _message(duel, mid).reply_markup for mid in cleared} == keyboards
    assert len(h.texts(duel.b)) == bob_had + 1  # his turn-2 builder, once


def _message(duel: Duel, mid: int | None) -> Any:
    assert mid is not None
    found = (duel.h.api.message(chat, mid) for chat in (duel.a, duel.b))
    return next(m for m in found if m is not None)


def test_a_locked_turns_lock_message_is_recorded_with_its_done_write(
    locked: tuple[Duel, Counting, Calls],
) -> None:
    """The lock message is followed by edits only (the status: "waits for round N"): its
    entry goes with the item's done write, not in a write of its own."""
    duel, repo, calls = locked
    _turn_one(duel)
    assert calls.of("lock:1", SENDS) and calls.of("lock:1", "editMessageText")
    assert repo.of("lock:1") == ["save", "claim", "done"]
    assert len(repo.stored("lock:1").sent) == 1
    assert repo.stored("resolved:1").done


def test_a_failed_done_write_still_records_the_send_that_rode_on_it(
    counted: tuple[Duel, Counting, Calls],
) -> None:
    """The last send's entry goes with the done write; when that write fails, the failure's
    own write records it, so the delivery that resumes sends nothing again."""
    duel, repo, calls = counted
    h = duel.h
    duel.start()
    duel.alice_seals(0, -3, 3)
    repo.refuse_done = 1  # the receipt's (the first item of the resolving seal)
    h.say(duel.bob, duel.b, "/order move 0 aim 5:5")
    receipt = repo.stored("receipt:1:p2")
    assert not receipt.done and receipt.attempts == 1 and len(receipt.sent) == 1
    h.now += 31  # past the backoff: the sweeper resumes it
    h.sweep()
    assert repo.stored("receipt:1:p2").done
    assert len(calls.of("receipt:1:p2", SENDS)) == 1  # sent once, not again


# --------------------------------------------------------------------------- riding writes
# docs/deploy.md, "The outbox's writes": a delivery's journal rides on the saves it makes
# anyway, and the ids it remembers on the journal's writes.


def test_a_lock_delivery_is_its_claim_and_one_save_that_records_the_lock_and_ends_it(
    locked: tuple[Duel, Counting, Calls],
) -> None:
    """The lock message's date is saved with the item's end (the status edit that follows
    is repeatable), from the match the locking seal saved (no read first): two writes, not
    claim, read, save, done."""
    duel, repo, calls = locked
    h = duel.h
    _turn_one(duel)
    (lock,) = calls.of("lock:1", SENDS)
    during = [w for k, w in repo.requests if k == "lock:1"]
    # The claim, then the save (no read before it): the lock recorded, the item ended.
    assert during[:2] == ["claim", "save"]
    assert "owed" not in during  # no journal or end write of its own
    assert repo.of("lock:1") == ["save", "claim", "done"]  # the end rode on that save
    assert repo.stored("lock:1").done and len(repo.stored("lock:1").sent) == 1
    (record,) = h.deps.repo.history(MID, since=1)[:1]
    assert record.lock_message == lock  # recorded; the turn resolved from it
    assert calls.of("lock:1", "editMessageText")  # the status edit after the end


def test_the_reveals_delivery_writes_once_per_send_its_commitment_save_carrying_one(
    counted: tuple[Duel, Counting, Calls],
) -> None:
    """The commitment's save (the reveal's last message carries it) writes the journal's
    pending entry, and the next turn's builders' ids ride on the item's end: besides its
    claim, a delivery writes once per send (the reveal's picture and text, two builders),
    where it wrote the commitment's save and the remembered ids on their own too."""
    duel, repo, calls = counted
    _turn_one(duel)
    sends = len(calls.of("resolved:1", SENDS))
    during = repo.requested("resolved:1")
    assert during.count("save") == 1  # the commitment recorded ...
    assert len(during) == 1 + sends  # ... on a write the journal made anyway
    assert "remember" not in during  # the builders' ids rode on the end
    match = duel.h.deps.repo.load(MID).match  # turn 2's commitment, in the reveal
    assert match.turn == 2 and match.commitment_message in calls.of("resolved:1", SENDS)
    builders = {chat for chat, _ in stale.live(match, 2)}
    assert builders == {duel.a, duel.b}  # remembered: their keyboards go at the reveal
    item = repo.stored("resolved:1")
    assert item.done and len(item.sent) == sends


def test_ids_remembered_in_a_delivery_whose_end_fails_go_with_its_failure_write(
    counted: tuple[Duel, Counting, Calls],
) -> None:
    """The builders' ids ride on the item's end; when that write fails (the store
    unreachable), the failure's write records them with the builders' own entries: the
    resumed delivery sends nothing again, and their keyboards still go when the turn
    resolves."""
    duel, repo, calls = counted
    h = duel.h
    duel.start()
    duel.alice_seals(0, -3, 3)
    repo.refuse_done, repo.refuse_key = 1, "resolved:1"
    h.say(duel.bob, duel.b, "/order move 0 aim 5:5")
    failed = repo.stored("resolved:1")
    assert not failed.done and repo.of("resolved:1")[-1] == "failed"
    assert "remember" not in repo.requested("resolved:1")
    sent = [m for m in calls.of("resolved:1", SENDS) if m is not None]
    assert len(failed.sent) == len(sent)
    builders = sorted(stale.live(h.deps.repo.load(MID).match, 2))
    assert {chat for chat, _ in builders} == {duel.a, duel.b}
    assert {mid for _, mid in builders} <= set(sent)
    h.now += 31
    h.sweep()
    assert repo.stored("resolved:1").done
    assert sorted(stale.live(h.deps.repo.load(MID).match, 2)) == builders
    assert [m for m in calls.of("resolved:1", SENDS) if m is not None] == sent  # none again


def test_a_delivery_whose_lease_ran_out_stops_at_the_save_carrying_its_journal(
    counted: tuple[Duel, Counting, Calls],
) -> None:
    """The commitment's save carries the journal: when the item was taken over meanwhile
    (the lease ran out), neither is written and the delivery stops there - no builder sent
    by it, the commitment not recorded by it. The next deliverer finishes: the picture is
    not sent again (recorded before the text), the text that was sent and not recorded is
    (the one-send window), each builder goes once, the commitment is recorded."""
    duel, repo, calls = counted
    h = duel.h
    repo.take_over = "resolved:1"
    _turn_one(duel)
    stopped = repo.stored("resolved:1")
    assert not stopped.done and stopped.attempts == 0  # stopped, not failed
    assert len(stopped.sent) == 1  # the picture
    match = h.deps.repo.load(MID).match
    assert match.turn == 2 and match.commitment_posted_at is None
    assert len(calls.of("resolved:1", "sendPhoto")) == 1
    assert len(calls.of("resolved:1", "sendMessage")) == 1  # the reveal's text, no builder
    h.now += 120  # the taker's lease ran out too: the sweeper delivers
    h.sweep()
    match = h.deps.repo.load(MID).match
    assert repo.stored("resolved:1").done and match.commitment_posted_at is not None
    assert len(calls.of("resolved:1", "sendPhoto")) == 1  # not again
    texts = calls.of("resolved:1", "sendMessage")
    assert len(texts) == 4  # the text again, then a builder to each player
    assert match.commitment_message == texts[1]  # the text sent anew carries it
    assert sorted(stale.live(match, 2)) == sorted(zip((duel.a, duel.b), texts[2:], strict=True))


def test_the_reveal_picture_is_recorded_by_the_commitments_save(
    locked: tuple[Duel, Counting, Calls],
) -> None:
    """The lock message turned into the picture is recorded like a send, but on the write
    the delivery makes anyway (the commitment's save, after the story's text): no write of
    its own between the picture and the story."""
    duel, repo, calls = locked
    _turn_one(duel)
    (lock,) = calls.of("lock:1", SENDS)
    assert calls.of("resolved:1", "editMessageMedia") == [lock]  # the lock, a picture now
    assert calls.of("resolved:1", "sendMessage")  # the story's text after it
    during = repo.requested("resolved:1")
    assert during[:2] == ["claim", "save"]  # nothing written before the commitment's save
    item = repo.stored("resolved:1")
    assert item.done and lock in [int(entry[1]) for entry in item.sent.values()]


def test_a_reveal_stopped_before_its_first_write_makes_the_picture_again_never_a_new_one(
    locked: tuple[Duel, Counting, Calls],
) -> None:
    """Stopped before the commitment's save (the item taken over: nothing written), the
    next deliverer turns the same lock message into the same picture again - no new photo
    in the group - and sends the story's text again (the one-send window); the commitment is
    recorded in the text it sent, and the picture is not made a third time."""
    duel, repo, calls = locked
    h = duel.h
    repo.take_over = "resolved:1"
    _turn_one(duel)
    (lock,) = calls.of("lock:1", SENDS)
    stopped = repo.stored("resolved:1")
    assert not stopped.done and not stopped.sent  # the picture was not recorded
    h.now += 120  # the taker's lease ran out too: the sweeper delivers
    h.sweep()
    match = h.deps.repo.load(MID).match
    assert repo.stored("resolved:1").done and match.commitment_posted_at is not None
    assert calls.of("resolved:1", "editMessageMedia") == [lock, lock]  # again, the same
    assert not calls.of("resolved:1", "sendPhoto")
    media = [c.params["media"] for c in h.api.calls if c.method == "editMessageMedia"]
    captions = [(json.loads(m) if isinstance(m, str) else m)["caption"] for m in media]
    assert len(captions) == 2 and captions[0] == captions[1]
    texts = calls.of("resolved:1", "sendMessage")
    assert match.commitment_message == texts[1]  # the story's text sent anew carries it
    h.now += 120
    h.sweep()
    assert len(calls.of("resolved:1", "editMessageMedia")) == 2  # recorded: not again


def test_a_picture_made_again_that_telegram_finds_unmodified_is_still_the_picture(
    locked: tuple[Duel, Counting, Calls],
) -> None:
    """Telegram may answer the same picture edited in again "message is not modified": that
    is the picture, not a lock message gone - no new photo is sent for it."""
    duel, repo, calls = locked
    h = duel.h
    edits = {"n": 0}
    real = h.api.do_request

    async def do_request(url: str, *a: Any, **k: Any) -> tuple[int, bytes]:
        if url.endswith("/editMessageMedia"):
            edits["n"] += 1
            if edits["n"] == 2:
                body = {"ok": False, "error_code": 400}
                body["description"] = "Bad Request: message is not modified"
                return 400, json.dumps(body).encode()
        return await real(url, *a, **k)

    h.api.do_request = do_request  # type: ignore[method-assign]
    repo.take_over = "resolved:1"  # stopped before its first write: made again on resume
    _turn_one(duel)
    h.now += 120
    h.sweep()
    assert edits["n"] == 2 and repo.stored("resolved:1").done
    assert not calls.of("resolved:1", "sendPhoto")
    match = h.deps.repo.load(MID).match
    assert match.commitment_posted_at is not None


def test_the_starts_delivery_writes_the_status_message_with_its_save(
    counted: tuple[Duel, Counting, Calls],
) -> None:
    """Turn 1 opens with a new status message, whose id is saved in the match: that save
    carries the message's journal entry, and the builders' ids ride on the end. Besides its
    claim and the save recording the commitment folded into the start (an edit: nothing to
    carry), one write per send."""
    duel, repo, calls = counted
    _turn_one(duel)
    sends = len(calls.of("started:1", SENDS))  # the status, a builder to each player
    during = repo.requested("started:1")
    assert sends == 3 and during.count("save") == 2
    assert len(during) == 1 + 1 + sends and "remember" not in during
    status = calls.of("started:1", SENDS)[0]
    assert duel.h.deps.repo.load(MID).match.ui["status"] == status  # recorded (edited since)
    assert repo.stored("started:1").sent  # and journaled with it
