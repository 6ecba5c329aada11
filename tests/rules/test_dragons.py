"""Rule tests for the ``dragons`` ruleset, one or more per rule id D1-D36 (scripted dice)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import pytest

from engine.dice import ScriptedDice, TurnLog
from engine.errors import Rejection
from engine.events import Event
from engine.ruleset import Entrant, Sealed
from engine.rulesets.dragons import (
    RULESET,
    DragonsState,
    attack_check,
    distance,
    fall_loss,
    initiative,
    movement_options,
    nearest_target,
    parse_typed,
    sky_chart,
)

R = RULESET

BASE: dict[str, Any] = {
    "name": "T",
    "wild_card": True,
    "piloting": "d8",
    "fighting": "d8",
    "shooting": "d8",
    "spirit": "d6",
    "top_speed": 10,
    "toughness": 8,
    "armor": 2,
    "strength": "d8",
    "weapons": [
        {"name": "breath", "damage": "2d6", "range": [25, 50, 100]},
        {"name": "claws", "melee": True, "damage": "str+d6"},
    ],
    "speed": 5,
    "altitude": 10,
}


def sheet(**over: Any) -> dict[str, Any]:
    return {**BASE, **over}


def make(*dragons: tuple[str, str], npc: Sequence[str] = (), **config: Any) -> DragonsState:
    """Dragons (pid, side) with the BASE sheet at Speed 5, Altitude 10."""
    cfg = R.config(config)
    ents = [Entrant(pid, side, sheet(), npc=pid in npc) for pid, side in dragons]
    return R.setup(cfg, ents, TurnLog(ScriptedDice([])))


def two(**config: Any) -> DragonsState:
    return make(("a", "x"), ("b", "y"), **config)


def put(state: DragonsState, pid: str, **changes: Any) -> DragonsState:
    return replace(
        state, dragons=tuple(replace(d, **changes) if d.pid == pid else d for d in state.dragons)
    )


def restat(state: DragonsState, pid: str, **over: Any) -> DragonsState:
    from engine.rulesets.dragons import CharacterSpec, build_stats

    spec = CharacterSpec.model_validate(sheet(**over))
    return replace(state, stats={**state.stats, pid: build_stats(spec)})


def play(
    state: DragonsState,
    orders: Mapping[str, Mapping[str, Any]],
    dice: Sequence[int],
    seqs: Mapping[str, int] | None = None,
) -> tuple[DragonsState, list[Event]]:
    sealed = {
        pid: Sealed(R.check_order(state, pid, raw), seq=(seqs or {}).get(pid, i + 1))
        for i, (pid, raw) in enumerate(orders.items())
    }
    src = ScriptedDice(dice)
    log = TurnLog(src)
    new = R.resolve(state, sealed, log)
    assert src.remaining == 0, f"{src.remaining} scripted faces unused"
    return new, list(log.events)


def of(events: Sequence[Event], kind: str) -> list[Event]:
    return [e for e in events if e.kind == kind]


def rejects(state: DragonsState, pid: str, raw: Mapping[str, Any]) -> Rejection:
    with pytest.raises(Rejection) as exc:
        R.check_order(state, pid, raw)
    return exc.value


def attack(weapon: str, target: str) -> dict[str, Any]:
    return {"type": "attack", "weapon": weapon, "target": target}


# --------------------------------------------------------------------------- participants


def test_D1_stat_blocks_validated_with_specific_reasons() -> None:
    cfg = R.config({})
    R.check_character(cfg, sheet())

    def weapon(**w: Any) -> dict[str, Any]:
        return sheet(weapons=[{"name": "b", **w}])

    claws = BASE["weapons"][1]
    cases = [
        (sheet(piloting="d7"), "bad_die", "piloting"),
        (sheet(armor=9), "armor_exceeds_toughness", None),
        (sheet(speed=11), "speed_above_top_speed", None),
        (weapon(damage="2d6"), "ranged_weapon_needs_range", "weapons.0.range"),
        (weapon(damage="2x6", melee=True), "bad_damage", "weapons.0.damage"),
        (weapon(damage="d6", range=[50, 25, 100]), "bad_range_bands", "weapons.0.range"),
        (weapon(damage="str", range=[1, 2, 3]), "ranged_damage_uses_strength", "weapons.0.damage"),
        (sheet(weapons=[claws, claws]), "duplicate_weapon", "weapons.1.name"),
        (sheet(top_speed=0), "invalid_field", "top_speed"),
        (sheet(weapons=[]), "invalid_field", "weapons"),
    ]
    for raw, code, where in cases:
        with pytest.raises(Rejection) as exc:
            R.check_character(cfg, raw)
        assert exc.value.code == code, raw
        if where is not None:
            assert exc.value.params["field"] == where


def test_D1_sides_decide_friend_and_foe() -> None:
    state = make(("a", "x"), ("b", "x"), ("c", "y"))
    state = put(state, "a", altitude=11)
    assert rejects(state, "a", {"actions": [attack("breath", "b")]}).code == "target_is_ally"
    assert R.check_order(state, "a", {"actions": [attack("breath", "c")]})


def test_D1_wild_card_rolls_the_wild_die_extra_does_not() -> None:
    state = put(put(make(("a", "x"), ("b", "y")), "a", altitude=11), "b", wild_card=False)
    state = put(state, "b", altitude=12)
    # b (Extra, higher) shoots a first with one die; a shoots nothing back (below).
    _, events = play(state, {"b": {"actions": [attack("breath", "a")]}}, [2])
    (atk,) = of(events, "attack")
    assert atk.data["roll"]["wild_faces"] == [] and atk.data["roll"]["trait_faces"] == [2]


def test_D2_presets_young_and_war_dragon_with_pilots() -> None:
    cfg = R.config({})
    presets = R.presets(cfg)
    assert {"young", "war"} <= set(presets)
    for raw in presets.values():
        spec = R.check_character(cfg, raw)
        assert spec.piloting and spec.weapons
    assert presets["young"]["weapons"][0]["range"] == [25, 50, 100]  # D20 DEFAULT bands


# --------------------------------------------------------------------------- turn structure


def test_D3_multi_action_penalty_on_every_action_and_at_most_three() -> None:
    state = put(two(), "a", altitude=11)
    too_many = {
        "actions": [
            attack("breath", "b"),
            attack("claws", "b"),
            {"type": "tail", "target": "b"},
            {"type": "break"},
        ]
    }
    assert rejects(state, "a", too_many) == Rejection("too_many_actions", count=4, limit=3)
    # breath at range 50 (medium -2) with two declared actions (-2): 7 -> 3, a miss.
    _, events = play(
        state, {"a": {"actions": [attack("breath", "b"), attack("claws", "b")]}}, [7, 2]
    )
    (atk,) = of(events, "attack")
    assert atk.data["roll"]["modifiers"] == [["multi_action", -2], ["range", -2]]
    assert atk.data["roll"]["total"] == 3
    # Decision 6: the impossible melee attack still counted for the penalty.
    (imp,) = of(events, "impossible")
    assert imp.data["reason"] == "not_same_altitude"


def test_D4_sealing_order_is_recorded_and_breaks_ties() -> None:
    state = two()
    orders = {pid: Sealed(R.default_order(state, pid), seq=s) for pid, s in (("a", 2), ("b", 1))}
    assert initiative(state, orders) == ["b", "a"]


# --------------------------------------------------------------------------- position


def test_D5_lowest_dragon_starts_at_altitude_10() -> None:
    cfg = R.config({})
    ents = [Entrant("a", "x", sheet(altitude=100)), Entrant("b", "y", sheet(altitude=103))]
    state = R.setup(cfg, ents, TurnLog(ScriptedDice([])))
    assert [d.altitude for d in state.dragons] == [10, 13]


def test_D6_position_is_only_speed_and_altitude() -> None:
    state = put(two(), "b", speed=8, altitude=12)
    a, b = state.dragons
    assert distance(state.config, a, b) == 10 * 3 + 50 * 2
    view = R.view(state)
    assert {"speed", "altitude"} <= set(view["dragons"][0])
    assert not {"x", "y", "position"} & set(view["dragons"][0])


# --------------------------------------------------------------------------- order of action


def test_D7_higher_speed_acts_first() -> None:
    state = put(two(), "b", speed=7)
    assert initiative(state, {}) == ["b", "a"]


def test_D8_altitude_then_sealing_then_npcs_and_extras_last_in_listing_order() -> None:
    state = make(("n1", "y"), ("e", "y"), ("a", "x"), ("b", "x"), npc=("n1",))
    state = put(state, "e", wild_card=False)
    seqs = {"a": 5, "b": 3, "n1": 1, "e": 2}
    orders = {p: Sealed(R.default_order(state, p), seq=s) for p, s in seqs.items()}
    assert initiative(state, orders) == ["b", "a", "n1", "e"]
    state = put(state, "a", altitude=11)
    assert initiative(state, orders)[0] == "a"


def test_D9_forcing_lands_before_the_victim_moves() -> None:
    state = put(two(), "a", tail_of="b")
    force = {"type": "force", "choice": "down", "raise_choice": None}
    new, events = play(state, {"a": {"actions": [force]}, "b": {"n": 2}}, [7, 1, 3, 2])
    assert [e.actor for e in of(events, "activation")] == ["a", "b"]
    assert new.dragon("b").speed == 4 and new.dragon("a").speed == 4  # forced -1, copied


def test_D10_activation_is_movement_then_actions_checked_at_that_moment() -> None:
    state = two()
    # a climbs first (Speed 5 -> 2, Altitude 11), then is above b: Range 30 + 50 = 80, long.
    _, events = play(
        state, {"a": {"move": "climb", "n": 1, "actions": [attack("breath", "b")]}}, [7, 1]
    )
    kinds = [e.kind for e in events if e.actor == "a" and e.kind != "roll"]
    assert kinds[:3] == ["activation", "move", "attack"]
    (atk,) = of(events, "attack")
    assert atk.data["range"] == 80 and atk.data["band"] == "long"
    assert ["range", -4] in atk.data["roll"]["modifiers"]


# --------------------------------------------------------------------------- movement


def test_D11_level_flight_changes_speed_by_minus_1_to_plus_2() -> None:
    state = two()
    assert rejects(state, "a", {"move": "level", "n": 3}) == Rejection(
        "bad_speed_change", value=3, min=-1, max=2
    )
    assert rejects(state, "a", {"move": "level", "n": -2}).code == "bad_speed_change"
    new, _ = play(state, {"a": {"n": 2}, "b": {"n": -1}}, [])
    assert (new.dragon("a").speed, new.dragon("b").speed) == (7, 4)


def test_D12_climbing_costs_3_speed_per_unit() -> None:
    state = put(two(), "a", speed=8)
    new, _ = play(state, {"a": {"move": "climb", "n": 2}}, [])
    assert (new.dragon("a").speed, new.dragon("a").altitude) == (2, 12)


def test_D13_diving_gains_2_speed_per_unit() -> None:
    new, _ = play(two(), {"a": {"move": "dive", "n": 2}}, [])
    assert (new.dragon("a").speed, new.dragon("a").altitude) == (9, 8)


def test_D14_a_climb_below_zero_is_refused_and_speed_zero_falls() -> None:
    state = two()
    reason = rejects(state, "a", {"move": "climb", "n": 2})
    assert reason == Rejection("climb_too_steep", climb=2, speed=5, cost=6, max_climb=1)
    state = put(state, "a", speed=1)
    new, events = play(state, {"a": {"n": -1}}, [])
    (fall,) = of(events, "fall")
    assert fall.actor == "a" and fall.data["reason"] == "speed_zero"
    assert new.dragon("a").falling and new.dragon("a").speed == 0


def test_D15_level_flight_cannot_exceed_top_speed_but_a_dive_can_dangerously() -> None:
    state = put(two(), "a", speed=9)
    assert rejects(state, "a", {"n": 2}) == Rejection("above_top_speed", speed=11, top_speed=10)
    new, events = play(state, {"a": {"move": "dive", "n": 1}}, [5, 1])
    (danger,) = of(events, "dangerous")
    assert danger.data["reasons"] == ["over_top_speed"]
    assert new.dragon("a").speed == 11 and not new.dragon("a").falling


def test_D16_shaken_dragon_cannot_change_altitude() -> None:
    state = put(two(), "a", shaken=True)
    new, events = play(
        state, {"a": {"move": "climb", "n": 1, "actions": [attack("claws", "b")]}}, [2, 2]
    )
    (move,) = [e for e in of(events, "move") if e.actor == "a"]
    assert move.data["converted"] and move.data["move"] == "level" and move.data["n"] == 0
    assert new.dragon("a").altitude == 10 and new.dragon("a").speed == 5
    assert of(events, "actions_void")[0].data["reason"] == "shaken"


# --------------------------------------------------------------------------- attacks


def test_D17_one_attack_per_weapon_per_turn() -> None:
    state = put(two(), "a", altitude=11)
    raw = {"actions": [attack("breath", "b"), attack("breath", "b")]}
    assert rejects(state, "a", raw).code == "weapon_used_twice"
    assert rejects(state, "a", {"actions": [attack("tailgun", "b")]}).code == "no_such_weapon"


def test_D18_ranged_only_from_above_or_on_the_tail() -> None:
    _, events = play(two(), {"a": {"actions": [attack("breath", "b")]}}, [])
    assert of(events, "impossible")[0].data["reason"] == "not_above_or_on_tail"
    below = put(two(), "a", altitude=9)
    _, events = play(below, {"a": {"actions": [attack("breath", "b")]}}, [])
    assert of(events, "impossible")[0].data["reason"] == "not_above_or_on_tail"


def test_D19_range_formula_and_pursuer_range_5() -> None:
    state = put(two(), "b", speed=7, altitude=12)
    a, b = state.dragons
    assert distance(state.config, a, b) == 120
    assert distance(state.config, a, a) == 5
    check = attack_check(state, "b", "breath", "a")
    assert (check.possible, check.range, check.band) == (False, 120, None)
    tailing = put(two(), "a", tail_of="b")
    check = attack_check(tailing, "a", "breath", "b")
    assert (check.possible, check.range, check.band, check.penalty) == (True, 5, "short", 0)


def test_D20_band_penalties_and_beyond_long() -> None:
    state = put(two(), "a", altitude=11)
    check = attack_check(state, "a", "breath", "b")
    assert (check.band, check.penalty) == ("medium", -2)
    far = put(two(), "a", altitude=13)
    _, events = play(far, {"a": {"actions": [attack("breath", "b")]}}, [])
    imp = of(events, "impossible")[0]
    assert imp.data["reason"] == "out_of_range" and imp.data["range"] == 150


def test_D21_melee_at_same_altitude_vs_parry_any_speed() -> None:
    state = put(two(), "a", speed=7)
    _, events = play(state, {"a": {"actions": [attack("claws", "b")]}}, [6, 2, 3, 2])
    (atk,) = of(events, "attack")
    assert atk.data["roll"]["tn"] == 6  # Parry 2 + d8/2
    assert atk.data["melee"] and of(events, "hit")
    (dmg,) = of(events, "damage")
    assert [d["sides"] for d in dmg.data["roll"]["dice"]] == [8, 6]  # Strength d8 + d6
    strict = put(two(melee_requires_range_5=True), "a", speed=7)
    _, events = play(strict, {"a": {"actions": [attack("claws", "b")]}}, [])
    assert of(events, "impossible")[0].data["reason"] == "not_adjacent"


def test_D21_gang_up_decision_23() -> None:
    state = make(("a", "x"), ("c", "x"), ("b", "y"))
    state = put(state, "a", speed=7)
    _, events = play(state, {"a": {"actions": [attack("claws", "b")]}}, [3, 2], {"a": 1})
    (atk,) = of(events, "attack")
    assert ["gang_up", 1] in atk.data["roll"]["modifiers"]


def test_D22_damage_success_shaken_raise_adds_d6_and_wounds() -> None:
    state = put(two(), "a", altitude=11)
    new, events = play(state, {"a": {"actions": [attack("breath", "b")]}}, [7, 3, 5, 4, 2, 3])
    (dmg,) = of(events, "damage")
    assert dmg.data["roll"]["total"] == 9 and dmg.data["excess"] == 1
    assert of(events, "shaken") and new.dragon("b").shaken and new.dragon("b").wounds == 0
    # 8 aces: 13 - 2 = 11, one raise: 2d6 + d6 = 14 vs 8 -> 1 wound.
    new, events = play(state, {"a": {"actions": [attack("breath", "b")]}}, [8, 5, 1, 5, 5, 4, 5, 1])
    (dmg,) = of(events, "damage")
    assert dmg.data["roll"]["raise_die"] == [4] and dmg.data["wounds"] == 1
    assert new.dragon("b").wounds == 1


def test_D22_ap_lowers_armour() -> None:
    state = put(
        restat(
            two(),
            "a",
            weapons=[{"name": "breath", "damage": "2d6", "ap": 2, "range": [25, 50, 100]}],
        ),
        "a",
        altitude=11,
    )
    _, events = play(state, {"a": {"actions": [attack("breath", "b")]}}, [7, 3, 3, 3, 2, 3])
    assert of(events, "damage")[0].data["excess"] == 0  # 6 vs Toughness 8 - 2 AP


# --------------------------------------------------------------------------- wounds


def test_D23_shaken_recovers_with_spirit_and_then_acts() -> None:
    state = put(put(two(), "a", shaken=True), "a", altitude=11)
    new, events = play(state, {"a": {"actions": [attack("breath", "b")]}}, [5, 1, 2, 1])
    (rec,) = of(events, "recover")
    assert rec.data["recovered"] and rec.data["may_act"]
    assert of(events, "attack") and not new.dragon("a").shaken


def test_D23_swd2011_recovery_without_raise_loses_the_actions() -> None:
    state = put(put(two(edition="SWD2011"), "a", shaken=True), "a", altitude=11)
    _, events = play(state, {"a": {"actions": [attack("breath", "b")]}}, [5, 1])
    assert of(events, "recover")[0].data["may_act"] is False
    assert of(events, "actions_void") and not of(events, "attack")


def test_D24_extra_leaves_at_one_wound() -> None:
    state = put(put(two(), "a", altitude=11), "b", wild_card=False)
    new, events = play(state, {"a": {"actions": [attack("breath", "b")]}}, [8, 5, 1, 5, 5, 4])
    assert new.dragon("b").status == "left"
    assert of(events, "out")[0].data["reason"] == "extra_retreats"


def test_D24_extra_falls_dead_in_the_blue_at_two_wounds_or_fell_over_ground() -> None:
    for terrain, status in (("blue", "dead"), ("ground", "fell")):
        state = restat(
            put(put(two(terrain=terrain), "a", altitude=11), "b", wild_card=False),
            "b",
            toughness=4,
            armor=0,
        )
        new, events = play(state, {"a": {"actions": [attack("breath", "b")]}}, [7, 2, 6, 2, 4])
        assert new.dragon("b").status == status
        assert of(events, "out")[0].data["fate"] == ("dead" if terrain == "blue" else "gm")


def test_D24_wild_card_one_wound_loses_2_speed_and_minus_1() -> None:
    state = put(two(), "a", altitude=11)
    new, events = play(state, {"a": {"actions": [attack("breath", "b")]}}, [8, 5, 1, 5, 5, 4, 5, 1])
    assert new.dragon("b").speed == 3
    (rec,) = of(events, "recover")
    assert rec.data["roll"]["modifiers"] == [["wounds", -1]]


def test_D24_two_wounds_at_once_cumulative_speed_loss_and_weapon_breakage() -> None:
    state = restat(
        put(put(two(), "a", altitude=11, speed=8), "b", speed=8), "b", toughness=4, armor=0
    )
    dice = [7, 2, 6, 2, 4, 1, 5, 2, 2]  # hit, 12 dmg; breakage d6: breath 1, claws 5; Spirit
    new, events = play(state, {"a": {"actions": [attack("breath", "b")]}}, dice)
    b = new.dragon("b")
    assert b.wounds == 2 and b.speed == 8 - 2 - 3
    assert b.broken == ("breath",)
    assert [e.data["weapon"] for e in of(events, "weapon_broken")] == ["breath"]
    assert rejects(new, "b", {"actions": [attack("breath", "a")]}).code == "weapon_broken"


def test_D24_three_wounds_altitude_fall_breakage_and_spirit_or_takeover() -> None:
    state = restat(put(put(two(), "a", altitude=11), "b", wounds=2), "b", toughness=4, armor=0)
    # hit [7,2]; damage 9 -> 1 wound (3rd); breakage [3,5]; Spirit [2,1] -3 fails;
    # b then falls (Speed 5: 1 Altitude) and tries to regain control [3,2] at -3.
    dice = [7, 2, 5, 4, 3, 5, 2, 1, 3, 2]
    new, events = play(state, {"a": {"actions": [attack("breath", "b")]}}, dice)
    b = new.dragon("b")
    assert b.wounds == 3 and b.falling and b.consumed
    assert b.altitude == 10 - 1 - 1 and b.broken == ("breath",)
    assert of(events, "fall")[0].data["reason"] == "third_wound"
    assert of(events, "spirit")[0].data["roll"]["modifiers"] == [["wounds", -3]]
    assert of(events, "takeover")
    assert "b" not in R.acting(new)  # D34: no orders from its player any more


def test_D24_four_wounds_out_of_the_battle() -> None:
    state = restat(put(put(two(), "a", altitude=11), "b", wounds=3), "b", toughness=4, armor=0)
    new, events = play(state, {"a": {"actions": [attack("breath", "b")]}}, [7, 2, 5, 4])
    assert new.dragon("b").status == "out"
    assert of(events, "out")[0].data == {"reason": "incapacitated", "status": "out", "fate": "dead"}
    assert R.outcome(new).winners == ("a",)


# --------------------------------------------------------------------------- tailing


def test_D25_tail_attempt_is_an_opposed_piloting_roll() -> None:
    new, events = play(two(), {"a": {"actions": [{"type": "tail", "target": "b"}]}}, [6, 2, 3, 1])
    assert new.dragon("a").tail_of == "b"
    assert of(events, "tail")[0].data["victim"] == "b"


def test_D25_ties_go_to_the_defender_who_evades() -> None:
    new, events = play(two(), {"a": {"actions": [{"type": "tail", "target": "b"}]}}, [5, 1, 5, 2])
    assert new.dragon("a").tail_of is None and of(events, "evade")


def test_D25_both_attempt_the_winner_ends_behind() -> None:
    orders = {
        "a": {"actions": [{"type": "tail", "target": "b"}]},
        "b": {"actions": [{"type": "tail", "target": "a"}]},
    }
    new, events = play(two(), orders, [2, 1, 6, 3])  # one contest decides both
    assert new.dragon("b").tail_of == "a" and new.dragon("a").tail_of is None
    assert of(events, "tail")[0].data["mutual"]


def test_D25_needs_same_speed_and_altitude() -> None:
    state = put(two(), "b", speed=6)
    _, events = play(state, {"a": {"actions": [{"type": "tail", "target": "b"}]}}, [])
    assert of(events, "impossible")[0].data["reason"] == "not_same_position"


def test_D26_pursuer_copies_movement_fires_at_5_and_cannot_be_attacked() -> None:
    state = put(two(), "a", tail_of="b")
    assert rejects(state, "a", {"n": 1}) == Rejection("pursuer_copies_victim", victim="b")
    assert rejects(state, "b", {"actions": [attack("breath", "a")]}).code == "cannot_attack_pursuer"
    orders = {"a": {"actions": [attack("breath", "b")]}, "b": {"move": "climb", "n": 1}}
    new, events = play(state, orders, [5, 2, 1, 1])
    (atk,) = of(events, "attack")
    assert atk.data["range"] == 5 and atk.data["band"] == "short"
    copied = [e for e in of(events, "move") if e.data.get("copied_from") == "b"]
    assert copied and copied[0].actor == "a"
    assert (
        (new.dragon("a").speed, new.dragon("a").altitude)
        == (2, 11)
        == (
            new.dragon("b").speed,
            new.dragon("b").altitude,
        )
    )


def test_D27_forcing_win_speed_raise_altitude() -> None:
    state = put(two(), "a", tail_of="b")
    force = {"type": "force", "choice": "up", "raise_choice": "climb"}
    new, events = play(state, {"a": {"actions": [force]}, "b": {"n": -1}}, [7, 1, 3, 2])
    assert of(events, "force")[0].data["choice"] == "up"
    assert new.dragon("b").speed == 7 and new.dragon("a").speed == 7
    new, events = play(state, {"a": {"actions": [force]}, "b": {"n": -1}}, [8, 4, 1, 2, 1])
    assert of(events, "force")[0].data["choice"] == "climb"
    assert (new.dragon("b").speed, new.dragon("b").altitude) == (2, 11)


def test_D27_forcing_only_if_the_pursuer_sealed_first() -> None:
    state = put(two(), "a", tail_of="b")
    force = {"type": "force", "choice": "up", "raise_choice": None}
    _, events = play(state, {"a": {"actions": [force]}, "b": {}}, [], {"a": 2, "b": 1})
    assert of(events, "impossible")[0].data["reason"] == "sealed_after_victim"
    assert rejects(two(), "a", {"actions": [force]}).code == "not_on_tail"


def test_D28_breaking_the_tail_by_contest_at_minus_2() -> None:
    state = put(two(), "a", tail_of="b")
    new, events = play(state, {"b": {"actions": [{"type": "break"}]}, "a": {}}, [7, 3, 2, 1])
    assert new.dragon("a").tail_of is None
    (broken,) = of(events, "tail_broken")
    assert broken.data["reason"] == "contest"
    assert ["break_tail", -2] in broken.data["contest"]["initiator"]["modifiers"]


def test_D28_breaking_the_tail_by_a_manoeuvre_the_pursuer_cannot_make() -> None:
    state = restat(put(two(), "a", tail_of="b"), "a", top_speed=6)
    new, events = play(state, {"b": {"n": 2}}, [])
    assert new.dragon("a").tail_of is None and new.dragon("a").speed == 5
    assert of(events, "tail_broken")[0].data["reason"] == "above_top_speed"


# --------------------------------------------------------------------------- falling


def test_D29_failed_dangerous_manoeuvre_starts_falling() -> None:
    new, events = play(two(), {"a": {"aerobatics": "barrel roll"}}, [2, 1])
    assert new.dragon("a").falling and of(events, "fall")[0].data["reason"] == "dangerous"


def test_D30_altitude_lost_per_turn_of_falling() -> None:
    cfg = R.config({})
    assert [fall_loss(cfg, s) for s in (0, 5, 6, 10, 11, 15, 16)] == [1, 1, 2, 2, 3, 3, 4]
    state = put(two(), "a", falling=True, speed=7)
    new, events = play(state, {}, [3, 2])
    a = new.dragon("a")
    assert (a.altitude, a.speed) == (8, 11)  # -2 Altitude, +4 Speed (diving rule)
    assert of(events, "falling")[0].data["lost"] == 2


def test_D31_ten_below_the_lowest_steady_dragon() -> None:
    for wild_card, status in ((True, "left"), (False, "dead")):
        state = put(put(two(), "a", falling=True, wild_card=wild_card), "b", altitude=20)
        new, events = play(state, {}, [])
        assert new.dragon("a").status == status
        assert of(events, "out")[0].data["reason"] == "fell_too_far"


def test_D32_regain_control_penalty_is_turns_already_falling() -> None:
    state = put(two(), "a", falling=True, fall_turns=2)
    new, events = play(state, {"a": {"n": 2, "actions": [attack("claws", "b")]}}, [7, 1])
    (regain,) = of(events, "regain")
    assert regain.data["roll"]["modifiers"] == [["falling", -2]] and regain.data["success"]
    assert not new.dragon("a").falling
    assert not of(events, "attack") and not [e for e in of(events, "move") if e.actor == "a"]
    first = put(two(), "a", falling=True)
    _, events = play(first, {}, [1, 3])
    assert of(events, "regain")[0].data["roll"]["modifiers"] == []  # first roll at -0


# --------------------------------------------------------------------------- dangerous manoeuvres


def test_D33_aerobatics_roll_and_the_pursuer_copies_it() -> None:
    state = put(two(), "a", tail_of="b")
    # b rolls [5,2], a copies and fails [1,2], then a's own activation is the fall [2,1].
    new, events = play(
        state, {"b": {"aerobatics": "loop"}, "a": {}}, [5, 2, 1, 2, 2, 1], {"b": 1, "a": 2}
    )
    assert [e.actor for e in of(events, "dangerous")] == ["b", "a"]
    assert new.dragon("a").falling and new.dragon("a").tail_of is None
    assert not new.dragon("b").falling


# --------------------------------------------------------------------------- takeover and powers


def test_D34_consumed_dragon_attacks_the_nearest_target() -> None:
    state = make(("a", "x"), ("b", "x"), ("c", "y"))
    state = put(
        put(put(state, "b", consumed=True, altitude=12), "a", altitude=11), "c", altitude=30
    )
    assert nearest_target(state, "b") == "a"
    assert "b" not in R.acting(state)
    _, events = play(state, {}, [3, 2])
    (atk,) = of(events, "attack")
    assert atk.actor == "b" and atk.data["target"] == "a"  # its own former ally


def test_D34a_power_roll_and_crit_fail_triggers_the_spirit_roll() -> None:
    state = restat(two(), "a", arcane="d8")
    assert (
        rejects(two(), "a", {"actions": [{"type": "power", "text": "x"}]}).code == "no_arcane_skill"
    )
    new, events = play(
        state, {"a": {"actions": [{"type": "power", "text": "storm"}]}}, [1, 1, 4, 2]
    )
    assert of(events, "power")[0].data["roll"]["result"] == "crit_fail"
    assert of(events, "spirit")[0].data["reason"] == "power_crit"
    assert not new.dragon("a").consumed


# --------------------------------------------------------------------------- victory and output


def test_D35_victory_when_one_side_remains_and_optional_turn_limit() -> None:
    state = make(("a", "x"), ("c", "x"), ("b", "y"))
    assert not R.outcome(state).finished
    done = put(state, "b", status="dead")
    out = R.outcome(done)
    assert out.status == "win" and out.winners == ("a", "c")
    capped = replace(make(("a", "x"), ("b", "y"), turn_limit=3), turn=4)
    assert R.outcome(capped).status == "draw" and R.outcome(capped).reason == "turn_limit"


def test_D36_reveal_events_and_sky_chart() -> None:
    state = put(two(), "a", altitude=11)
    new, events = play(state, {"a": {"actions": [attack("breath", "b")]}}, [7, 3, 5, 4, 2, 3])
    init = of(events, "initiative")[0]
    assert init.data["order"] == ["a", "b"]
    assert [e.actor for e in of(events, "activation")] == ["a", "b"]
    roll = of(events, "attack")[0].data["roll"]
    assert {"trait_faces", "wild_faces", "modifiers", "total", "tn", "result", "raises"} <= set(
        roll
    )
    status = of(events, "status")[0].data["dragons"]
    assert {d["pid"]: d["shaken"] for d in status} == {"a": False, "b": True}
    chart = sky_chart(new)
    assert "A a [x] S5 H11" in chart and "B b [y] S5 H10 shaken" in chart
    assert chart.splitlines()[1].startswith("11 │")


# --------------------------------------------------------------------------- helpers for the bot


def test_movement_options_give_results_or_reasons() -> None:
    state = put(two(), "a", speed=4)
    opts = {(o.move, o.n): o for o in movement_options(state, "a")}
    assert (opts[("level", 2)].speed, opts[("level", 2)].legal) == (6, True)
    assert opts[("climb", 1)].legal and opts[("climb", 1)].altitude == 11
    assert (
        opts[("climb", 2)].reason is not None
        and opts[("climb", 2)].reason.code == "climb_too_steep"
    )
    assert opts[("dive", 4)].dangerous and opts[("dive", 4)].speed == 12


def test_typed_syntax_parser() -> None:
    order = parse_typed("/order level +2; attack breath n1; tail p3")
    assert order == {
        "move": "level",
        "n": 2,
        "aerobatics": None,
        "actions": [
            {"type": "attack", "weapon": "breath", "target": "n1"},
            {"type": "tail", "target": "p3"},
        ],
    }
    assert parse_typed("пике 2; трюк бочка; принуждение быстрее вверх")["actions"] == [
        {"type": "force", "choice": "up", "raise_choice": "climb"}
    ]
    assert parse_typed("dive 2\naero barrel roll")["aerobatics"] == "barrel roll"
    for text, code in [
        ("jump 2", "typed_unknown_word"),
        ("climb", "typed_missing_argument"),
        ("climb x", "typed_bad_number"),
        ("level 1; dive 1", "typed_two_movements"),
        ("attack breath", "typed_missing_argument"),
        ("force sideways", "typed_missing_argument"),
        ("/shoot x", "typed_unknown_command"),
    ]:
        with pytest.raises(Rejection) as exc:
            parse_typed(text)
        assert exc.value.code == code, text


def test_order_json_shape_errors_name_the_field() -> None:
    state = two()
    assert rejects(state, "a", {"move": "loop"}).params["field"] == "move"
    assert rejects(state, "a", {"speed": 1}).params["field"] == "speed"
    assert (
        rejects(state, "a", {"actions": [{"type": "attack", "weapon": "breath"}]}).params["field"]
        == "actions.0.target"
    )
    assert (
        rejects(state, "a", {"actions": [{"type": "force", "choice": "left"}]}).params["field"]
        == "actions.0.choice"
    )
    assert rejects(state, "a", {"move": "dive", "n": 0}).code == "bad_altitude_change"
