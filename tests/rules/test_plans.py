"""Rule tests of the ``plans`` ruleset (docs/rules/plans.md), one or more per rule id, with
scripted dice. Sheets are plain (see ``test_plans_helpers.sheet``): physical + blade is a pool of
2 dice (dexterity 1 + blade 1) and a damage pool of 2 (strength 2, unarmed)."""

from __future__ import annotations

from typing import Any

import pytest

from engine.errors import Rejection
from engine.rulesets import get
from engine.rulesets.plans import PlansState
from engine.rulesets.plans.sheet import PRESETS
from tests.rules.test_plans_helpers import (
    TEXT,
    R,
    of,
    one,
    plan,
    play,
    rolls,
    sheet,
    start,
    with_fighter,
)


def rejected(state: PlansState, pid: str, raw_or_plan: Any) -> Rejection:
    """The rejection of an order (raw JSON is parsed first)."""
    if isinstance(raw_or_plan, dict):
        with pytest.raises(Rejection) as err:
            R.check_order(state, pid, raw_or_plan)
        return err.value
    reason = R.validate(state, pid, raw_or_plan)
    assert reason is not None
    return reason


# --------------------------------------------------------------------------- registry


def test_registered_under_plans() -> None:
    assert get("plans") is R


# --------------------------------------------------------------------------- C1, C2 sheets


def test_C1_nine_attributes_in_three_groups_are_required() -> None:
    raw = sheet()
    del raw["attributes"]["will"]
    with pytest.raises(Rejection) as err:
        R.check_character(R.config(), raw)
    assert err.value == Rejection("attribute_missing", attribute="will")


def test_C1_unknown_attribute_is_named() -> None:
    raw = sheet(luck=3)
    with pytest.raises(Rejection) as err:
        R.check_character(R.config(), raw)
    assert err.value.code == "unknown_attribute" and err.value.params["attribute"] == "luck"


def test_C1_attribute_bounds_come_from_config() -> None:
    with pytest.raises(Rejection) as err:
        R.check_character(R.config(), sheet(strength=11))
    assert err.value == Rejection(
        "attribute_out_of_range", attribute="strength", value=11, min=0, max=10
    )
    R.check_character(R.config({"attribute_max": 12}), sheet(strength=11))


def test_C2_skill_with_unknown_group_is_refused_naming_the_field() -> None:
    raw = sheet()
    raw["skills"]["blade"]["groups"] = ["astral"]
    with pytest.raises(Rejection) as err:
        R.check_character(R.config(), raw)
    assert err.value.code == "invalid_field"
    assert err.value.params["field"] == "skills.blade.groups.0"


def test_C2_unarmed_lethality_is_config_default_zero() -> None:
    raw = sheet()
    del raw["weapon"]
    state = start(a=raw)
    assert state.fighters[0].sheet.lethality == 0
    state = start({"unarmed_lethality": 1}, a=raw)
    assert state.fighters[0].sheet.lethality == 1


def test_C2_presets_are_valid_sheets() -> None:
    presets = R.presets(R.config())
    assert {"fencer", "pyromancer", "mentalist"} <= set(presets)
    for raw in presets.values():
        R.check_character(R.config(), raw)


# --------------------------------------------------------------------------- C3


def test_C3_a_die_succeeds_on_8_or_more() -> None:
    state = start()
    _, events = play(state, plan(), plan(), [8, 7, 7, 7, 1, 1])
    assert one(events, "action", "p1")["raw"] == 1
    assert one(events, "action", "p2")["raw"] == 0


def test_C3_success_target_is_configurable() -> None:
    state = start({"success_target": 7})
    # p1 [7, 1] -> 1 + 1 cunning = 2; p2 [1, 1] -> 1; p1's damage [7, 6] -> 1 wound.
    new, events = play(state, plan(), plan(), [7, 1, 1, 1, 7, 6])
    assert one(events, "action", "p1")["raw"] == 1
    assert new.fighters[1].wounds == 1


# --------------------------------------------------------------------------- C4


def test_C4_initiative_higher_total_attacks_first_and_roles_swap() -> None:
    state = start(initiative=(2, 5))  # p1 2+3=5, p2 5+3=8
    assert state.attacker == "p2" and state.initiative == (("p1", 5), ("p2", 8))
    view = R.view(state)
    assert view["attacker"] == "p2" and view["defender"] == "p1"
    new, events = play(state, plan(), plan(), [1, 1, 1, 1])  # a quiet tie
    reveal = one(events, "reveal")
    assert reveal["attacker"] == "p2" and reveal["defender"] == "p1"
    assert new.attacker == "p1" and R.view(new)["defender"] == "p2"


