"""Rulebook cases for ``dragons``: one small scripted-dice case per situation of the spec
(``docs/rules/dragons.md``), in the manner of diplomacy's DATC tests. Each test is
named by the rule it checks; the cases here are the corners ``test_dragons.py`` does not cover
(several of them were divergences, fixed with the test)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine.errors import Rejection
from engine.ruleset import Sealed
from engine.rulesets.dragons import attack_check, initiative
from engine.savage import range_band
from tests.rules.test_dragons import R, attack, make, of, play, put, rejects, restat, two

TAIL = {"type": "tail", "target": "b"}


# --------------------------------------------------------------------------- order of action


def test_D8_a_consumed_dragon_counts_as_a_gm_character_sealing_last() -> None:
    # D34: the consumed dragon's orders come from the GM, so D8 ranks it with the GM's
    # characters (sealed last, in listing order), even when the GM sealed it first.
    state = make(("n1", "y"), ("a", "x"), ("b", "z"), npc=("n1",), consumed_attacks_nearest=False)
    state = put(state, "a", consumed=True)
    seqs = {"a": 1, "b": 2, "n1": 3}
    orders = {p: Sealed(R.default_order(state, p), seq=s) for p, s in seqs.items()}
    assert initiative(state, orders) == ["b", "n1", "a"]
    _, events = play(state, {"a": {}, "b": {}, "n1": {}}, [], seqs)
    assert of(events, "initiative")[0].data["order"] == ["b", "n1", "a"]


# --------------------------------------------------------------------------- tailing


def test_D26_D27_a_pursuer_copies_a_forced_speed_up_stopped_at_top_speed() -> None:
    # b is forced to speed up (+2) but stops at its Top Speed 10 (+1): the pursuer copies
    # the movement b made (+1), not the +2 asked, and stays on the tail.
    state = put(put(two(), "a", tail_of="b", speed=9), "b", speed=9)
    force = {"type": "force", "choice": "up", "raise_choice": None}
    new, events = play(state, {"a": {"actions": [force]}, "b": {}}, [7, 1, 3, 2])
    assert new.dragon("b").speed == 10
    assert new.dragon("a").speed == 10 and new.dragon("a").tail_of == "b"
    (copied,) = [e for e in of(events, "move") if e.data.get("copied_from") == "b"]
    assert (copied.data["move"], copied.data["n"]) == ("level", 1)
    assert not of(events, "tail_broken")


# --------------------------------------------------------------------------- falling


def test_D29_a_critical_failure_on_a_manoeuvre_starts_falling() -> None:
    force = {"type": "force", "choice": "up", "raise_choice": None}
    cases = [
        # (state, orders, faller): the initiator's crit (tail, force, break) ...
        (two(), {"a": {"actions": [TAIL]}}, "a"),
        (put(two(), "a", tail_of="b"), {"a": {"actions": [force]}, "b": {}}, "a"),
        (put(two(), "a", tail_of="b"), {"a": {}, "b": {"actions": [{"type": "break"}]}}, "b"),
    ]
    for state, orders, faller in cases:
        new, events = play(state, orders, [1, 1, 3, 2])  # crit (double 1) against 3
        (fall,) = of(events, "fall")
        assert fall.actor == faller and fall.data["reason"] == "manoeuvre_crit", orders
        assert new.dragon(faller).falling
        assert new.dragon("a").tail_of is None  # falling ends every tail (D29 -> D26)
    # ... and the defender's: b evades with a crit, falls, and regains control at its own
    # activation (its first roll at -0, D32).
    new, events = play(two(), {"a": {"actions": [TAIL]}}, [6, 2, 1, 1, 4, 2])
    (fall,) = of(events, "fall")
    assert fall.actor == "b" and fall.data["reason"] == "manoeuvre_crit"
    assert new.dragon("a").tail_of is None and of(events, "regain")
    # Option off: a crit is only a lost contest.
    new, events = play(two(manoeuvre_crit_falls=False), {"a": {"actions": [TAIL]}}, [1, 1, 3, 2])
    assert not of(events, "fall") and not new.dragon("a").falling


def test_D29_the_manoeuvre_rolls_are_the_six_piloting_rolls_of_the_contests() -> None:
    # DEFAULT: "a manoeuvre" (D29) is a Piloting roll of tailing, forcing or breaking the
    # tail, on either side of the contest. The defenders' crits (the initiators' are above):
    assert R.config({}).manoeuvre_rolls == (
        "tail", "tail_defence", "force", "force_defence", "break", "break_defence"
    )  # fmt: skip
    force = {"type": "force", "choice": "up", "raise_choice": None}
    on_tail = put(two(), "a", tail_of="b")
    # force_defence: a (7 - 2) beats b's crit; b falls, and its activation is the fall (the
    # forced move is void, D32).
    new, events = play(on_tail, {"a": {"actions": [force]}, "b": {}}, [7, 2, 1, 1, 2, 1])
    assert of(events, "force") and [e.actor for e in of(events, "fall")] == ["b"]
    assert not of(events, "move") and new.dragon("b").falling
    # break_defence: b (7 - 2) breaks free; a's crit makes it fall.
    new, events = play(on_tail, {"a": {}, "b": {"actions": [{"type": "break"}]}}, [7, 2, 1, 1])
    assert [e.actor for e in of(events, "fall")] == ["a"] and new.dragon("a").falling
    # Only the listed rolls: with ("tail",), a target's crit falls only if it attempted the
    # tail too (D25: one contest, its own attempt), not when it merely evades.
    only_tail = two(manoeuvre_rolls=["tail"])
    new, events = play(only_tail, {"a": {"actions": [TAIL]}}, [7, 2, 1, 1])
    assert not of(events, "fall") and new.dragon("a").tail_of == "b"
    mutual = {"a": {"actions": [TAIL]}, "b": {"actions": [{"type": "tail", "target": "a"}]}}
    new, events = play(only_tail, mutual, [7, 2, 1, 1, 2, 1])
    assert [e.actor for e in of(events, "fall")] == ["b"] and new.dragon("b").falling


def test_D29_no_other_roll_is_a_manoeuvre() -> None:
    # An attack's crit (a miss), a Shaken dragon's Spirit crit (still Shaken): no fall.
    new, events = play(put(two(), "a", altitude=11), {"a": {"actions": [attack("breath", "b")]}},
                       [1, 1])  # fmt: skip
    assert of(events, "miss") and not of(events, "fall")
    new, events = play(put(two(), "a", shaken=True), {}, [1, 1])
    assert new.dragon("a").shaken and not of(events, "fall")
    # The dangerous roll's crit is a failure: the fall is for the dangerous manoeuvre (D33).
    new, events = play(two(), {"a": {"aerobatics": "loop"}}, [1, 1])
    assert [e.data["reason"] for e in of(events, "fall")] == ["dangerous"]


def test_D29_decision_16_an_extra_does_not_crit_on_a_manoeuvre() -> None:
    # Decision 16: an Extra's 1 is only a failure where a crit has no effect of its own...
    state = put(two(), "a", wild_card=False)
    new, events = play(state, {"a": {"actions": [TAIL]}}, [1, 3, 2])  # no confirmation d6
    assert not of(events, "fall") and not new.dragon("a").falling


def test_D33_decision_16_32_an_extra_confirms_a_dangerous_crit_when_it_matters() -> None:
    # ... and with the decision 32 option a dangerous manoeuvre's crit does have one (lose
    # Altitude): the Extra's 1 is confirmed by a d6 (1: crit).
    state = put(two(dangerous_crit_altitude_loss=1), "a", wild_card=False)
    new, events = play(state, {"a": {"aerobatics": "loop"}}, [1, 1])
    (danger,) = of(events, "dangerous")
    assert danger.data["roll"]["confirm"] == 1 and danger.data["roll"]["result"] == "crit_fail"
    assert new.dragon("a").altitude == 9 and new.dragon("a").falling
    new, events = play(state, {"a": {"aerobatics": "loop"}}, [1, 2])  # not confirmed
    assert of(events, "dangerous")[0].data["roll"]["result"] == "fail"
    assert new.dragon("a").altitude == 10 and new.dragon("a").falling  # a plain failure
    # Option off (the default): no confirmation die, a 1 is a plain failure.
    state = put(two(), "a", wild_card=False)
    new, events = play(state, {"a": {"aerobatics": "loop"}}, [1])
    assert of(events, "dangerous")[0].data["roll"]["confirm"] is None
    assert new.dragon("a").falling


# --------------------------------------------------------------------------- takeover


def test_D34_a_pilot_consumed_by_a_power_crit_loses_the_rest_of_the_orders() -> None:
    # From the failed Spirit roll on, the GM (or the dragon) gives the orders: the pilot's
    # attack declared after the power does not happen.
    state = restat(put(two(), "a", altitude=11), "a", arcane="d8")
    orders = {"a": {"actions": [{"type": "power", "text": "storm"}, attack("breath", "b")]}}
    new, events = play(state, orders, [1, 1, 1, 2])  # power crit; Spirit 2 fails
    assert of(events, "takeover") and new.dragon("a").consumed
    assert not of(events, "attack")
    (imp,) = of(events, "impossible")
    assert imp.data["action"] == 1 and imp.data["reason"] == "disabled"


# --------------------------------------------------------------------------- rulebook corners


def test_D3_swd_editions_still_cap_actions_at_three() -> None:
    four = {"actions": [TAIL, {"type": "break"}, attack("breath", "b"), attack("claws", "b")]}
    for edition in ("SWD2011", "SWD2015"):
        assert rejects(two(edition=edition), "a", four).params["limit"] == 3


def test_D8_a_player_who_sent_nothing_comes_after_the_sealers_before_gm_characters() -> None:
    state = make(("n1", "y"), ("a", "x"), ("b", "x"), npc=("n1",))
    orders = {p: Sealed(R.default_order(state, p), seq=s) for p, s in (("a", 5), ("n1", 1))}
    assert initiative(state, orders) == ["a", "b", "n1"]


def test_D14_a_climb_to_exactly_speed_0_is_legal_and_falls() -> None:
    state = put(two(), "a", speed=3)
    new, events = play(state, {"a": {"move": "climb", "n": 1}}, [])
    a = new.dragon("a")
    assert (a.speed, a.altitude, a.falling) == (0, 11, True)
    assert of(events, "fall")[0].data["reason"] == "speed_zero"


def test_D14_a_climb_that_wounds_made_unpayable_clamps_at_0_and_falls() -> None:
    # a sealed climb 2 at Speed 7 (legal); b (higher, acts first) wounds it: Speed 5 < 6.
    # The documented reading: Speed stops at 0, the climb's Altitude is gained, a falls.
    breath = {"name": "breath", "damage": "3d6", "range": [25, 50, 100]}
    state = restat(put(put(two(), "a", speed=7), "b", speed=7, altitude=11), "b", weapons=[breath])
    orders = {"a": {"move": "climb", "n": 2}, "b": {"actions": [attack("breath", "a")]}}
    # b hits (6-2), 12 damage: 1 wound (-2 Speed); a's Spirit 5-1 recovers; a climbs.
    new, _ = play(state, orders, [6, 2, 5, 5, 2, 5, 1])
    a = new.dragon("a")
    assert (a.wounds, a.speed, a.altitude, a.falling) == (1, 0, 12, True)


def test_D15_above_top_speed_level_flight_may_keep_or_lose_speed_and_a_dive_is_dangerous() -> None:
    state = put(two(), "a", speed=12)  # e.g. after a dive (Top Speed 10)
    assert rejects(state, "a", {"n": 1}) == Rejection("above_top_speed", speed=13, top_speed=10)
    R.check_order(state, "a", {"n": 0})
    R.check_order(state, "a", {"n": -1})
    new, events = play(state, {"a": {"move": "dive", "n": 1}}, [5, 2])
    assert of(events, "dangerous")[0].data["reasons"] == ["over_top_speed"]
    assert new.dragon("a").speed == 14 and not new.dragon("a").falling


def test_D16_a_shaken_dragon_still_flies_its_level_order() -> None:
    state = put(two(), "a", shaken=True)
    new, events = play(state, {"a": {"n": 2}}, [2, 1])  # Spirit fails: still Shaken
    assert new.dragon("a").shaken and new.dragon("a").speed == 7
    (move,) = [e for e in of(events, "move") if e.actor == "a"]
    assert not move.data["converted"]


def test_D19_D20_band_limits_long_and_beyond() -> None:
    state = put(two(), "a", altitude=11)
    for speed, rng, band in ((5, 50, "medium"), (10, 100, "long"), (11, 110, None)):
        check = attack_check(put(state, "b", speed=speed), "a", "breath", "b")
        assert (check.range, check.band, check.possible) == (rng, band, band is not None)


def test_D19_a_pursuer_fires_at_range_5_even_when_wounds_split_the_speeds() -> None:
    state = put(put(two(), "a", tail_of="b"), "b", speed=3)
    check = attack_check(state, "a", "breath", "b")
    assert (check.possible, check.range, check.band) == (True, 5, "short")


def test_decision_21_extreme_band_only_when_enabled_and_only_in_swade() -> None:
    far = {"altitude": 13}  # Range 150: beyond Long 100, within 4 x Long
    swade = attack_check(put(two(extreme_range=True), "a", **far), "a", "breath", "b")
    assert (swade.possible, swade.band, swade.penalty) == (True, "extreme", -8)
    swd = attack_check(put(two(extreme_range=True, edition="SWD2011"), "a", **far), "a",
                       "breath", "b")  # fmt: skip
    assert (swd.possible, swd.reason) == (False, "out_of_range")


def test_D21_parry_of_an_unskilled_pilot_is_2_and_a_falling_target_can_be_hit() -> None:
    state = restat(put(two(), "b", falling=True), "b", fighting=None)
    assert attack_check(state, "a", "claws", "b").tn == 2
    # a misses (1 - wild 1 is a crit); b's activation is then its fall (1 Altitude, regain).
    new, events = play(state, {"a": {"actions": [attack("claws", "b")]}}, [1, 1, 2, 1])
    assert of(events, "attack")[0].data["roll"]["tn"] == 2 and of(events, "miss")
    assert new.dragon("b").altitude == 9


def test_D22_decision_10_shaken_on_shaken_is_a_wound_for_a_wild_card() -> None:
    state = put(put(two(), "a", altitude=11), "b", shaken=True)
    # Hit 6-2 = 4; damage 8 vs 8: a plain success on a Shaken dragon -> 1 wound (-2 Speed);
    # b's Spirit at -1 then recovers.
    new, events = play(state, {"a": {"actions": [attack("breath", "b")]}}, [6, 2, 4, 4, 5, 1])
    assert of(events, "damage")[0].data["wounds"] == 1 and not of(events, "shaken")
    b = new.dragon("b")
    assert (b.wounds, b.speed) == (1, 3)


def test_D24_decision_14_a_shaken_extra_shaken_again_retreats() -> None:
    state = put(put(two(), "a", altitude=11), "b", shaken=True, wild_card=False)
    new, events = play(state, {"a": {"actions": [attack("breath", "b")]}}, [6, 2, 4, 4])
    assert new.dragon("b").status == "left"
    assert of(events, "out")[0].data["reason"] == "extra_retreats"


def test_D24_non_cumulative_speed_loss_option() -> None:
    state = restat(
        put(put(two(cumulative_speed_loss=False), "a", altitude=11, speed=8), "b", speed=8),
        "b", toughness=4, armor=0,
    )  # fmt: skip
    dice = [7, 2, 6, 2, 4, 1, 5, 2, 2]  # as test_D24_two_wounds_at_once...: 0 -> 2 wounds
    new, _ = play(state, {"a": {"actions": [attack("breath", "b")]}}, dice)
    assert new.dragon("b").speed == 8 - 3


def test_decision_11_wound_penalty_stays_at_minus_3_beyond_three_wounds() -> None:
    state = put(two(out_at_wounds=6), "a", wounds=5)
    _, events = play(state, {"a": {"actions": [TAIL]}}, [6, 2, 2, 1])  # 6 - 3: b evades
    assert of(events, "evade")[0].data["contest"]["initiator"]["modifiers"] == [["wounds", -3]]


def test_D25_unskilled_piloting_is_d4_minus_2_with_the_wild_die() -> None:
    state = restat(two(), "a", piloting=None)
    _, events = play(state, {"a": {"actions": [TAIL]}}, [3, 5, 2, 1])
    roll = of(events, "evade")[0].data["contest"]["initiator"]
    assert (roll["die"], roll["unskilled"], roll["wild_faces"], roll["total"]) == (
        "d4",
        True,
        [5],
        3,
    )
    assert roll["modifiers"] == [["unskilled", -2]]


def test_D26_two_pursuers_both_copy_and_a_shaken_one_cannot_climb() -> None:
    state = make(("a", "x"), ("c", "x"), ("b", "y"))
    state = put(put(state, "a", tail_of="b"), "c", tail_of="b")
    assert rejects(state, "b", {"actions": [attack("claws", "a")]}).code == "cannot_attack_pursuer"
    new, _ = play(state, {"b": {"move": "dive", "n": 1}}, [])
    assert {(d.speed, d.altitude, d.tail_of) for d in new.dragons} == {(7, 9, "b"), (7, 9, None)}
    # c is Shaken (and stays so): it cannot copy b's climb, so its tail breaks (D16, D28).
    state = put(state, "c", shaken=True)
    new, events = play(state, {"b": {"move": "climb", "n": 1}, "a": {}, "c": {}}, [2, 1])
    assert new.dragon("a").tail_of == "b" and new.dragon("c").tail_of is None
    assert (new.dragon("c").speed, new.dragon("c").altitude) == (5, 10)
    assert of(events, "tail_broken")[0].data["reason"] == "shaken"


def test_D27_a_forced_dive_above_top_speed_is_dangerous_for_victim_and_pursuer() -> None:
    state = put(put(two(), "a", tail_of="b", speed=9), "b", speed=9)
    force = {"type": "force", "choice": "up", "raise_choice": "dive"}
    # a: 8 aces +3 = 11 - 2 = 9 beats b's 3 by 6 (a raise): b dives 1 to Speed 11.
    dice = [8, 3, 1, 3, 2, 5, 2, 5, 2]
    new, events = play(state, {"a": {"actions": [force]}, "b": {}}, dice)
    assert [e.actor for e in of(events, "dangerous")] == ["b", "a"]
    a, b = new.dragon("a"), new.dragon("b")
    assert (b.speed, b.altitude) == (11, 9) == (a.speed, a.altitude) and a.tail_of == "b"


def test_D27_a_gm_pursuer_never_seals_before_a_player_victim() -> None:
    state = put(make(("n1", "y"), ("b", "x"), npc=("n1",)), "n1", tail_of="b")
    force = {"type": "force", "choice": "up", "raise_choice": None}
    _, events = play(state, {"n1": {"actions": [force]}, "b": {}}, [])
    assert of(events, "impossible")[0].data["reason"] == "sealed_after_victim"


def test_D28_breaking_one_named_pursuer_of_two() -> None:
    state = make(("a", "x"), ("c", "x"), ("b", "y"))
    state = put(put(state, "a", tail_of="b"), "c", tail_of="b")
    brk = {"type": "break", "target": "c"}
    new, events = play(state, {"b": {"actions": [brk]}, "a": {}, "c": {}}, [7, 3, 2, 1])
    assert new.dragon("c").tail_of is None and new.dragon("a").tail_of == "b"
    assert of(events, "tail_broken")[0].actor == "c"


def test_D30_falling_speed_above_top_speed_is_no_dangerous_manoeuvre() -> None:
    state = put(two(), "a", falling=True, speed=9)
    new, events = play(state, {}, [7, 1])  # -2 Altitude, Speed 13; regains control
    assert new.dragon("a").speed == 13 and not of(events, "dangerous")


def test_D31_exactly_10_below_leaves_9_below_stays() -> None:
    base = put(two(), "b", altitude=20)
    new, _ = play(put(base, "a", falling=True, altitude=11), {}, [])  # falls to 10
    assert new.dragon("a").status == "left"
    new, _ = play(put(base, "a", falling=True, altitude=12), {}, [2, 1])  # to 11
    assert new.dragon("a").status == "in" and new.dragon("a").falling


def test_D31_with_every_dragon_falling_it_measures_from_the_last_steady_one() -> None:
    # DEFAULT (all_falling_floor "last_steady"): b falls (to 1; a, steady at 10, is the
    # reference: 9 below) and fails to regain control; then a's climb to Speed 0 makes it
    # fall at Altitude 11. Nobody is steady now: D31 measures from 11, where a last flew
    # steady, so b (10 below it) leaves and a's side wins. It used to find nobody to measure
    # from: nobody left, and the falls went on for ever (the turn cap of random battles).
    state = put(put(two(), "b", falling=True, altitude=2), "a", speed=3)
    new, events = play(state, {"a": {"move": "climb", "n": 1}}, [2, 1])
    assert new.floor == 11 and new.dragon("a").falling
    (out,) = of(events, "out")
    assert (out.actor, out.data["reason"], new.dragon("b").status) == ("b", "fell_too_far", "left")
    assert (R.outcome(new).status, R.outcome(new).winners) == ("win", ("a",))
    # Option "none": nobody is removed while every dragon falls (the old reading).
    state = put(put(two(all_falling_floor="none"), "b", falling=True, altitude=2), "a", speed=3)
    new, events = play(state, {"a": {"move": "climb", "n": 1}}, [2, 1])
    assert not of(events, "out") and not R.outcome(new).finished


def test_D31_every_falling_dragon_past_the_floor_leaves_nobody_a_draw() -> None:
    # Both fall past the remembered floor (11 - 10 = 1) in the same turn, each at its own
    # activation (D10): nobody is left (D35), a draw.
    state = replace(put(put(two(), "a", falling=True, altitude=2), "b", falling=True,
                        altitude=2), floor=11)  # fmt: skip
    new, events = play(state, {}, [])
    assert [(e.actor, e.data["reason"]) for e in of(events, "out")] == [
        ("a", "fell_too_far"), ("b", "fell_too_far")
    ]  # fmt: skip
    out = R.outcome(new)
    assert (out.status, out.reason) == ("draw", "no_one_left")
    # The floor survives saving (a state saved without it loads as None).
    dumped = R.dump_state(state)
    assert R.load_state(dumped).floor == 11
    assert R.load_state({k: v for k, v in dumped.items() if k != "floor"}).floor is None


def test_D31_a_state_with_no_remembered_floor_measures_from_the_highest_faller() -> None:
    # Every dragon falls and the state has no floor (saved before the DEFAULT): the best
    # placed falling dragon stands in for the last steady one (a, at 12 - 1 = 11).
    state = put(put(two(), "a", falling=True, altitude=12), "b", falling=True, altitude=2)
    new, _ = play(state, {}, [2, 1])  # a fails to regain control; b falls to 1
    assert new.dragon("b").status == "left" and new.floor == 11


def test_D32_regain_control_adds_wound_penalties() -> None:
    state = put(two(), "a", falling=True, fall_turns=1, wounds=2)
    new, events = play(state, {}, [7, 1])
    roll = of(events, "regain")[0].data["roll"]
    assert roll["modifiers"] == [["wounds", -2], ["falling", -1]] and roll["total"] == 4
    assert not new.dragon("a").falling


def test_D34_D35_a_consumed_dragon_is_a_foe_of_its_side_and_never_a_winner() -> None:
    state = make(("a", "x"), ("c", "x"), ("b", "y"))
    state = put(put(state, "c", consumed=True), "a", altitude=11)
    assert R.check_order(state, "a", {"actions": [attack("breath", "c")]})  # no longer an ally
    gone_b = put(state, "b", status="dead")
    assert not R.outcome(gone_b).finished  # side x and the dragon c
    out = R.outcome(put(gone_b, "c", status="dead"))
    assert (out.status, out.winners) == ("win", ("a",))
    out = R.outcome(put(gone_b, "a", status="dead"))
    assert (out.status, out.reason) == ("draw", "dragon_remains")


def test_D26_a_chain_of_tails_moves_as_one() -> None:
    # a is on b's tail, b on c's: b copies c's movement, so a copies it too (it copies b).
    state = make(("a", "x"), ("b", "y"), ("c", "x"))
    state = put(put(state, "a", tail_of="b"), "b", tail_of="c")
    new, events = play(state, {"c": {"move": "dive", "n": 1}}, [])
    assert {(d.pid, d.speed, d.altitude) for d in new.dragons} == {
        ("a", 7, 9), ("b", 7, 9), ("c", 7, 9)
    }  # fmt: skip
    copies = [(e.actor, e.data["copied_from"]) for e in of(events, "move") if e.actor != "c"]
    assert copies == [("b", "c"), ("a", "b")]
    assert (new.dragon("a").tail_of, new.dragon("b").tail_of) == ("b", "c")


def test_D27_a_victim_on_a_tail_of_its_own_cannot_be_forced() -> None:
    # a on b, b on c: b moves as c moves (D26), so a's force on b could never be applied. It
    # used to roll the contest and report a success that changed nothing.
    state = make(("a", "x"), ("b", "y"), ("c", "x"))
    state = put(put(state, "a", tail_of="b"), "b", tail_of="c")
    force = {"type": "force", "choice": "up", "raise_choice": None}
    seqs = {"a": 1, "b": 2, "c": 3}
    new, events = play(state, {"a": {"actions": [force]}, "b": {}, "c": {}}, [], seqs)
    (imp,) = of(events, "impossible")
    assert (imp.actor, imp.data["reason"]) == ("a", "victim_on_tail")
    assert not of(events, "force") and not of(events, "roll")
    assert new.dragon("a").tail_of == "b" and new.dragon("b").tail_of == "c"


def test_D25_a_victim_that_gets_on_its_pursuers_tail_shakes_it_off() -> None:
    # b is on a's tail; a wins a tail attempt on b: the winner ends up right behind the loser
    # (D25), so b is off a's tail, and the reveal says so.
    state = put(two(), "b", tail_of="a")
    new, events = play(state, {"a": {"actions": [TAIL]}, "b": {}}, [7, 2, 3, 2])
    assert (new.dragon("a").tail_of, new.dragon("b").tail_of) == ("b", None)
    assert [e.kind for e in events if e.kind in ("tail", "tail_broken")] == ["tail", "tail_broken"]
    (broken,) = of(events, "tail_broken")
    assert (broken.actor, broken.data) == ("b", {"victim": "a", "reason": "circle"})


def test_D26_DEFAULT_a_tail_closing_a_circle_of_three_ends_the_tail_on_the_new_pursuer() -> None:
    # a on b, b on c (three sides, one position); c gets on a's tail. A circle a -> b -> c -> a
    # would never move (D26: each copies a victim that sends no movement). DEFAULT
    # (tail_circles "newest_stands"): as D25 does for two, the newest tail stands and the tail
    # on the new pursuer ends: b is off c's tail. b now leads: c copies a, which copies b.
    state = make(("a", "x"), ("b", "y"), ("c", "z"))
    state = put(put(state, "a", tail_of="b"), "b", tail_of="c")
    orders = {"a": {}, "b": {}, "c": {"actions": [{"type": "tail", "target": "a"}]}}
    new, events = play(state, orders, [7, 2, 3, 2])  # c 7 beats a 3
    assert [(d.pid, d.tail_of) for d in new.dragons] == [("a", "b"), ("b", None), ("c", "a")]
    (broken,) = of(events, "tail_broken")
    assert (broken.actor, broken.data) == ("b", {"victim": "c", "reason": "circle"})
    new, _ = play(new, {"a": {}, "b": {"move": "dive", "n": 1}, "c": {}}, [])
    assert {(d.speed, d.altitude) for d in new.dragons} == {(7, 9)}
    # Option "allowed": the circle holds and none of the three ever moves.
    state = make(("a", "x"), ("b", "y"), ("c", "z"), tail_circles="allowed")
    state = put(put(state, "a", tail_of="b"), "b", tail_of="c")
    new, events = play(state, orders, [7, 2, 3, 2])
    assert [d.tail_of for d in new.dragons] == ["b", "c", "a"] and not of(events, "tail_broken")
    assert rejects(new, "b", {"move": "dive", "n": 1}).code == "pursuer_copies_victim"
    new, _ = play(new, {"a": {}, "b": {}, "c": {}}, [])
    assert {(d.speed, d.altitude) for d in new.dragons} == {(5, 10)}


def test_D35_a_battle_of_one_side_is_refused_at_setup() -> None:
    # With every dragon on one side the battle would be won before turn 1 (D35).
    with pytest.raises(Rejection) as refused:
        make(("a", "x"), ("b", "x"))
    assert (refused.value.code, refused.value.params) == ("one_side", {"side": "x"})
    assert R.outcome(make(("a", "x"), ("b", "y"))).status == "running"


@pytest.mark.parametrize("extreme", [False, True])
def test_decision_21_resolution_bands_equal_savage_range_band(extreme: bool) -> None:
    """The attack geometry inlines ``savage.range_band`` for speed; every range from point
    blank to past 4 x Long must get the band and penalty the core function gives."""
    base = two(extreme_range=extreme)
    bands = base.stats["a"].weapon("breath").bands
    assert bands is not None
    seen = set()
    states = [put(base, "a", tail_of="b")]  # D19: Range 5 on a tail (the short band)
    for altitude in range(11, 30):
        states += [put(put(base, "a", altitude=altitude), "b", speed=s) for s in range(25)]
    for state in states:
        check = attack_check(state, "a", "breath", "b")
        want = range_band(check.range, bands, penalties=base.config.band_penalties, extreme=extreme)
        got = None if check.band is None else (check.band, check.penalty)
        assert got == want, check.range
        seen.add(got[0] if got else None)
    assert seen == {"short", "medium", "long", None} | ({"extreme"} if extreme else set())
