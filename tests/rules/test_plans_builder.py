"""The order builder's support for ``plans``: exact success chances (confirmation screen) and
the typed plan syntax."""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Any

import pytest

from engine.dice import ScriptedDice, TurnLog
from engine.errors import Rejection
from engine.probability import at_least, binomial, distribution, success_chance
from engine.ruleset import Sealed
from engine.rulesets.plans import format_typed, parse_typed
from engine.rulesets.plans.config import ACTIONS
from tests.rules.test_plans_helpers import R, plan, sheet, start, with_fighter

ONE = Fraction(1)

# --------------------------------------------------------------------------- exact chances


def test_one_d10_succeeds_on_8_or_more_three_times_in_ten() -> None:
    assert success_chance(8) == Fraction(3, 10)
    assert success_chance(11) == 0 and success_chance(1) == 1


def test_binomial_by_hand() -> None:
    assert binomial(2, Fraction(3, 10)) == [Fraction(49, 100), Fraction(42, 100), Fraction(9, 100)]


def test_at_least_by_hand_for_pools_of_2_and_3() -> None:
    assert at_least(distribution(2)) == (Fraction(51, 100), Fraction(9, 100))
    # 1 - 0.7^3; 3 * 0.3^2 * 0.7 + 0.3^3; 0.3^3
    assert at_least(distribution(3)) == (
        Fraction(657, 1000),
        Fraction(216, 1000),
        Fraction(27, 1000),
    )


def test_cunning_auto_success_shifts_the_chances() -> None:
    assert at_least(distribution(2, steps=[("add", 1)])) == (
        ONE,
        Fraction(51, 100),
        Fraction(9, 100),
    )
    assert at_least(distribution(0, steps=[("add", 1)])) == (ONE,)
    assert at_least(distribution(0)) == ()


def test_defensive_doubling_by_hand() -> None:
    chances = at_least(distribution(2, steps=[("mul", 2)]))
    assert chances == (Fraction(51, 100), Fraction(51, 100), Fraction(9, 100), Fraction(9, 100))


def test_distribution_sums_to_one() -> None:
    for n in range(8):
        assert sum(distribution(n, steps=[("add", 1), ("mul", 3)]).values()) == 1


def test_preview_of_a_cunning_plan() -> None:
    preview = R.preview(start(), "p1", plan(action="cunning"))
    assert (preview.pool, preview.accuracy, preview.skill, preview.second) == (2, 1, 1, 0)
    assert preview.steps == (("add", 1),)
    assert preview.at_least == (ONE, Fraction(51, 100), Fraction(9, 100))
    assert preview.percent() == (100.0, 51.0, 9.0)
    assert preview.damage_pool == 2


def test_preview_second_skill_precise_and_empty_group() -> None:
    state = start(a=sheet(lethality=1))
    order = plan(action="precise", second_skill="feint", second_group="mental")
    preview = R.preview(state, "p1", order)
    assert preview.pool == 4 and preview.damage_pool == 2 + 1 + 2
    empty = with_fighter(state, 0, reserves=(0, 2, 2))
    preview = R.preview(empty, "p1", plan())
    assert not preview.group_paid and preview.pool == 1 and preview.damage_pool == 1 + 1


def test_preview_with_a_guessing_difference() -> None:
    preview = R.preview(start(), "p1", plan(action="cunning"), guess_diff=2)
    assert preview.steps == (("add", 1), ("mul", 2))
    half, tenth = Fraction(51, 100), Fraction(9, 100)
    assert preview.at_least == (ONE, ONE, half, half, tenth, tenth)