def test_C4_initiative_ties_are_rolled_again_and_logged() -> None:
    from engine.dice import ScriptedDice, TurnLog
    from engine.ruleset import Entrant

    dice = ScriptedDice([4, 4, 1, 6])
    log = TurnLog(dice)
    state = R.setup(R.config(), [Entrant("p1", "p1", sheet()), Entrant("p2", "p2", sheet())], log)
    assert state.attacker == "p2"
    init = one(log.events, "initiative")
    assert init["rerolls"] == 1 and init["scores"]["p2"] == {"die": 6, "bonus": 3, "total": 9}
    assert [e.data["purpose"] for e in log.events if e.kind == "roll"] == ["initiative"] * 4


# --------------------------------------------------------------------------- C5


def test_C5_reserves_start_at_permanent_values() -> None:
    state = start(a=sheet(stamina=3, source=1, will=0))
    assert state.fighters[0].reserves == (3, 1, 0)


def test_C5_restore_never_exceeds_the_permanent_value() -> None:
    state = start()
    # Restore magical (full at 2): nothing is gained.
    new, events = play(state, plan(restore="magical"), plan(), [1, 1, 1, 1])
    assert one(events, "status", "p1")["restore"] == {
        "group": "magical",
        "amount": 0,
        "fallback": False,
    }
    assert new.fighters[0].reserves == (1, 2, 2)


# --------------------------------------------------------------------------- C6, C18


def test_C6_incapacitated_at_five_wounds_by_default() -> None:
    state = with_fighter(start(), 1, wounds=4)
    # p1 [8, 1] -> 2, p2 [1, 1] -> 1; damage [9, 1] -> 1 wound: p2 reaches 5.
    new, events = play(state, plan(), plan(), [8, 1, 1, 1, 9, 1])
    out = R.outcome(new)
    assert out.status == "win" and out.winners == ("p1",) and out.reason == "incapacitation"
    assert R.acting(new) == frozenset()
    assert one(events, "end") == {"status": "win", "winners": ["p1"], "reason": "incapacitation"}


def test_C6_wound_limit_is_configurable() -> None:
    state = with_fighter(start({"wound_limit": 2}), 1, wounds=1)
    new, _ = play(state, plan(), plan(), [8, 1, 1, 1, 9, 1])
    assert R.outcome(new).winners == ("p1",)


def test_C6_first_blood_ends_on_the_first_damage_that_sticks() -> None:
    state = start({"end_condition": "first_blood"})
    new, _ = play(state, plan(), plan(), [8, 1, 1, 1, 9, 1])
    out = R.outcome(new)
    assert out.status == "win" and out.winners == ("p1",) and out.reason == "first_blood"


def test_C6_first_blood_fully_soaked_is_no_blood() -> None:
    state = start({"end_condition": "first_blood"}, b=sheet(will=3))
    # p2 soaks with will: pays 1 (3 -> 2), rolls 2 dice [8, 1]: the 1 hit is ignored.
    new, events = play(state, plan(), plan(soak="mental"), [8, 1, 1, 1, 9, 1, 8, 1])
    assert one(events, "soaked", "p2")["soaked"] == 1
    assert not of(events, "damage")
    assert not R.outcome(new).finished and not new.fighters[1].bled


def test_C18_both_incapacitated_in_the_same_turn_is_a_draw() -> None:
    state = with_fighter(with_fighter(start(), 0, wounds=4), 1, wounds=4)
    # Tie 2-2 with p1 strong: both roll damage (attacker p1 first), 1 hit each.
    new, events = play(
        state, plan(action="strong"), plan(action="cunning"), [8, 8, 8, 1, 9, 1, 9, 1]
    )
    assert one(events, "tie")["damage"] is True
    out = R.outcome(new)
    assert out.status == "draw" and out.reason == "both_incapacitation"


def test_C18_both_first_blood_in_the_same_turn_is_a_draw() -> None:
    state = start({"end_condition": "first_blood"})
    new, _ = play(state, plan(action="precise"), plan(action="cunning"), [8, 8, 8, 1, 9, 1, 9, 1])
    out = R.outcome(new)
    assert out.status == "draw" and out.reason == "both_first_blood"


