"""The Savage Worlds core (``engine/savage.py``) against ``savage-worlds-core.md``: the section 2.6
probability table (exactly, and the roller by Monte Carlo with a fixed seed), and the section-15
decisions the dragon rules use, named by section/decision."""

from __future__ import annotations

from fractions import Fraction

import pytest

from engine.dice import RandomDice, ScriptedDice, TurnLog
from engine.errors import Rejection
from engine.savage import (
    DamageSpec,
    Die,
    damage_effect,
    damage_roll,
    edition_rules,
    exact_trait_odds,
    gang_up,
    multi_action_penalty,
    opposed,
    p_ace_at_least,
    parry,
    parse_damage,
    parse_die,
    range_band,
    roll_trait_data,
    shaken_recovery,
    soaked_wounds,
    trait_roll,
    wound_penalty,
)

# Section 2.6: die, modifier, Extra success, Extra raise, WC success, WC raise, WC crit fail.
TABLE = [
    (4, 0, 0.250, 0.062, 0.625, 0.193, 0.0417),
    (4, -2, 0.188, 0.047, 0.323, 0.126, 0.0417),
    (6, 0, 0.500, 0.139, 0.750, 0.258, 0.0278),
    (6, -2, 0.167, 0.083, 0.306, 0.160, 0.0278),
    (8, 0, 0.625, 0.125, 0.812, 0.247, 0.0208),
    (8, -2, 0.375, 0.109, 0.479, 0.184, 0.0208),
    (10, 0, 0.700, 0.300, 0.850, 0.397, 0.0167),
    (10, -2, 0.500, 0.100, 0.583, 0.175, 0.0167),
    (12, 0, 0.750, 0.417, 0.875, 0.498, 0.0139),
    (12, -2, 0.583, 0.250, 0.653, 0.312, 0.0139),
]


def roll(faces: list[int], die: Die | None, **kw: object) -> tuple[object, ScriptedDice]:
    src = ScriptedDice(faces)
    result = trait_roll(TurnLog(src), "p1", "t", die, **kw)  # type: ignore[arg-type]
    return result, src


@pytest.mark.parametrize(("sides", "mod", "es", "er", "ws", "wr", "wc"), TABLE)
def test_2_6_exact_odds_match_the_table(
    sides: int, mod: int, es: float, er: float, ws: float, wr: float, wc: float
) -> None:
    extra = exact_trait_odds(sides, mod, wild_card=False)
    wild = exact_trait_odds(sides, mod, wild_card=True)
    # The table is rounded to 3 decimals (4 for crit fails).
    assert float(extra[0]) == pytest.approx(es, abs=6e-4)
    assert float(extra[1]) == pytest.approx(er, abs=6e-4)
    assert float(wild[0]) == pytest.approx(ws, abs=6e-4)
    assert float(wild[1]) == pytest.approx(wr, abs=6e-4)
    assert float(wild[2]) == pytest.approx(wc, abs=6e-5)
    assert wild[2] == Fraction(1, sides * 6)


@pytest.mark.slow
@pytest.mark.parametrize(("sides", "mod", "es", "er", "ws", "wr", "wc"), TABLE)
def test_2_6_roller_matches_exact_odds_monte_carlo(
    sides: int, mod: int, es: float, er: float, ws: float, wr: float, wc: float
) -> None:
    n = 20_000
    log = TurnLog(RandomDice(f"table-{sides}-{mod}"))
    for wild_card in (False, True):
        succ = rais = crit = 0
        for _ in range(n):
            r = trait_roll(log, None, "t", Die(sides), wild_card=wild_card, modifiers=[("m", mod)])
            succ += r.success
            rais += r.raises > 0
            crit += r.crit
        log.events.clear()
        exact = exact_trait_odds(sides, mod, wild_card=wild_card)
        # 20k samples: one standard error is at most 0.0036; ~4 sigma, fixed seed.
        assert succ / n == pytest.approx(float(exact[0]), abs=0.015)
        assert rais / n == pytest.approx(float(exact[1]), abs=0.015)
        assert crit / n == pytest.approx(float(exact[2]), abs=0.005)


def test_2_2_ace_rerolls_the_maximum_and_records_every_face() -> None:
    src = ScriptedDice([4, 4, 2])
    log = TurnLog(src)
    r = trait_roll(log, "p1", "piloting", Die(4), wild_card=False)
    assert r.trait_faces == (4, 4, 2)
    assert r.total == 10
    assert log.events[0].data["faces"] == [4, 4, 2]
    assert src.remaining == 0


def test_2_2_exact_ace_probability() -> None:
    assert p_ace_at_least(6, 7) == Fraction(1, 6)  # a 6 then anything
    assert p_ace_at_least(6, 8) == Fraction(1, 6) * Fraction(5, 6)
    assert p_ace_at_least(4, 1) == 1


