"""Rulebook cases for ``dragons``: one small scripted-dice case per situation of the spec
(``shared/rules/dragon-dogfight.md``), in the manner of diplomacy's DATC tests. Each test is
named by the rule it checks; the cases here are the corners ``test_dragons.py`` does not cover
(several of them were divergences, fixed with the test)."""

from __future__ import annotations

from engine.ruleset import Sealed
from engine.rulesets.dragons import initiative
from tests.rules.test_dragons import R, attack, make, of, play, put, restat, two

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