# --------------------------------------------------------------------------- C7, C22


def test_C22_role_play_text_is_required() -> None:
    state = start()
    reason = rejected(state, "p1", plan(text="  short  "))
    assert reason == Rejection("text_too_short", field="text", length=5, min=10)
    assert R.validate(state, "p1", plan(text="x" * 10)) is None


def test_C22_minimum_length_is_config() -> None:
    state = start({"min_text_length": 0})
    assert R.validate(state, "p1", plan(text="")) is None


def test_C22_text_is_published_in_the_reveal() -> None:
    _, events = play(start(), plan(), plan(text="A feint, then a lunge"), [1, 1, 1, 1])
    reveal = one(events, "reveal")
    assert reveal["plans"]["p1"]["text"] == TEXT
    assert reveal["plans"]["p2"]["text"] == "A feint, then a lunge"


def test_C7_plan_vocabulary_errors_name_the_field() -> None:
    state = start()
    base = R.dump_order(plan())
    assert rejected(state, "p1", {**base, "group": "astral"}) == Rejection(
        "unknown_group", field="group", value="astral", expected="physical, magical, mental"
    )
    assert rejected(state, "p1", {**base, "action": "sneaky"}).code == "unknown_action"
    assert rejected(state, "p1", {**base, "skill": "archery"}) == Rejection(
        "skill_not_on_sheet", field="skill", skill="archery", skills="blade, fire, mind, feint"
    )
    bad_guess = {**base, "guess": {"group": None, "skill": "archery", "action": None}}
    assert rejected(state, "p1", bad_guess) == Rejection(
        "guess_skill_unknown",
        field="guess.skill",
        skill="archery",
        skills="blade, fire, mind, feint",
    )
    assert rejected(state, "p1", {**base, "extra": 1}).code == "invalid_field"


def test_C7_order_json_round_trips() -> None:
    order = plan(second_skill="feint", second_group="mental", soak="magical", restore="magical")
    order = order._replace(guess_group="mental", guess_skill="fire", guess_action="strong")
    assert R.parse_order(start(), "p1", R.dump_order(order)) == order


# --------------------------------------------------------------------------- C8


def test_C8_empty_group_spends_nothing_adds_nothing_and_damage_pool_is_1() -> None:
    state = with_fighter(start(), 0, reserves=(0, 2, 2))
    # p1's pool is blade only: [8] -> 1 + 1 cunning = 2; p2 [1, 1] -> 1; damage pool 1: [9].
    new, events = play(state, plan(), plan(), [8, 1, 1, 9])
    assert one(events, "group_empty", "p1") == {"group": "physical"}
    action = one(events, "action", "p1")
    assert action["group_paid"] is False and action["spent"] == []
    assert action["parts"] == {"accuracy": 0, "skill": 1, "second": 0}
    assert one(events, "damage_check", "p1")["pool"] == 1
    assert new.fighters[1].wounds == 1


def test_C8_empty_group_counts_as_unused_and_may_be_restored() -> None:
    state = with_fighter(start(), 0, reserves=(0, 2, 2))
    order = plan(restore="physical")
    assert R.validate(state, "p1", order) is None
    new, events = play(state, order, plan(), [1, 1, 1])
    assert new.fighters[0].reserves == (1, 2, 2)
    assert one(events, "status", "p1")["restore"]["group"] == "physical"


def test_C8_guess_compares_with_the_named_group_by_default() -> None:
    state = with_fighter(start(), 1, reserves=(0, 2, 2))
    guess = plan(guess_group="physical")
    _, events = play(state, guess, plan(), [1, 1, 1, 1, 1])  # d = 1: p1 wins 2-1
    assert one(events, "action", "p1")["guessed"]["group"] is True
    state = with_fighter(start({"guess_group_compares": "paid"}), 1, reserves=(0, 2, 2))
    _, events = play(state, guess, plan(), [1, 1, 1])
    assert one(events, "action", "p1")["guessed"]["group"] is False


# --------------------------------------------------------------------------- C9, C10


def test_C9_a_skill_may_be_used_with_any_group() -> None:
    state = start()
    order = plan(group="physical", skill="fire")
    assert R.validate(state, "p1", order) is None
    _, events = play(state, order, plan(), [1, 1, 1, 1])
    assert one(events, "action", "p1")["parts"] == {"accuracy": 1, "skill": 1, "second": 0}


