"""The turn clock with an injectable clock: deadlines, the one reminder, extensions, pause."""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable

import pytest

from engine import usecases as uc
from engine.errors import Rejection
from engine.match import Phase
from tests.fairness.posting import started
from tests.support.clock import FakeClock

GM, ANN, BOB = 100, 1, 2
HOUR = 3600


@pytest.fixture
def timed(deps: uc.Deps) -> Callable[..., str]:
    def make(**clock: int) -> str:
        match = uc.create_match(deps, chat_id=-9, gm_user_id=GM, ruleset_id="coin")
        uc.configure_clock(deps, match.id, GM, **({"turn_seconds": 4 * HOUR} | clock))
        uc.join(deps, match.id, ANN, "Ann")
        uc.join(deps, match.id, BOB, "Bob")
        uc.set_character(deps, match.id, ANN, "p1", {})
        uc.set_character(deps, match.id, BOB, "p2", {})
        uc.start(deps, match.id, GM)
        return match.id

    return make


def test_turn_opens_with_a_deadline(
    deps: uc.Deps, clock: FakeClock, timed: Callable[..., str]
) -> None:
    mid = timed()
    assert deps.repo.load(mid).match.deadline == clock.now + 4 * HOUR


def test_bad_clock_option_is_refused_and_changes_nothing(deps: uc.Deps) -> None:
    match = uc.create_match(deps, chat_id=-9, gm_user_id=GM, ruleset_id="coin")
    with pytest.raises(Rejection) as err:
        uc.configure_clock(deps, match.id, GM, turn_seconds=5)
    assert err.value.code == "invalid_field" and err.value.params["field"] == "turn_seconds"
    with pytest.raises(Rejection) as err:
        uc.configure_clock(deps, match.id, ANN, turn_seconds=HOUR)
    assert err.value.code == "gm_only"
    assert deps.repo.load(match.id).match.clock == {}


def test_unknown_or_badly_typed_clock_options_are_refused(deps: uc.Deps) -> None:
    match = uc.create_match(deps, chat_id=-9, gm_user_id=GM, ruleset_id="coin")
    for options, field in (
        ({"turn_hours": 4}, "turn_hours"),
        ({"max_extensions_total": "many"}, "max_extensions_total"),
        ({"reminder_before_seconds": 8 * 24 * HOUR}, "reminder_before_seconds"),
    ):
        with pytest.raises(Rejection) as err:
            uc.configure_clock(deps, match.id, GM, **options)
        assert err.value.code == "invalid_field" and err.value.params["field"] == field
    assert deps.repo.load(match.id).match.clock == {}


def test_clock_options_are_stored_as_validated(deps: uc.Deps) -> None:
    # Stored clocks are read without validation (engine.clock.clock_config), so a value the
    # validator coerced must be stored coerced: "7200" would break the deadline arithmetic.
    match = uc.create_match(deps, chat_id=-9, gm_user_id=GM, ruleset_id="coin")
    uc.configure_clock(deps, match.id, GM, turn_seconds="7200")
    assert deps.repo.load(match.id).match.clock == {"turn_seconds": 7200}


def test_deadline_resolves_with_default_orders(
    deps: uc.Deps, clock: FakeClock, timed: Callable[..., str]
) -> None:
    mid = timed()
    uc.seal_order(deps, mid, ANN, "p1", {"call": 4})
    clock.advance(4 * HOUR - 1)
    assert not [r for r in uc.sweep(deps) if isinstance(r, uc.Resolution)]
    clock.advance(1)
    (res,) = [r for r in uc.sweep(deps) if isinstance(r, uc.Resolution)]
    assert res.record.reason == "deadline" and res.record.defaulted == ("p2",)
    assert res.match.turn == 2 and res.match.deadline == clock.now + 4 * HOUR
    assert uc.sweep(deps) == []  # a second firing finds nothing to do


def test_exactly_one_reminder_and_only_to_those_missing(
    deps: uc.Deps, clock: FakeClock, timed: Callable[..., str]
) -> None:
    mid = timed()
    uc.seal_order(deps, mid, ANN, "p1", {"call": 4})
    clock.advance(3 * HOUR - 1)
    assert uc.sweep(deps) == []
    clock.advance(1)
    (reminder,) = uc.sweep(deps)
    assert isinstance(reminder, uc.Reminder) and reminder.missing == ("p2",)
    for _ in range(5):
        clock.advance(10 * 60 - 1)
        assert uc.sweep(deps) == []


