"""Rulebook audit of ``plans`` (docs/rules/plans.md, C1-C22): one small scripted-dice case
per situation not already pinned by ``test_plans.py``, named by rule id.

Sheets are plain (``test_plans_helpers.sheet``): accuracy 1, impact 2, reserve 2 in every group;
physical + blade is a pool of 2 dice. Dice order in a turn: p1's action pool, p2's, then each
damage check (the winner's; in a tie the attacker's first) with its strong reroll and the
target's toughness roll right after it.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

from engine.dice import ScriptedDice, TurnLog
from engine.probability import distribution
from engine.ruleset import Sealed
from tests.rules.test_plans_helpers import R, of, one, plan, play, rolls, sheet, start, with_fighter


def test_C4_initiative_tie_without_rerolls_goes_to_seat_order() -> None:
    state = start({"initiative_rerolls": 0}, initiative=(4, 4))
    assert state.attacker == "p1" and state.initiative == (("p1", 7), ("p2", 7))


def test_C8_C10_empty_group_with_a_paid_second_skill() -> None:
    # p1's physical reserve is 0: the group adds nothing and costs nothing, feint (paid with
    # mental) still adds 2; the damage pool is 1 + lethality 1 (C14); the empty group may be
    # restored, the second skill's group may not (C17).
    state = with_fighter(start(a=sheet(lethality=1)), 0, reserves=(0, 2, 2))
    second = {"second_skill": "feint", "second_group": "mental"}
    refused = R.validate(state, "p1", plan(**second, restore="mental"))
    assert refused is not None and refused.code == "restore_group_used"
    order = plan(**second, restore="physical")
    # p1 [8, 1, 1] = 1 + 1 cunning = 2; p2 [1, 1] = 1; p1's damage [9, 1] = 1 wound.
    new, events = play(state, order, plan(), [8, 1, 1, 1, 1, 9, 1])
    action = one(events, "action", "p1")
    assert action["parts"] == {"accuracy": 0, "skill": 1, "second": 2}
    assert action["spent"] == [["mental", "second_skill", 1]]
    check = one(events, "damage_check", "p1")
    assert check["pool"] == 2 and check["parts"] == {"impact": 1, "lethality": 1, "precise": 0}
    assert new.fighters[1].wounds == 1
    assert new.fighters[0].reserves == (1, 2, 1)


def test_C11_healing_winner_spends_nothing_of_the_loser_and_draws_no_blood() -> None:
    state = with_fighter(start({"end_condition": "first_blood"}), 0, wounds=2)
    # p1 healing [8, 8] = 2 beats p2 [1, 1] + 1 = 1; damage [9, 9] heals p1's 2 wounds; p2's
    # planned soak never happens (nothing hit p2), so its will stays at 2.
    new, events = play(state, plan(action="healing"), plan(soak="mental"), [8, 8, 1, 1, 9, 9])
    assert one(events, "healed", "p1") == {"amount": 2, "wounds": 0}
    assert of(events, "soaked") == [] and rolls(events, "toughness") == []
    assert new.fighters[1].reserves[2] == 2 and not new.fighters[1].bled
    assert not R.outcome(new).finished


def test_C15_soak_with_the_last_point_rolls_no_dice_but_spends_it() -> None:
    # DEFAULT pool: the reserve's temporary value after paying, here 1 - 1 = 0 dice.
    state = start(b=sheet(will=1))
    new, events = play(state, plan(), plan(soak="mental"), [8, 1, 1, 1, 9, 8])
    assert one(events, "soaked", "p2") == {
        "group": "mental", "reserve": 0, "pool": 0, "hits": 2, "soaked": 0
    }  # fmt: skip
    assert rolls(events, "toughness", "p2") == [[]]
    assert new.fighters[1].wounds == 2
    assert new.fighters[1].reserves == (1, 2, 1)  # the C17 fallback refills will


def test_C16_a_tie_at_zero_with_strong_still_deals_damage_both_ways() -> None:
    # p1 strong [1, 1] = 0; p2 defensive [1, 1] = 0 x 2 = 0: a tie with strong. Both roll damage,
    # attacker (p1) first: [9, 1] hits p2 once; p2's [1, 1] misses.
    new, events = play(
        start(), plan(action="strong"), plan(action="defensive"), [1, 1, 1, 1, 9, 1, 1, 1]
    )
    assert one(events, "tie") == {"damage": True, "by": ["p1"], "result": "damage"}
    assert [e.actor for e in events if e.kind == "damage_check"] == ["p1", "p2"]
    assert new.fighters[1].wounds == 1 and new.fighters[0].wounds == 0


def test_C16_tie_with_action_effects_healing_heals_after_the_attackers_damage() -> None:
    state = with_fighter(start({"tie_action_effects": True}), 1, wounds=2)
    # p1 precise [8, 8] = 2, p2 healing [8, 8] = 2. p1 (attacker) first, with +2 lethality:
    # pool 4 [9, 1, 1, 1] wounds p2 once (2 -> 3); p2's [9, 9] then heals 2 (3 -> 1).
    new, events = play(
        state,
        plan(action="precise"),
        plan(action="healing"),
        [8, 8, 8, 8, 9, 1, 1, 1, 9, 9],
    )
    assert one(events, "damage_check", "p1")["pool"] == 4
    assert one(events, "healed", "p2") == {"amount": 2, "wounds": 1}
    assert new.fighters[1].wounds == 1


def test_C17_fallback_skips_a_used_group_even_when_it_misses_the_most() -> None:
    # Physical (stamina 4) is used and misses 3 after paying; magical misses 1: magical.
    state = with_fighter(start(a=sheet(stamina=4)), 0, reserves=(2, 1, 2))
    new, events = play(state, plan(), plan(), [1, 1, 1, 1])
    assert one(events, "status", "p1")["restore"] == {
        "group": "magical",
        "amount": 1,
        "fallback": True,
    }
    assert new.fighters[0].reserves == (1, 2, 2)


def test_C18_C21_incapacitation_on_the_last_turn_is_a_win_not_a_draw() -> None:
    state = with_fighter(start({"turn_cap": 1}), 1, wounds=4)
    new, events = play(state, plan(), plan(), [8, 1, 1, 1, 9, 1])
    out = R.outcome(new)
    assert (out.status, out.winners, out.reason) == ("win", ("p1",), "incapacitation")
    assert one(events, "end")["reason"] == "incapacitation"


def test_C12_C13_preview_is_exact_with_a_non_default_pipeline() -> None:
    """Every face pair of p1's 2-die pool resolved for real, with success on 6+, stacking
    guess bonuses, guess before cunning and d = 2: the final successes are distributed exactly
    as the preview (C8-C13) says."""
    config = {
        "success_target": 6,
        "guess_bonuses_stack": True,
        "modifier_order": ["guess", "cunning", "defensive"],
    }
    state = start(config)
    order = plan(action="cunning", guess_group="physical", guess_skill="blade")
    preview = R.preview(state, "p1", order, guess_diff=2)
    assert preview.steps == (("add", 1), ("mul", 2), ("add", 1))
    counts: dict[int, int] = {}
    for faces in itertools.product(range(1, 11), repeat=2):
        log = TurnLog(ScriptedDice([*faces, 10, 10, *([1] * 8)]))
        R.resolve(state, {"p1": Sealed(order), "p2": Sealed(plan(action="strong"))}, log)
        action = one(log.events, "action", "p1")
        assert action["diff"] == 2
        counts[action["successes"]] = counts.get(action["successes"], 0) + 1
    exact = distribution(2, 6, 10, preview.steps)
    assert {k: Fraction(v, 100) for k, v in counts.items()} == exact


def test_C11_C14_precise_in_flat_lethality_mode_adds_two_flat_damage() -> None:
    state = start({"lethality_mode": "flat"}, a=sheet(lethality=1))
    # p1 precise [8, 8] = 2 beats 1; the damage pool is strength 2 alone: [9, 1] = 1 success,
    # plus lethality 1 + 2 as flat damage = 4 wounds.
    new, events = play(state, plan(action="precise"), plan(), [8, 8, 1, 1, 9, 1])
    check = one(events, "damage_check", "p1")
    assert (check["pool"], check["successes"], check["hits"]) == (2, 1, 4)
    assert new.fighters[1].wounds == 4


def test_C22_text_longer_than_the_limit_is_refused() -> None:
    state = start({"max_text_length": 20})
    reason = R.validate(state, "p1", plan(text="x" * 21))
    assert reason is not None and reason.code == "text_too_long"
    assert reason.params == {"field": "text", "length": 21, "max": 20}
    assert R.validate(state, "p1", plan(text="x" * 20)) is None