def test_C10_second_skill_adds_its_level_and_costs_another_groups_reserve() -> None:
    state = start()
    order = plan(second_skill="feint", second_group="mental")
    new, events = play(state, order, plan(), [1, 1, 1, 1, 1, 1])
    action = one(events, "action", "p1")
    assert action["pool"] == 4 and action["parts"] == {"accuracy": 1, "skill": 1, "second": 2}
    assert action["spent"] == [["physical", "group", 1], ["mental", "second_skill", 1]]
    assert new.fighters[0].reserves[2] == 1


def test_C10_second_skill_rejections() -> None:
    state = start()
    cases = {
        "second_group_same": plan(second_skill="feint", second_group="physical"),
        "second_skill_same": plan(second_skill="blade", second_group="mental"),
        "second_skill_not_usable": plan(second_skill="fire", second_group="mental"),
        "second_incomplete": plan(second_skill="feint"),
    }
    for code, order in cases.items():
        assert rejected(state, "p1", order).code == code, code
    reason = rejected(state, "p1", plan(second_skill="fire", second_group="mental"))
    assert reason.params == {
        "field": "second.skill", "skill": "fire", "group": "mental", "usable": "magical"
    }  # fmt: skip
    empty = with_fighter(state, 0, reserves=(2, 2, 0))
    assert rejected(empty, "p1", plan(second_skill="feint", second_group="mental")) == Rejection(
        "reserve_empty", field="second.group", group="mental"
    )
    assert rejected(state, "p1", plan(second_skill="bow", second_group="mental")) == Rejection(
        "skill_not_on_sheet", field="second.skill", skill="bow", skills="blade, fire, mind, feint"
    )


# --------------------------------------------------------------------------- C11 actions


def test_C11_strong_rerolls_the_lowest_failed_damage_die() -> None:
    state = start()
    # p1 strong [8, 8] = 2; p2 [1, 1] + 1 = 1; damage [5, 3]: reroll the 3 -> 9.
    new, events = play(state, plan(action="strong"), plan(), [8, 8, 1, 1, 5, 3, 9])
    check = one(events, "damage_check", "p1")
    assert check["rerolls"] == [{"index": 1, "old": 3, "new": 9}]
    assert check["faces"] == [5, 9] and check["hits"] == 1
    assert rolls(events, "damage") == [[5, 3]] and rolls(events, "reroll") == [[9]]
    assert new.fighters[1].wounds == 1


def test_C11_strong_has_nothing_to_reroll_when_no_die_failed() -> None:
    _, events = play(start(), plan(action="strong"), plan(), [8, 8, 1, 1, 8, 9])
    assert one(events, "damage_check", "p1")["rerolls"] == []


def test_C11_strong_reroll_target_is_config() -> None:
    state = start({"strong_reroll_target": "first_failed"})
    _, events = play(state, plan(action="strong"), plan(), [8, 8, 1, 1, 5, 3, 1])
    assert one(events, "damage_check", "p1")["rerolls"] == [{"index": 0, "old": 5, "new": 1}]


def test_C11_precise_adds_2_to_lethality() -> None:
    state = start(a=sheet(lethality=1))
    # p1 precise [8, 8] = 2 > 1: damage pool strength 2 + lethality 1 + 2.
    _, events = play(state, plan(action="precise"), plan(), [8, 8, 1, 1, 1, 1, 1, 1, 1])
    check = one(events, "damage_check", "p1")
    assert check["pool"] == 5 and check["parts"] == {"impact": 2, "lethality": 1, "precise": 2}


def test_C11_cunning_adds_one_automatic_success() -> None:
    _, events = play(start(), plan(action="cunning"), plan(action="strong"), [1, 1, 1, 1, 1, 1])
    action = one(events, "action", "p1")
    assert action["raw"] == 0 and action["successes"] == 1
    assert action["steps"] == [{"step": "cunning", "add": 1, "total": 1}]


def test_C11_healing_heals_own_wounds_instead_of_wounding() -> None:
    state = with_fighter(start(), 0, wounds=3)
    new, events = play(state, plan(action="healing"), plan(action="strong"), [8, 8, 1, 1, 8, 9])
    assert one(events, "damage_check", "p1")["effect"] == "heal"
    assert one(events, "healed", "p1") == {"amount": 2, "wounds": 1}
    assert new.fighters[0].wounds == 1 and new.fighters[1].wounds == 0