def test_2_3_wild_die_is_kept_when_higher_and_never_added() -> None:
    r, src = roll([2, 5], Die(8), wild_card=True)
    assert r.kept == 5 and r.total == 5  # type: ignore[attr-defined]
    assert r.wild_faces == (5,)  # type: ignore[attr-defined]
    assert src.remaining == 0


def test_2_4_raises_every_four_over_tn() -> None:
    r, _ = roll([8, 3], Die(8), wild_card=False)  # 11
    assert r.raises == 1 and r.result == "raise"  # type: ignore[attr-defined]
    r, _ = roll([8, 4], Die(8), wild_card=False)  # 12
    assert r.raises == 2  # type: ignore[attr-defined]
    r, _ = roll([3], Die(8), wild_card=False)
    assert not r.success and r.raises == 0  # type: ignore[attr-defined]


def test_2_5_wild_card_crit_fail_is_double_one_whatever_the_modifiers() -> None:
    r, _ = roll([1, 1], Die(8), wild_card=True, modifiers=[("bonus", 6)])
    assert r.crit and not r.success and r.result == "crit_fail"  # type: ignore[attr-defined]


def test_decision_16_extra_crit_needs_a_confirmation_d6_only_where_it_matters() -> None:
    r, src = roll([1], Die(8), wild_card=False)
    assert not r.crit and src.remaining == 0  # type: ignore[attr-defined]
    r, _ = roll([1, 1], Die(8), wild_card=False, crit_matters=True)
    assert r.crit and r.confirm == 1  # type: ignore[attr-defined]
    r, _ = roll([1, 4], Die(8), wild_card=False, crit_matters=True)
    assert not r.crit and r.confirm == 4  # type: ignore[attr-defined]
    r, _ = roll([1], Die(8), wild_card=False, crit_matters=True, confirm_extra_crit=False)
    assert r.crit  # type: ignore[attr-defined]


def test_2_1_unskilled_is_d4_minus_2_with_the_wild_die() -> None:
    r, src = roll([3, 5], None, wild_card=True)
    assert r.unskilled and r.die == Die(4)  # type: ignore[attr-defined]
    assert ("unskilled", -2) in r.modifiers and r.total == 3  # type: ignore[attr-defined]
    assert src.remaining == 0


def test_2_1_d12_plus_bonus_is_a_modifier() -> None:
    r, _ = roll([5], Die(12, 2), wild_card=False)
    assert r.total == 7 and ("die_bonus", 2) in r.modifiers  # type: ignore[attr-defined]


def test_decision_18_opposed_ties_go_to_the_defender_and_initiator_needs_4() -> None:
    a, _ = roll([5], Die(8), wild_card=False)
    d, _ = roll([5], Die(8), wild_card=False)
    res = opposed(a, d)  # type: ignore[arg-type]
    assert not res.initiator_wins and not res.defender_wins
    a, _ = roll([3], Die(8), wild_card=False)
    d, _ = roll([1], Die(8), wild_card=False)
    assert not opposed(a, d).initiator_wins  # type: ignore[arg-type]
    a, _ = roll([8, 1], Die(8), wild_card=False)  # 9
    d, _ = roll([1, 1], Die(8), wild_card=True)  # crit: counts as 0
    res = opposed(a, d)  # type: ignore[arg-type]
    assert res.initiator_wins and res.raises == 2
    a, _ = roll([2], Die(8), wild_card=False)
    d, _ = roll([7], Die(8), wild_card=False)
    res = opposed(a, d)  # type: ignore[arg-type]
    assert res.defender_wins and res.raises == 1


def test_decision_4_multi_action_penalty() -> None:
    assert [multi_action_penalty(n) for n in (0, 1, 2, 3)] == [0, 0, -2, -4]


def test_decision_11_wound_penalty_capped_at_3() -> None:
    assert [wound_penalty(w) for w in (0, 1, 2, 3, 5)] == [0, -1, -2, -3, -3]


def test_decision_25_parry_from_fighting() -> None:
    assert parry(None) == 2
    assert [parry(Die(s)) for s in (4, 6, 8, 10, 12)] == [4, 5, 6, 7, 8]
    assert parry(Die(12, 2)) == 9


def test_decision_23_gang_up_bonus() -> None:
    assert gang_up(2, 0) == 2
    assert gang_up(2, 1) == 1
    assert gang_up(1, 3) == 0
    assert gang_up(7, 0) == 4


def test_decision_21_range_bands_and_extreme() -> None:
    bands = (25, 50, 100)
    assert range_band(5, bands) == ("short", 0)
    assert range_band(25, bands) == ("short", 0)  # a limit is in the nearer band
    assert range_band(50, bands) == ("medium", -2)
    assert range_band(100, bands) == ("long", -4)
    assert range_band(101, bands) is None
    assert range_band(300, bands, extreme=True) == ("extreme", -8)
    assert range_band(401, bands, extreme=True) is None


