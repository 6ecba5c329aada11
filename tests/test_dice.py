"""Dice sources and the turn log (``engine/dice.py``)."""

from __future__ import annotations

import pytest

from engine.dice import (
    EXPLOSION_CAP,
    CommittedDice,
    RandomDice,
    ScriptedDice,
    ScriptExhaustedError,
    TurnLog,
    faces_of,
)
from engine.events import Event


def test_random_dice_same_seed_same_faces() -> None:
    a, b = RandomDice(42), RandomDice(42)
    assert [a.face(6) for _ in range(200)] == [b.face(6) for _ in range(200)]
    c, d = RandomDice("x"), RandomDice("y")
    assert [c.face(100) for _ in range(50)] != [d.face(100) for _ in range(50)]


def test_random_dice_faces_cover_the_die_and_stay_in_range() -> None:
    source = RandomDice(7)
    faces = [source.face(6) for _ in range(3000)]
    assert set(faces) == {1, 2, 3, 4, 5, 6}
    assert all(source.face(1) == 1 for _ in range(10))


def test_scripted_dice_give_faces_in_order_then_raise() -> None:
    source = ScriptedDice([2, 3])
    assert (source.face(6), source.face(6)) == (2, 3)
    assert source.remaining == 0
    with pytest.raises(ScriptExhaustedError, match="exhausted after 2"):
        source.face(6)


def test_scripted_dice_refuse_an_impossible_face() -> None:
    with pytest.raises(ScriptExhaustedError, match="not a face of a d4"):
        ScriptedDice([5]).face(4)
    with pytest.raises(ScriptExhaustedError):
        ScriptedDice([0]).face(4)


def test_committed_dice_are_deterministic_by_seed_match_and_turn() -> None:
    seed = b"s" * 32

    def faces(match: str, turn: int, s: bytes = seed) -> list[int]:
        source = CommittedDice(s, match, turn)
        return [source.face(6) for _ in range(40)]

    assert faces("m1", 1) == faces("m1", 1)
    assert faces("m1", 1) != faces("m1", 2)
    assert faces("m1", 1) != faces("m2", 1)
    assert faces("m1", 1) != faces("m1", 1, b"t" * 32)
    assert set(faces("m1", 1)) <= set(range(1, 7))


def test_turn_log_records_every_plain_roll() -> None:
    log = TurnLog(ScriptedDice([4, 1]))
    assert log.die(6, "initiative", "a") == 4
    log.emit("note", "a", x=1)
    assert log.die(20, "hit", None) == 1
    assert log.events[0] == Event(
        "roll", "a", {"sides": 6, "faces": [4], "purpose": "initiative", "mode": "plain"}
    )
    assert log.events[1] == Event("note", "a", {"x": 1})
    assert [e.data["purpose"] for e in log.rolls] == ["initiative", "hit"]
    assert faces_of(log.events) == [4, 1]


def test_turn_log_ace_explodes_and_records_every_face() -> None:
    log = TurnLog(ScriptedDice([6, 6, 3]))
    roll = log.ace(6, "trait", "a")
    assert roll.faces == (6, 6, 3) and roll.total == 15 and roll.mode == "ace"
    assert log.events[0].data == {"sides": 6, "faces": [6, 6, 3], "purpose": "trait", "mode": "ace"}


def test_turn_log_ace_explosion_is_capped() -> None:
    log = TurnLog(ScriptedDice([4] * (EXPLOSION_CAP + 5)))
    roll = log.ace(4, "trait")
    assert len(roll.faces) == EXPLOSION_CAP + 1
    assert all(f == 4 for f in roll.faces)


def test_turn_log_pool_rolls_count_dice_and_counts_successes() -> None:
    log = TurnLog(ScriptedDice([8, 2, 10]))
    roll = log.pool(3, 10, "attack", "a")
    assert roll.faces == (8, 2, 10) and roll.successes(8) == 2 and roll.mode == "pool"
    empty = log.pool(0, 10, "attack", "a")
    assert empty.faces == () and empty.successes(8) == 0
    assert faces_of(log.events) == [8, 2, 10]