def test_short_turn_reminds_at_half_time(
    deps: uc.Deps, clock: FakeClock, timed: Callable[..., str]
) -> None:
    timed(turn_seconds=HOUR)
    clock.advance(HOUR / 2)
    assert [type(r) for r in uc.sweep(deps)] == [uc.Reminder]


def test_no_reminder_when_everyone_sealed_early(
    deps: uc.Deps, clock: FakeClock, timed: Callable[..., str]
) -> None:
    mid = timed()
    uc.seal_order(deps, mid, ANN, "p1", {"call": 4})
    uc.seal_order(deps, mid, BOB, "p2", {"call": 4})  # resolves early: default behaviour
    clock.advance(3 * HOUR)
    (reminder,) = uc.sweep(deps)  # turn 2's own reminder, nobody has sealed turn 2 yet
    assert isinstance(reminder, uc.Reminder) and reminder.match.turn == 2
    assert reminder.missing == ("p1", "p2")


def test_pause_freezes_and_resume_shifts_the_deadline(
    deps: uc.Deps, clock: FakeClock, timed: Callable[..., str]
) -> None:
    mid = timed()
    clock.advance(HOUR)
    paused = uc.pause(deps, mid, GM)
    assert paused.deadline is None and paused.paused_left == 3 * HOUR
    clock.advance(10 * HOUR)
    assert uc.sweep(deps) == []  # nothing fires while paused
    resumed, record = uc.resume(deps, mid, GM)
    assert record is None and resumed.deadline == clock.now + 3 * HOUR
    assert [a["action"] for a in resumed.audit][-2:] == ["pause", "resume"]


def test_paused_match_waits_for_resume_to_resolve(
    deps: uc.Deps, clock: FakeClock, timed: Callable[..., str]
) -> None:
    mid = timed()
    uc.pause(deps, mid, GM)
    uc.seal_order(deps, mid, ANN, "p1", {"call": 4})
    assert uc.seal_order(deps, mid, BOB, "p2", {"call": 4}).record is None
    _, record = uc.resume(deps, mid, GM)
    assert record is not None and record.turn == 1


def test_a_pause_ends_by_itself(deps: uc.Deps, clock: FakeClock, timed: Callable[..., str]) -> None:
    mid = timed(max_pause_seconds=2 * HOUR)
    uc.pause(deps, mid, GM)
    clock.advance(2 * HOUR)
    (resumed,) = uc.sweep(deps)
    assert isinstance(resumed, uc.Resumed) and not resumed.match.paused
    assert resumed.match.audit[-1]["reason"] == "auto"


def test_pause_and_extend_are_gm_only(deps: uc.Deps, timed: Callable[..., str]) -> None:
    mid = timed()
    actions: list[Callable[[], object]] = [
        lambda: uc.pause(deps, mid, ANN),
        lambda: uc.extend(deps, mid, BOB, HOUR),
    ]
    for action in actions:
        with pytest.raises(Rejection) as err:
            action()
        assert err.value.code == "gm_only"


def test_extension_caps(deps: uc.Deps, clock: FakeClock, timed: Callable[..., str]) -> None:
    mid = timed(max_extensions_per_turn=2, max_extensions_total=3, max_extension_seconds=HOUR)
    before = deps.repo.load(mid).match.deadline
    assert before is not None
    with pytest.raises(Rejection) as err:
        uc.extend(deps, mid, GM, HOUR + 1)
    assert err.value == Rejection("extension_too_long", max_seconds=HOUR)
    assert uc.extend(deps, mid, GM, HOUR).deadline == before + HOUR
    uc.extend(deps, mid, GM, HOUR)
    with pytest.raises(Rejection) as err:
        uc.extend(deps, mid, GM, HOUR)
    assert err.value == Rejection("extensions_per_turn_used", limit=2)
    uc.force_resolve(deps, mid, GM, turn=1)
    uc.extend(deps, mid, GM, 60)
    with pytest.raises(Rejection) as err:
        uc.extend(deps, mid, GM, 60)
    assert err.value == Rejection("extensions_total_used", limit=3)
    assert [a["action"] for a in deps.repo.load(mid).match.audit].count("extend") == 3