@pytest.mark.parametrize("action", ACTIONS)
def test_preview_equals_exhaustive_resolution(action: str) -> None:
    """Every face pair of p1's 2-die pool, resolved for real: the frequency of each final
    success count is exactly the preview's distribution."""
    state = start()
    order = plan(action=action)
    counts: dict[int, int] = {}
    for faces in itertools.product(range(1, 11), repeat=2):
        # p2 rolls [10, 10] (2 or more successes); any damage dice roll 1s.
        dice = ScriptedDice([*faces, 10, 10, *([1] * 6)])
        log = TurnLog(dice)
        R.resolve(state, {"p1": Sealed(order), "p2": Sealed(plan(action="strong"))}, log)
        final = next(e.data["successes"] for e in log.events if e.kind == "action")
        counts[final] = counts.get(final, 0) + 1
    exact = distribution(2, steps=R.preview(state, "p1", order).steps)
    assert {k: Fraction(v, 100) for k, v in counts.items()} == exact


# --------------------------------------------------------------------------- typed syntax

FULL = (
    "/plan physical blade +mental feint strong soak:mental restore:magical "
    "guess:physical/fire/strong -- I feint low, then strike"
)


def test_typed_full_example() -> None:
    assert parse_typed(FULL) == {
        "group": "physical",
        "skill": "blade",
        "second": {"group": "mental", "skill": "feint"},
        "action": "strong",
        "soak": "mental",
        "restore": "magical",
        "guess": {"group": "physical", "skill": "fire", "action": "strong"},
        "text": "I feint low, then strike",
    }


def test_typed_minimal_with_bot_mention_and_defaults() -> None:
    parsed = parse_typed("/plan@SekundantBot magical fire cunning -- fire along the blade")
    assert parsed["second"] is None and parsed["soak"] is None and parsed["restore"] is None
    assert parsed["guess"] == {"group": None, "skill": None, "action": None}


def test_typed_russian_words_and_unknown_guess_parts() -> None:
    parsed = parse_typed("/план физ blade защитное soak:нет guess маг/?/хитрое -- отбиваю удар")
    assert parsed["group"] == "physical" and parsed["action"] == "defensive"
    assert parsed["soak"] is None
    assert parsed["guess"] == {"group": "magical", "skill": None, "action": "cunning"}


@pytest.mark.parametrize(
    ("text", "code", "params"),
    [
        ("/plan -- text", "missing_part", {"field": "group"}),
        ("/plan physical blade strong", "text_required", {"field": "text"}),
        ("/plan physical blade strong --   ", "text_required", {"field": "text"}),
        ("/plan astral blade strong -- t", "unknown_group", {"field": "group", "value": "astral"}),
        ("/plan physical -- text", "missing_part", {"field": "skill"}),
        ("/plan physical blade +mental -- text", "missing_part", {"field": "second.skill"}),
        ("/plan physical blade +astral feint strong -- t", "unknown_group", {"value": "astral"}),
        ("/plan physical blade -- text", "missing_part", {"field": "action"}),
        ("/plan physical blade soak:mental -- text", "missing_part", {"field": "action"}),
        ("/plan physical blade sneaky -- text", "unknown_action", {"value": "sneaky"}),
        ("/plan physical blade strong foo:bar -- t", "unknown_option", {"value": "foo:bar"}),
        ("/plan physical blade strong extra -- t", "unknown_option", {"value": "extra"}),
        ("/plan physical blade strong soak:mental soak:none -- t", "duplicate_option", {}),
        ("/plan physical blade strong guess:physical/blade -- t", "bad_guess", {"field": "guess"}),
        ("/plan physical blade strong guess -- t", "bad_guess", {"field": "guess"}),
        ("/plan physical blade strong guess:x/blade/strong -- t", "unknown_group", {"value": "x"}),
        ("/plan physical blade strong restore:none -- t", "unknown_group", {"field": "restore"}),
    ],
)  # fmt: skip
def test_typed_errors_are_specific(text: str, code: str, params: dict[str, Any]) -> None:
    with pytest.raises(Rejection) as err:
        parse_typed(text)
    assert err.value.code == code
    assert params.items() <= err.value.params.items()


def test_typed_output_is_a_legal_order_and_round_trips() -> None:
    state = start()
    parsed = parse_typed(FULL)
    order = R.check_order(state, "p1", parsed)
    assert R.dump_order(order) == parsed
    assert parse_typed(format_typed(parsed)) == parsed