def test_C11_healing_never_goes_below_zero_wounds() -> None:
    state = with_fighter(start(), 0, wounds=1)
    new, events = play(state, plan(action="healing"), plan(action="strong"), [8, 8, 1, 1, 8, 9])
    assert one(events, "healed", "p1")["amount"] == 1 and new.fighters[0].wounds == 0


def test_C11_defensive_doubles_successes_but_deals_no_damage() -> None:
    new, events = play(start(), plan(action="defensive"), plan(), [8, 1, 1, 1])
    action = one(events, "action", "p1")
    assert action["successes"] == 2 and action["steps"][-1] == {
        "step": "defensive", "mul": 2, "total": 2
    }  # fmt: skip
    assert one(events, "contest")["winner"] == "p1"
    assert one(events, "no_damage", "p1") == {"reason": "defensive"}
    assert rolls(events, "damage") == [] and new.fighters[1].wounds == 0


# --------------------------------------------------------------------------- C12 guessing


def _guessing(config: dict[str, Any], right: int, faces: list[int] | None = None) -> dict[str, Any]:
    """p1 guesses ``right`` of p2's parts (group, skill, action in that order), p2 none;
    p1 cunning [8, 1]; p2 cunning [1, 1]; p1's damage [1, 1]."""
    parts: dict[str, Any] = {}
    if right >= 1:
        parts["guess_group"] = "physical"
    if right >= 2:
        parts["guess_skill"] = "blade"
    if right >= 3:
        parts["guess_action"] = "cunning"
    _, events = play(start(config), plan(**parts), plan(), faces or [8, 1, 1, 1, 1, 1])
    return one(events, "action", "p1")


def test_C12_one_more_right_part_adds_one_success() -> None:
    action = _guessing({}, 1)
    assert action["right"] == 1 and action["diff"] == 1
    assert action["successes"] == 3  # 1 raw + 1 cunning + 1


def test_C12_two_more_right_parts_double_the_successes() -> None:
    action = _guessing({}, 2)
    assert action["diff"] == 2 and action["successes"] == 4  # (1 + 1) x 2


def test_C12_three_more_right_parts_triple_the_successes() -> None:
    action = _guessing({}, 3)
    assert action["guessed"] == {"group": True, "skill": True, "action": True}
    assert action["successes"] == 6  # (1 + 1) x 3


def test_C12_bonuses_do_not_stack_by_default() -> None:
    assert _guessing({}, 2)["steps"] == [
        {"step": "cunning", "add": 1, "total": 2},
        {"step": "guess", "diff": 2, "mul": 2, "total": 4},
    ]
    stacked = _guessing({"guess_bonuses_stack": True}, 2)
    assert stacked["successes"] == 6  # (1 + 1 + 1) x 2


def test_C12_difference_counts_not_the_own_total() -> None:
    guess_all = {"guess_group": "physical", "guess_skill": "blade", "guess_action": "cunning"}
    _, events = play(start(), plan(**guess_all), plan(**guess_all), [8, 1, 8, 1])
    a1, a2 = one(events, "action", "p1"), one(events, "action", "p2")
    assert (a1["right"], a1["diff"], a1["successes"]) == (3, 0, 2)
    assert (a2["right"], a2["diff"]) == (3, 0)


def test_C12_loser_of_the_guessing_gets_nothing() -> None:
    _, events = play(start(), plan(), plan(guess_group="physical"), [8, 1, 8, 1, 1, 1])
    assert one(events, "action", "p1")["diff"] == -1
    assert one(events, "action", "p1")["successes"] == 2


def test_C12_skill_guess_matches_the_primary_skill_only_by_default() -> None:
    p2 = plan(skill="blade", second_skill="feint", second_group="mental")
    p1 = plan(guess_skill="feint")
    faces = [1, 1, 1, 1, 1, 1]
    _, events = play(start(), p1, p2, faces)
    assert one(events, "action", "p1")["guessed"]["skill"] is False
    _, events = play(start({"skill_guess_matches": "either"}), p1, p2, [*faces, 1, 1])
    assert one(events, "action", "p1")["guessed"]["skill"] is True


# --------------------------------------------------------------------------- C13


def test_C13_default_order_is_raw_then_cunning_then_guess_then_defensive() -> None:
    assert _guessing({}, 2)["successes"] == 4  # (1 + 1) x 2
    action = _guessing({"modifier_order": ["guess", "cunning", "defensive"]}, 2)
    assert action["successes"] == 3  # 1 x 2 + 1
    assert [s["step"] for s in action["steps"]] == ["guess", "cunning"]