def test_7_1_damage_table() -> None:
    assert damage_effect(7, 8).hit is False
    for damage in (8, 11):
        assert damage_effect(damage, 8).wounds == 0 and damage_effect(damage, 8).shaken
    assert damage_effect(12, 8).wounds == 1
    assert damage_effect(16, 8).wounds == 2
    assert damage_effect(16, 8, wound_cap=1).wounds == 1


def test_decision_10_shaken_on_shaken_is_a_wound() -> None:
    assert damage_effect(9, 8, already_shaken=True).wounds == 1
    assert damage_effect(13, 8, already_shaken=True).wounds == 1


def test_decision_27_ap_lowers_only_armour() -> None:
    assert damage_effect(8, 10, armor=2, ap=4).excess == 0  # Toughness 10 -> 8, not 6
    assert damage_effect(8, 10, armor=2, ap=1).excess == -1


def test_decision_26_damage_dice_ace_and_raise_adds_d6() -> None:
    src = ScriptedDice([6, 3, 2, 6, 1])
    r = damage_roll(TurnLog(src), "p1", [6, 6], flat=1, raise_bonus=True)
    assert r.dice == ((6, (6, 3)), (6, (2,)))
    assert r.raise_die == (6, 1)
    assert r.total == 9 + 2 + 7 + 1
    assert src.remaining == 0


def test_roll_trait_data_is_trait_roll_and_its_to_data() -> None:
    """The positional hot path gives the same roll, faces and event data as trait_roll."""
    cases = [
        (Die(8), True, (("wounds", -1), ("multi_action", 0)), 4, False),
        (Die(12, 2), True, (("range", -2),), 6, False),
        (None, True, (), 4, False),
        (Die(6), False, (("gang_up", 1),), 5, True),
        (Die(4), False, (), 4, True),
    ]
    for seed in range(200):
        for die, wild, mods, tn, matters in cases:
            logs = [TurnLog(RandomDice(seed)) for _ in range(2)]
            expected = trait_roll(
                logs[0], "p1", "t", die, wild_card=wild, modifiers=mods, tn=tn,
                crit_matters=matters,
            )  # fmt: skip
            got, data = roll_trait_data(logs[1], "p1", "t", die, wild, mods, tn, 6, matters, True)
            assert got == expected
            assert data == expected.to_data()
            assert [type(v) for v in data.values()] == [
                type(v) for v in expected.to_data().values()
            ]
            assert logs[0].events == logs[1].events


def test_decision_8_and_1_2_shaken_recovery_by_edition() -> None:
    ok, _ = roll([5], Die(6), wild_card=False)
    big, _ = roll([6, 3], Die(6), wild_card=False)
    bad, _ = roll([2], Die(6), wild_card=False)
    assert shaken_recovery(ok, "SWADE") == (True, True)  # type: ignore[arg-type]
    assert shaken_recovery(ok, "SWD2011") == (True, False)  # type: ignore[arg-type]
    assert shaken_recovery(big, "SWD2011") == (True, True)  # type: ignore[arg-type]
    assert shaken_recovery(ok, "SWD2015") == (True, True)  # type: ignore[arg-type]
    assert shaken_recovery(bad, "SWADE") == (False, False)  # type: ignore[arg-type]


def test_1_2_edition_switch_details() -> None:
    swade, swd = edition_rules("SWADE"), edition_rules("SWD2011")
    assert swade.action_cap == 3 and swd.action_cap is None
    assert swade.extreme_range and not swd.extreme_range
    assert not swade.critfail_reroll and swd.critfail_reroll
    assert swade.benny_damage_reroll and not swd.benny_damage_reroll
    assert swade.full_soak_clears_shaken and not swd.full_soak_clears_shaken


def test_9_soak_never_adds_a_wound() -> None:
    crit, _ = roll([1, 1], Die(8), wild_card=True)
    good, _ = roll([8, 1, 2], Die(8), wild_card=True)  # 9: success + raise
    assert soaked_wounds(crit) == 0  # type: ignore[arg-type]
    assert soaked_wounds(good) == 2  # type: ignore[arg-type]


def test_dice_notation_parsing_and_errors() -> None:
    assert parse_die("d12+2") == Die(12, 2)
    assert parse_damage("str+d8") == DamageSpec((8,), 0, True)
    assert parse_damage("3d6+1") == DamageSpec((6, 6, 6), 1)
    with pytest.raises(Rejection) as bad:
        parse_die("d7", field="piloting")
    assert bad.value.code == "bad_die" and bad.value.params["field"] == "piloting"
    for text in ("", "xd6", "str+str", "-d6", "11d6"):
        with pytest.raises(Rejection) as exc:
            parse_damage(text)
        assert exc.value.code == "bad_damage"