def test_extension_without_deadline_is_refused(deps: uc.Deps) -> None:
    match = uc.create_match(deps, chat_id=-9, gm_user_id=GM, ruleset_id="coin")
    uc.join(deps, match.id, ANN, "Ann")
    uc.join(deps, match.id, BOB, "Bob")
    uc.set_character(deps, match.id, ANN, "p1", {})
    uc.set_character(deps, match.id, BOB, "p2", {})
    uc.start(deps, match.id, GM)
    with pytest.raises(Rejection) as err:
        uc.extend(deps, match.id, GM, 600)
    assert err.value.code == "no_deadline"


def test_consecutive_misses_alert_the_gm(
    deps: uc.Deps, clock: FakeClock, timed: Callable[..., str]
) -> None:
    from engine.clock import absentees

    mid = timed(missed_turns_alert=2)
    for turn in (1, 2):
        uc.seal_order(deps, mid, ANN, "p1", {"call": 1})
        clock.advance(4 * HOUR)
        uc.sweep(deps)
        assert deps.repo.load(mid).match.turn == turn + 1
    assert absentees(deps.repo.load(mid).match) == ("p2",)
    uc.seal_order(deps, mid, BOB, "p2", {"call": 1})
    uc.seal_order(deps, mid, ANN, "p1", {"call": 1})
    match = deps.repo.load(mid).match
    assert match.phase is Phase.FINISHED or absentees(match) == ()


def test_deadline_does_not_depend_on_hidden_orders(
    deps: uc.Deps, clock: FakeClock, timed: Callable[..., str]
) -> None:
    first, second = timed(), timed()
    uc.seal_order(deps, first, ANN, "p1", {"call": 1})
    uc.seal_order(deps, second, ANN, "p1", {"call": 6})
    a, b = deps.repo.load(first).match, deps.repo.load(second).match
    assert (a.deadline, a.wake_at) == (b.deadline, b.wake_at)


def test_one_match_that_fails_to_resolve_does_not_stop_the_sweep(
    deps: uc.Deps, clock: FakeClock, timed: Callable[..., str]
) -> None:
    """A due match whose stored state the ruleset cannot read (a bug, a hand-edited record)
    raised out of ``sweep``: every minute, no match behind it was resolved, and the results
    already saved were lost with the exception (the local timer only logged it)."""
    first, second, third = timed(), timed(), timed()
    repo = deps.repo
    repo.matches[second]["state"] = {"damaged": True}  # type: ignore[attr-defined]
    clock.advance(4 * HOUR)
    failed: list[tuple[str, Exception]] = []
    results = uc.sweep(deps, on_error=lambda mid, exc: failed.append((mid, exc)))
    assert sorted(r.match.id for r in results) == sorted([first, third])
    assert [mid for mid, _ in failed] == [second]
    assert repo.load(second).match.turn == 1  # untouched: still due, tried again next time
    assert repo.due(clock.now, 50) == [second]


def test_a_locked_match_stays_due_at_once_and_its_lock_message_does_not_move_it() -> None:
    """A locked turn is due at once (the sweeper resolves it if nobody else does). Its wake-up
    is the lock itself, which the lock message's Telegram date (the fairness lock time) does
    not change: the store's deadline index is not moved again (docs/deploy.md, "Load and
    cost")."""
    deps, clock, _bot, mid = started()
    uc.seal_order(deps, mid, 1, "p1", {"call": 1})
    with contextlib.suppress(Rejection):
        uc.seal_order(deps, mid, 2, "p2", {"call": 2})
    locked = deps.repo.load(mid).match
    assert locked.locked_at is not None and locked.lock_message is None
    assert locked.wake_at is not None and locked.wake_at <= clock()
    clock.advance(2)
    uc.lock_posted(deps, mid, locked.turn, 9999, float(math.ceil(clock())))
    posted = deps.repo.load(mid).match
    assert posted.locked_at != locked.locked_at  # the lock time is the message's date now
    assert posted.wake_at == locked.wake_at