def test_C13_defensive_doubles_after_the_guessing_bonus() -> None:
    p1 = plan(action="defensive", guess_group="physical")
    _, events = play(start(), p1, plan(), [8, 1, 1, 1])
    assert one(events, "action", "p1")["successes"] == 4  # (1 + 1) x 2
    state = start({"modifier_order": ["defensive", "guess", "cunning"]})
    _, events = play(state, p1, plan(), [8, 1, 1, 1])
    assert one(events, "action", "p1")["successes"] == 3  # 1 x 2 + 1


def test_C13_modifier_order_must_be_a_permutation() -> None:
    with pytest.raises(Rejection) as err:
        R.config({"modifier_order": ["guess", "guess", "cunning"]})
    assert err.value.code == "invalid_field" and err.value.params["field"] == "modifier_order"


# --------------------------------------------------------------------------- C14


def test_C14_winner_rolls_impact_plus_lethality_and_the_loser_takes_the_wounds() -> None:
    state = start(a=sheet(lethality=1))
    new, events = play(state, plan(), plan(), [8, 1, 1, 1, 9, 8, 2])
    contest = one(events, "contest")
    assert contest == {
        "successes": {"p1": 2, "p2": 1}, "tie": False, "winner": "p1", "loser": "p2"
    }  # fmt: skip
    check = one(events, "damage_check", "p1")
    assert check["pool"] == 3 and check["successes"] == 2 and check["target"] == "p2"
    assert one(events, "damage", "p2") == {"by": "p1", "hits": 2, "wounds": 2, "wounds_after": 2}
    assert new.fighters[1].wounds == 2 and new.fighters[0].wounds == 0


def test_C14_damage_pool_uses_the_chosen_groups_impact() -> None:
    state = start(a=sheet(giftedness=4))
    _, events = play(state, plan(group="magical", skill="fire"), plan(), [8, 1, 1, 1, 1, 1, 1, 1])
    assert one(events, "damage_check", "p1")["parts"]["impact"] == 4


def test_C14_lethality_mode_flat_adds_damage_to_a_successful_check() -> None:
    state = start({"lethality_mode": "flat"}, a=sheet(lethality=2))
    new, events = play(state, plan(), plan(), [8, 1, 1, 1, 9, 1])
    check = one(events, "damage_check", "p1")
    assert check["pool"] == 2 and check["successes"] == 1 and check["hits"] == 3
    assert new.fighters[1].wounds == 3


# --------------------------------------------------------------------------- C15


def test_C15_toughness_spends_the_soak_reserve_and_rolls_its_temporary_value() -> None:
    state = start(b=sheet(will=3))
    # p1 wins, damage [9, 8] = 2 hits; p2 soaks with will: 3 -> 2, rolls 2 dice [8, 1].
    new, events = play(state, plan(), plan(soak="mental"), [8, 1, 1, 1, 9, 8, 8, 1])
    assert one(events, "soaked", "p2") == {
        "group": "mental", "reserve": 2, "pool": 2, "hits": 2, "soaked": 1
    }  # fmt: skip
    assert rolls(events, "toughness", "p2") == [[8, 1]]
    assert new.fighters[1].wounds == 1
    # The soak is no "use" of a group (C17): mental (2 of 3) is then restored by the fallback.
    assert one(events, "status", "p2")["restore"]["group"] == "mental"
    assert new.fighters[1].reserves == (1, 2, 3)


def test_C15_toughness_pool_may_be_the_permanent_value() -> None:
    state = start({"toughness_pool": "permanent"}, b=sheet(will=3))
    _, events = play(state, plan(), plan(soak="mental"), [8, 1, 1, 1, 9, 8, 8, 1, 1])
    assert one(events, "soaked", "p2")["pool"] == 3


def test_C15_no_soak_and_no_cost_without_a_damage_success() -> None:
    state = start()
    new, events = play(state, plan(), plan(soak="mental"), [8, 1, 1, 1, 1, 1])
    assert of(events, "soaked") == [] and new.fighters[1].reserves[2] == 2


def test_C15_no_soak_when_the_reserve_is_empty_at_the_hit() -> None:
    state = start(b=sheet(stamina=1))
    # p2 pays its physical group (1 -> 0); its soak with physical then has nothing to spend.
    new, events = play(state, plan(), plan(soak="physical"), [8, 1, 1, 1, 9, 1])
    assert of(events, "soaked") == [] and new.fighters[1].wounds == 1