def test_event_json_round_trip_and_immutability() -> None:
    e = Event("hit", "a", {"part": "head", "cell": [0, 1]})
    assert Event.from_json(e.to_json()) == e
    assert Event("x") == Event("x", None, {})
    with pytest.raises(AttributeError):
        e.kind = "miss"  # type: ignore[misc]


def test_turn_log_die_gives_the_source_faces_for_random_dice() -> None:
    # TurnLog inlines a plain RandomDice for speed: the faces must be the source's own.
    log = TurnLog(RandomDice(99))
    reference = RandomDice(99)
    for sides in (2, 3, 4, 6, 100) * 40:
        assert log.die(sides, "x") == reference.face(sides)


def test_turn_log_die_uses_any_other_source_as_is() -> None:
    class Sevens:
        def face(self, sides: int) -> int:
            return min(7, sides)

    assert TurnLog(Sevens()).die(6, "x") == 6
    assert TurnLog(Sevens()).die(10, "x") == 7


def test_turn_log_shares_equal_roll_events_and_keeps_distinct_ones_apart() -> None:
    # Equal rolls in one log are one (immutable) event object; any differing field is not.
    log = TurnLog(ScriptedDice([3, 3, 3, 3, 3]))
    for sides, purpose, actor in [(6, "x", "a"), (6, "x", "a"), (6, "y", "a"), (6, "x", "b")]:
        log.die(sides, purpose, actor)
    log.die(4, "x", "a")
    first, again, other_purpose, other_actor, other_die = log.events
    assert again is first
    assert first == Event("roll", "a", {"sides": 6, "faces": [3], "purpose": "x", "mode": "plain"})
    assert other_purpose.data["purpose"] == "y" and other_purpose is not first
    assert other_actor.actor == "b" and other_die.data["sides"] == 4
    assert faces_of(log.events) == [3] * 5


def test_turn_log_memo_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    import engine.dice

    monkeypatch.setattr(engine.dice, "MEMO_MAX", 4)
    log = TurnLog(RandomDice(1))
    for purpose in "abcdefghij":
        log.die(6, purpose, "a")
        assert len(log.memo) <= 4
    assert [e.data["purpose"] for e in log.events] == list("abcdefghij")


def test_turn_log_shares_unexploded_ace_rolls_only() -> None:
    log = TurnLog(ScriptedDice([5, 5, 8, 8, 2]))
    assert log.ace_faces(8, "trait", "a") == [5]
    assert log.ace_faces(8, "trait", "a") == [5]
    assert log.ace_faces(8, "trait", "a") == [8, 8, 2]
    one, again, exploded = log.events
    assert again is one and one.data["mode"] == "ace"
    assert exploded.data == {"sides": 8, "faces": [8, 8, 2], "purpose": "trait", "mode": "ace"}
    assert faces_of(log.events) == [5, 5, 8, 8, 2]


def test_turn_log_pool_faces_records_what_pool_records_with_the_source_faces() -> None:
    # pool_faces inlines a plain RandomDice: same faces as the source, same event as pool().
    core, fast = TurnLog(RandomDice(9)), TurnLog(RandomDice(9))
    reference = RandomDice(9)
    roll = core.pool(7, 10, "action", "p1")
    assert fast.pool_faces(7, 10, "action", "p1") == list(roll.faces)
    assert list(roll.faces) == [reference.face(10) for _ in range(7)]
    assert core.events == fast.events
    assert fast.events[0].data == {
        "sides": 10,
        "faces": list(roll.faces),
        "purpose": "action",
        "mode": "pool",
    }
    scripted = TurnLog(ScriptedDice([3, 9]))
    assert scripted.pool_faces(2, 10, "toughness", "p2") == [3, 9]
    assert scripted.pool_faces(0, 10, "toughness", "p2") == []
    assert faces_of(scripted.events) == [3, 9]
