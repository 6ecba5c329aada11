"""Issue 26 point 2: a turn locks with a NEW group message whose Telegram ``date`` (as the Bot
API returned it, never the server's clock) is the lock time and fixes the beacon round; the
same message is edited into the reveal once the round is in. Every lock reason (all sealed,
the deadline, the GM's force) posts it; ``verify`` checks it (``engine/lock_checks.py``)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from engine.beacon import round_after
from engine.dossier import build_dossier
from engine.match import TurnRecord
from engine.verify import verify
from handlers.telegram.harness import Harness, plain
from infra.beacon import LocalBeacon
from tests.bot.conftest import Duel
from tests.bot.test_clock_ui import HOUR, _timed_start

MID = "m00001"
MISS = "/order move 0 aim 5:5"  # wide of the mark: the duel goes on


@pytest.fixture
def beacon_duel() -> Iterator[Duel]:
    h = Harness(beacon=LocalBeacon(), default_lang="en")
    h.now += 0.35  # the server's clock has fractions; Telegram's dates do not
    yield Duel(h)
    h.close()


def _dossier(duel: Duel) -> dict[str, Any]:
    """The dossier as ``/dossier`` builds it (players get it after the end)."""
    h = duel.h
    match = h.deps.repo.load(MID).match
    built = build_dossier(match, h.deps.repo.history(MID), generated_at=h.now)
    found: dict[str, Any] = json.loads(json.dumps(built))
    return found


def _check_lock(duel: Duel, record: TurnRecord) -> None:
    h = duel.h
    assert record.lock_message is not None, record.turn
    lock = h.api.message(duel.g, record.lock_message)
    assert lock is not None
    assert record.locked_at == lock.date  # Telegram's date of the lock message
    assert record.frozen_at is not None and lock.date <= record.frozen_at < lock.date + 1
    assert record.beacon is not None and record.beacon_round is not None
    assert record.beacon_round == round_after(h.deps.beacon.network, lock.date)  # type: ignore[union-attr]
    assert record.commitment_message is not None
    assert record.lock_message > record.commitment_message
    # The lock message became the reveal: the picture with the story as its caption, the
    # proof (the seed) in it or in the message right after it (issue 24, a quiet group).
    later = [m for m in h.api.chat(duel.g).messages if m.message_id > lock.message_id]
    after = next((m for m in later if m.from_bot), None)
    assert lock.edits >= 1 and lock.photo is not None
    assert record.seed in lock.text or (after is not None and record.seed in after.text)


def test_every_turn_locks_with_its_own_message_then_that_message_is_the_reveal(
    beacon_duel: Duel,
) -> None:
    duel, h = beacon_duel, beacon_duel.h
    duel.start()
    for _ in range(3):
        duel.alice_seals(0, -3, 3)
        h.now += 1.25
        before = len(h.api.calls_of("sendMessage"))
        h.say(duel.bob, duel.b, MISS)
        sent = [plain(str(c.params["text"])) for c in h.api.calls_of("sendMessage")[before:]]
        assert any(t.startswith(f"🔒 Turn {duel.match().turn - 1} locked") for t in sent), sent
        h.now += 2.5
    history = h.deps.repo.history(MID)
    assert len(history) == 4
    locks = [r.lock_message for r in history[1:]]
    assert len(set(locks)) == 3
    for record in history[1:]:
        assert record.reason == "all_sealed"
        _check_lock(duel, record)
    assert verify(_dossier(duel)) == []


def test_the_gm_force_and_the_deadline_lock_with_a_message_too(beacon_duel: Duel) -> None:
    duel, h = beacon_duel, beacon_duel.h
    _timed_start(duel)
    duel.alice_seals(0, -3, 3)
    status = duel.status_msg()
    h.press_text(duel.gm, status, "Resolve")
    h.press_text(duel.gm, status, "Confirm")
    assert duel.match().turn == 2
    duel.alice_seals(0, -3, 3)
    h.now += HOUR + 1
    h.sweep()
    assert duel.match().turn == 3
    forced, deadline = h.deps.repo.history(MID)[1:3]
    assert (forced.reason, deadline.reason) == ("forced", "deadline")
    for record in (forced, deadline):
        _check_lock(duel, record)
    assert verify(_dossier(duel)) == []


def test_a_lock_message_tampered_with_in_the_dossier_is_rejected(beacon_duel: Duel) -> None:
    duel, h = beacon_duel, beacon_duel.h
    duel.start()
    for _ in range(2):
        duel.alice_seals(0, -3, 3)
        h.say(duel.bob, duel.b, MISS)
        h.now += 4
    dossier = _dossier(duel)
    later = dossier["turns"][2]
    cases = {
        "backdated by a period": ("locked_at", lambda t: t["locked_at"] - 3),
        "posted a minute late": ("locked_at", lambda t: t["locked_at"] + 60),
        "not a Telegram date": ("locked_at", lambda t: t["locked_at"] + 0.5),
        "shared with the next turn": ("lock_message", lambda t: later["lock_message"]),
        "before its commitment": ("lock_message", lambda t: t["commitment_message"] - 1),
    }
    for name, (field, change) in cases.items():
        doc = json.loads(json.dumps(dossier))
        doc["turns"][1][field] = change(doc["turns"][1])
        assert verify(doc), name