def test_C15_soak_with_an_already_empty_reserve_is_refused() -> None:
    state = with_fighter(start(), 1, reserves=(2, 2, 0))
    assert rejected(state, "p2", plan(soak="mental")) == Rejection(
        "reserve_empty", field="soak", group="mental"
    )


def test_C15_soak_choice_auto_uses_the_largest_reserve() -> None:
    state = with_fighter(start({"soak_choice": "auto"}), 1, reserves=(2, 1, 2))
    # p2 pays physical (2 -> 1); the largest left is mental (2): 2 -> 1, one die [8].
    _, events = play(state, plan(), plan(), [8, 1, 1, 1, 9, 1, 8])
    assert one(events, "soaked", "p2")["group"] == "mental"


# --------------------------------------------------------------------------- C16


def test_C16_tie_with_strong_both_roll_damage_without_action_effects() -> None:
    state = start()
    # p1 strong [8, 8] = 2; p2 defensive [8, 1] = 1 x 2 = 2: a tie. p1 (attacker) rolls
    # [1, 3]: no reroll in a tie; p2 rolls [8, 9]: defensive deals damage in a tie.
    new, events = play(
        state, plan(action="strong"), plan(action="defensive"), [8, 8, 8, 1, 1, 3, 8, 9]
    )
    assert one(events, "contest")["tie"] is True
    assert one(events, "tie") == {"damage": True, "by": ["p1"], "result": "damage"}
    assert one(events, "damage_check", "p1")["rerolls"] == []
    assert of(events, "no_damage") == []
    assert new.fighters[0].wounds == 2 and new.fighters[1].wounds == 0


def test_C16_tie_with_precise_gets_no_lethality_bonus() -> None:
    state = start()
    _, events = play(
        state, plan(action="precise"), plan(action="cunning"), [8, 8, 8, 1, 1, 1, 1, 1]
    )
    assert one(events, "damage_check", "p1")["pool"] == 2


def test_C16_tie_without_strong_or_precise_deals_no_damage() -> None:
    new, events = play(start(), plan(action="cunning"), plan(action="healing"), [8, 1, 8, 8])
    assert one(events, "tie") == {"damage": False, "by": [], "result": "quiet"}
    assert of(events, "damage_check") == []
    assert new.fighters[0].wounds == new.fighters[1].wounds == 0


def test_C16_action_effects_in_ties_are_config() -> None:
    state = start({"tie_action_effects": True})
    # With effects: p2's defensive deals no damage; p1's strong rerolls its lowest failed die.
    _, events = play(state, plan(action="strong"), plan(action="defensive"), [8, 8, 8, 1, 1, 3, 2])
    assert one(events, "damage_check", "p1")["rerolls"] == [{"index": 0, "old": 1, "new": 2}]
    assert one(events, "no_damage", "p2") == {"reason": "defensive"}


def test_C16_each_may_soak_in_a_tie() -> None:
    state = start()
    _, events = play(
        state,
        plan(action="strong", soak="mental"),
        plan(action="strong", soak="magical"),
        [8, 8, 8, 8, 9, 1, 8, 8, 9, 1],
    )
    # p1's damage [9, 1] hits p2 once: p2 soaks with magical (2 -> 1) rolling [8].
    # p2's damage [8, 9] hits p1 twice: p1 soaks with mental (2 -> 1) rolling [1].
    assert one(events, "soaked", "p2") == {
        "group": "magical", "reserve": 1, "pool": 1, "hits": 1, "soaked": 1
    }  # fmt: skip
    assert one(events, "soaked", "p1") == {
        "group": "mental", "reserve": 1, "pool": 1, "hits": 2, "soaked": 0
    }  # fmt: skip
    assert one(events, "damage", "p1")["wounds"] == 2 and of(events, "damage", "p2") == []


# --------------------------------------------------------------------------- C17


def test_C17_restore_the_chosen_unused_group() -> None:
    state = with_fighter(start(), 0, reserves=(2, 1, 2))
    new, events = play(state, plan(restore="magical"), plan(), [1, 1, 1, 1])
    assert new.fighters[0].reserves == (1, 2, 2)
    assert one(events, "status", "p1")["restore"] == {
        "group": "magical",
        "amount": 1,
        "fallback": False,
    }


