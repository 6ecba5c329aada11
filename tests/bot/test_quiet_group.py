"""Issue 24 point 1, a quiet group: at most 2 new group messages per resolved turn (the picture
and the lock message that becomes the reveal), the final turn too (its summary ends its reveal,
and an undo of the final turn edits that message); the status is edited in place; each turn's
commitment is folded into the previous turn's reveal (turn 1's into the start message) and
that message is never edited after it; proofs in words (no JSON, no network ids)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from handlers.telegram.fake_api import MAX_CAPTION, shown_length
from handlers.telegram.harness import Harness, plain
from infra.beacon import LocalBeacon
from tests.bot.conftest import Duel
from tests.bot.test_commitments import never_edited_after_the_commitment
from tests.bot.test_dragons_ui import Battle
from tests.bot.test_plans_ui import PlansDuel

MID = "m00001"
TURNS = 5  # at least: each match is played to its end
LIMIT = 12
PLAN = "-- Наступаю и ищу брешь в защите, ход {turn}"


@pytest.fixture(params=["beacon", "server seed"])
def harness(request: pytest.FixtureRequest) -> Iterator[Harness]:
    h = Harness(beacon=LocalBeacon() if request.param == "beacon" else None, default_lang="en")
    yield h
    h.close()


def bot_messages(h: Harness, chat: int) -> list[int]:
    return [m.message_id for m in h.api.chat(chat).messages if m.from_bot]


def play(h: Harness, group: int, turn: Callable[[int], None]) -> list[int]:
    """Play the match to its end (at most :data:`LIMIT` turns); the new group messages of
    each resolved turn, the final one included (its summary ends its reveal)."""
    counts = []
    for n in range(1, LIMIT + 1):
        match = h.deps.repo.load(MID).match
        if match.phase.value != "running":
            break
        before = set(bot_messages(h, group))
        turn(n)
        assert len(h.deps.repo.history(MID)) == n + 1, f"turn {n} did not resolve"
        counts.append(len(set(bot_messages(h, group)) - before))
        h.now += 3.7  # the next round of the beacon
    assert h.deps.repo.load(MID).match.phase.value == "finished", counts
    return counts


def undo_final(h: Harness, group: int, gm: dict[str, object]) -> None:
    """The GM undoes the final turn from the final message (the last turn's reveal, which
    the summary ends): that message is edited - it no longer tells the undone turn nor names
    a winner, no buttons - and play goes on."""
    final = next(m for m in reversed(h.api.chat(group).messages) if m.from_bot and m.buttons)
    assert final.message_id in bot_messages(h, group)[-2:]  # one of the final turn's
    result = plain(final.text)
    assert "🏆" in result or "🤝" in result or "draw" in result.lower(), result
    last = h.deps.repo.history(MID)[-1].turn
    h.press_text(gm, final, "Undo")
    h.press_text(gm, final, "Confirm")
    assert h.deps.repo.load(MID).match.phase.value == "running"
    shown = plain(final.text)
    assert f"turn {last}" in shown and "withdrawn" in shown and not final.buttons
    assert not any(
        "🏆" in plain(m.text) for m in h.api.chat(group).messages if m.from_bot
    )  # no winner stays in the group while play goes on


def check_group(h: Harness, group: int) -> None:
    history = h.deps.repo.history(MID)
    status = h.deps.repo.load(MID).match.ui.get("status")
    for record in history[1:]:
        assert record.commitment_message is not None
        assert record.commitment_message != status  # never the status, which is edited
        assert never_edited_after_the_commitment(h, group, record.commitment_message, record)
    for text in h.texts(group):
        assert '{"' not in plain(text) and "local-test" not in text  # proofs in words
    photos = [m for m in h.api.chat(group).messages if m.photo is not None]
    assert len(photos) >= len(history) - 1  # a picture for every resolved turn…
    for m in photos:  # …whose caption is the turn's story (it fits: a caption, issue 24)
        assert "reveal" in plain(m.text) and "🔐" not in m.text, m.text
        assert shown_length(m.text) <= MAX_CAPTION


def test_pistol_five_turns(harness: Harness) -> None:
    duel = Duel(harness)
    duel.start()

    def turn(n: int) -> None:
        harness.say(duel.alice, duel.a, "/order move 0 aim -3:3")
        harness.say(duel.bob, duel.b, "/order move 0 aim 5:5")

    counts = play(harness, duel.g, turn)
    assert len(counts) >= TURNS and max(counts) <= 2, counts
    check_group(harness, duel.g)
    undo_final(harness, duel.g, duel.gm)


def test_plans_five_turns(harness: Harness) -> None:
    duel = PlansDuel(harness)
    duel.start()

    def turn(n: int) -> None:
        harness.say(duel.alice, duel.a, "/plan physical fencing strong " + PLAN.format(turn=n))
        duel.bob_types(n)

    counts = play(harness, duel.g, turn)
    assert len(counts) >= 3 and max(counts) <= 2, counts
    check_group(harness, duel.g)
    undo_final(harness, duel.g, duel.gm)


def test_dragons_five_turns(harness: Harness) -> None:
    battle = Battle(harness)
    battle.start("Turn limit")  # ∞ -> 5 turns (D35)

    def turn(n: int) -> None:
        harness.say(battle.alice, 111, "/order level 0")
        harness.say(battle.bob, 222, "/order level 0")
        harness.say(battle.gm, 333, "/npcorder n1 level 0")
        harness.say(battle.gm, 333, "/npcorder n2 level 0")

    counts = play(harness, battle.g, turn)
    assert len(counts) == TURNS and max(counts) <= 2, counts
    check_group(harness, battle.g)
    undo_final(harness, battle.g, battle.gm)


def test_deadline_turns_stay_quiet(harness: Harness) -> None:
    """A turn the deadline resolves says so at the head of its reveal, not in a message of
    its own; the defaulted player is still told privately."""
    from tests.bot.test_clock_ui import HOUR, _timed_start

    duel = Duel(harness)
    _timed_start(duel)

    def turn(n: int) -> None:
        harness.say(duel.alice, duel.a, "/order move 0 aim -3:3")
        harness.now += HOUR + 1
        harness.sweep()

    counts = play(harness, duel.g, turn)
    assert len(counts) >= TURNS and max(counts) <= 2, counts
    reveals = [plain(t) for t in harness.texts(duel.g) if "deadline has passed" in plain(t)]
    assert len(reveals) == len(counts) and all("reveal" in t for t in reveals)
    assert any("default order was used" in t for t in harness.texts(duel.b))
    check_group(harness, duel.g)
    undo_final(harness, duel.g, duel.gm)  # the deadline's word stays at the head