def test_C17_restoring_a_used_group_is_refused() -> None:
    state = start()
    assert rejected(state, "p1", plan(restore="physical")) == Rejection(
        "restore_group_used", field="restore", group="physical"
    )
    second = plan(second_skill="feint", second_group="mental", restore="mental")
    assert rejected(state, "p1", second).code == "restore_group_used"


def test_C17_fallback_restores_the_largest_missing_unused_reserve() -> None:
    state = with_fighter(start(), 0, reserves=(2, 0, 1))
    new, events = play(state, plan(), plan(), [1, 1, 1, 1])
    assert one(events, "status", "p1")["restore"] == {
        "group": "magical",
        "amount": 1,
        "fallback": True,
    }
    assert new.fighters[0].reserves == (1, 1, 1)


def test_C17_fallback_can_be_switched_off() -> None:
    state = with_fighter(start({"restore_fallback": "none"}), 0, reserves=(2, 0, 1))
    new, _ = play(state, plan(), plan(), [1, 1, 1, 1])
    assert new.fighters[0].reserves == (1, 0, 1)


# --------------------------------------------------------------------------- C19, C20


def test_C19_status_shows_wounds_and_all_three_reserves_after_the_turn() -> None:
    _, events = play(start(), plan(), plan(), [8, 1, 1, 1, 9, 1])
    assert one(events, "status", "p2") == {
        "restore": {"group": None, "amount": 0, "fallback": True},
        "wounds": 1,
        "reserves": {"physical": 1, "magical": 2, "mental": 2},
        "bled": True,
    }


def test_C20_reveal_lists_both_plans_roles_and_default_flags_first() -> None:
    _, events = play(start(), plan(), plan(action="strong"), [1, 1, 1, 1, 1, 1])
    first = events[0]
    assert first.kind == "reveal" and first.data["turn"] == 1
    assert first.data["plans"]["p2"]["action"] == "strong"
    assert first.data["defaults"] == {"p1": False, "p2": False}
    kinds = [e.kind for e in events]
    assert kinds.index("action") < kinds.index("contest") < kinds.index("damage_check")


def test_C20_every_die_is_recorded_in_order() -> None:
    _, events = play(start(), plan(action="strong"), plan(), [8, 8, 1, 1, 5, 3, 9])
    from engine.dice import faces_of

    assert faces_of(events) == [8, 8, 1, 1, 5, 3, 9]


# --------------------------------------------------------------------------- C21


def test_C21_turn_cap_ends_in_a_draw() -> None:
    state = start({"turn_cap": 1})
    new, events = play(state, plan(), plan(), [1, 1, 1, 1])
    out = R.outcome(new)
    assert out.status == "draw" and out.reason == "turn_cap"
    assert one(events, "end")["reason"] == "turn_cap"


def test_C21_default_turn_cap_is_20() -> None:
    assert R.config().turn_cap == 20


# --------------------------------------------------------------------------- default plan


def test_default_order_first_group_with_reserve_best_skill_defensive_no_guesses() -> None:
    state = with_fighter(start(), 0, reserves=(0, 2, 1))
    order = R.default_order(state, "p1")
    assert order.group == "magical" and order.skill == "feint" and order.action == "defensive"
    assert order.auto and order.text == "" and order.guess_group is None
    assert order.soak == "magical"  # largest left after paying magical (2 -> 1; first on ties)
    assert R.validate(state, "p1", order) is None


def test_default_order_is_config() -> None:
    state = start({"default_plan": {"action": "cunning", "soak": "none"}})
    order = R.default_order(state, "p1")
    assert order.action == "cunning" and order.soak is None


def test_missing_order_uses_the_default_and_is_flagged() -> None:
    from engine.dice import ScriptedDice, TurnLog
    from engine.ruleset import Sealed

    state = start()
    log = TurnLog(ScriptedDice([1, 1, 1, 1, 1, 1, 1]))  # p2's default pool: 1 + feint 2
    R.resolve(state, R.with_defaults(state, {"p1": Sealed(plan())}), log)
    reveal = one(log.events, "reveal")
    assert reveal["defaults"] == {"p1": False, "p2": True}
    assert reveal["plans"]["p2"]["auto"] is True


def test_presets_fight() -> None:
    state = start(a=PRESETS["fencer"], b=PRESETS["mentalist"])
    assert state.fighters[0].sheet.name == "Fencer"
