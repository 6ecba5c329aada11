"""Rule tests for the ``pistol`` ruleset, named by rule id (P1-P20 of
``docs/rules/pistol.md``), with scripted dice.

Dice order in a turn (see ``PistolRuleset.resolve``): initiative of ``a`` then ``b`` (d6), then
for each shot in shot order its hit_x and hit_y dice, then a lethality d100 for a torso hit.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from engine.dice import ScriptedDice, TurnLog
from engine.errors import Rejection
from engine.events import Event
from engine.ruleset import Entrant, Sealed
from engine.rulesets import get
from engine.rulesets.pistol import (
    RULESET,
    PistolConfig,
    PistolOrder,
    PistolState,
    render_grid,
)

R = RULESET
RIFLE: dict[str, Any] = {"weapon": "rifle", "perks": []}
PISTOL: dict[str, Any] = {"weapon": "pistol", "perks": []}
# A zone-1 weapon: the shot lands exactly on the aim corner, so cells can be probed one by one.
PIN_WEAPONS = {
    "pin": {"name": "pin", "zone": 1, "speed": 0},
    "rifle": {"name": "rifle", "zone": 3, "speed": 0},
}


def start(
    a: Mapping[str, Any] = RIFLE, b: Mapping[str, Any] = PISTOL, **config: Any
) -> PistolState:
    cfg = R.config(config)
    return R.setup(cfg, [Entrant("a", "a", a), Entrant("b", "b", b)], TurnLog(ScriptedDice([])))


def order(move: int, a: int, b: int) -> dict[str, Any]:
    return {"move": move, "aim": [a, b]}


def play(
    state: PistolState,
    oa: Mapping[str, Any] | None,
    ob: Mapping[str, Any] | None,
    dice: Sequence[int],
) -> tuple[PistolState, list[Event]]:
    """Resolve one turn with scripted dice; every scripted face must be used."""
    orders: dict[str, Sealed[PistolOrder]] = {}
    if oa is not None:
        orders["a"] = Sealed(R.check_order(state, "a", oa))
    if ob is not None:
        orders["b"] = Sealed(R.check_order(state, "b", ob))
    source = ScriptedDice(dice)
    log = TurnLog(source)
    after = R.resolve(state, R.with_defaults(state, orders), log)
    assert source.remaining == 0, "a scripted die was not used"
    return after, log.events


def kinds(events: Sequence[Event], *wanted: str) -> list[Event]:
    return [e for e in events if e.kind in wanted]


def shots(events: Sequence[Event]) -> list[Event]:
    return kinds(events, "hit", "miss")


def rolls(events: Sequence[Event]) -> list[tuple[str | None, str, int, list[int]]]:
    return [
        (e.actor, e.data["purpose"], e.data["sides"], e.data["faces"])
        for e in events
        if e.kind == "roll"
    ]


# --------------------------------------------------------------------------- registry, config


def test_registered_under_pistol() -> None:
    assert get("pistol") is R


def test_every_default_is_config() -> None:
    cfg = PistolConfig()
    assert cfg.turn_limit == 6  # P2
    assert (cfg.move_max, cfg.aim_min, cfg.aim_max) == (2, -5, 5)  # P6, P8
    assert cfg.lethality == {"head": "always", "torso": "roll", "arm": "never", "leg": "never"}
    assert (cfg.lethal_roll_sides, cfg.lethal_roll_max) == (100, 50)  # P11: 50%
    assert {k: (w.zone, w.speed) for k, w in cfg.weapons.items()} == {  # P12
        "derringer": (4, 2),
        "pistol": (3, 1),
        "revolver": (3, 1),
        "rifle": (3, 0),
        "dueling_pistol": (2, 0),
    }
    assert not any(w.player_rolls for w in cfg.weapons.values())
    assert cfg.bot_rolls_all is True  # P13
    assert (cfg.initiative_die, cfg.initiative_move_penalty) == (6, 1)  # P14
    assert cfg.initiative_tie_rerolls == 0  # P14: equal totals shoot simultaneously (P15)
    assert set(cfg.perks) == {"thick_skinned", "lucky", "steady_hand"}  # P17
    assert (cfg.default_order.move, cfg.default_order.aim) == (0, (0, 0))


def test_config_override_and_bad_config() -> None:
    assert R.config({"turn_limit": 3}).turn_limit == 3
    with pytest.raises(Rejection) as exc:
        R.config({"turn_limit": 0})
    assert exc.value.params["field"] == "turn_limit"
    with pytest.raises(Rejection) as exc:
        R.config({"bogus": 1})
    assert exc.value.params == {"what": "config", "field": "bogus", "expected": "no such field"}


def test_character_unknown_weapon_names_it_and_lists_allowed() -> None:
    with pytest.raises(Rejection) as exc:
        R.check_character(R.config(), {"weapon": "bazooka"})
    assert exc.value == Rejection(
        "unknown_weapon",
        weapon="bazooka",
        allowed="derringer, dueling_pistol, pistol, revolver, rifle",
    )


def test_character_unknown_perk_names_it_and_lists_allowed() -> None:
    with pytest.raises(Rejection) as exc:
        R.check_character(R.config(), {"weapon": "rifle", "perks": ["lucky", "ninja"]})
    assert exc.value == Rejection(
        "unknown_perk", perk="ninja", allowed="lucky, steady_hand, thick_skinned"
    )


def test_character_shape_errors_are_specific() -> None:
    with pytest.raises(Rejection) as exc:
        R.check_character(R.config(), {"perks": []})
    assert exc.value.params["field"] == "weapon"
    with pytest.raises(Rejection) as exc:
        R.check_character(R.config(), {"weapon": "rifle", "hat": "top"})
    assert exc.value.params["field"] == "hat"
    with pytest.raises(Rejection) as exc:
        R.check_character(R.config(), {"weapon": "rifle", "perks": ["lucky", "lucky"]})
    assert exc.value.code == "duplicate_perk"


def test_presets_are_valid_characters() -> None:
    cfg = R.config()
    presets = R.presets(cfg)
    assert len(presets) >= 3
    for sheet in presets.values():
        R.check_character(cfg, sheet)


# --------------------------------------------------------------------------- P1-P5


def test_P1_exactly_two_duelists() -> None:
    assert (R.min_participants, R.max_participants) == (2, 2)
    with pytest.raises(Rejection):
        R.setup(R.config(), [Entrant("a", "a", RIFLE)], TurnLog(ScriptedDice([])))


def test_P2_draw_after_six_turns_without_a_hit() -> None:
    state = start()
    miss = order(0, 5, 5)  # far from the silhouette: every shot misses
    for turn in range(1, 7):
        assert R.outcome(state).status == "running"
        assert R.turn_of(state) == turn
        state, events = play(state, miss, miss, [1, 2, 1, 1, 1, 1])
    result = R.outcome(state)
    assert (result.status, result.reason) == ("draw", "turn_limit")
    assert R.acting(state) == frozenset()
    assert kinds(events, "outcome")[0].data["turn"] == 6


def test_P2_turn_limit_is_config() -> None:
    state, _ = play(start(turn_limit=1), order(0, 5, 5), order(0, 5, 5), [1, 2, 1, 1, 1, 1])
    assert R.outcome(state).status == "draw"


def test_P3_P4_x_right_and_y_up() -> None:
    # Zone 1: the shot lands on the aim corner. (1, 0) is right of the head column: an arm;
    # (0, 1) is above the torso row: the head.
    state = start({"weapon": "pin"}, {"weapon": "pin"}, weapons=PIN_WEAPONS)
    # Equal initiative (3 vs 3): both shots are resolved; zone-1 dice are d1s.
    _, events = play(state, order(0, 1, 0), order(0, 0, 1), [3, 3, 1, 1, 1, 1])
    assert [(e.actor, e.data["cell"], e.data["part"]) for e in shots(events)] == [
        ("a", [1, 0], "arm"),
        ("b", [0, 1], "head"),
    ]


def test_P5_silhouette_cells() -> None:
    expected = {
        (0, 1): "head",
        (0, 0): "torso",
        (0, -1): "torso",
        (-1, 0): "arm",
        (1, 0): "arm",
        (-1, -2): "leg",
        (1, -2): "leg",
    }
    assert dict(start().rules.cells) == expected
    assert (0, -2) not in start().rules.cells  # between the legs: empty


@pytest.mark.parametrize("x", range(-5, 6))
@pytest.mark.parametrize("y", range(-5, 6))
def test_P5_every_cell_of_the_window_through_a_shot(x: int, y: int) -> None:
    cells = {(0, 1): "head", (0, 0): "torso", (0, -1): "torso", (-1, 0): "arm"}
    cells |= {(1, 0): "arm", (-1, -2): "leg", (1, -2): "leg"}
    state = start({"weapon": "pin"}, {"weapon": "pin"}, weapons=PIN_WEAPONS)
    # b initiative 1 vs a 6: a shoots first; a miss lets b shoot (far away, a miss).
    part = cells.get((x, y))
    dice = [6, 1, 1, 1] + ([100] if part == "torso" else []) + ([1, 1] if part is None else [])
    _, events = play(state, order(0, x, y), order(0, 5, 5), dice)
    first = shots(events)[0]
    assert first.data["cell"] == [x, y]
    assert first.kind == ("hit" if (x, y) in cells else "miss")
    assert first.data.get("part") == cells.get((x, y))


def test_render_grid_labels_coordinates_and_marks() -> None:
    rows = render_grid(R.config(), {(3, -2): "X"})
    assert len(rows) == 12
    assert rows[-1].split() == [str(x) for x in range(-5, 6)]
    row = {int(r.split()[0]): r.split()[1:] for r in rows[:-1]}
    assert row[1][5] == "H"
    assert row[0][4:7] == ["A", "T", "A"]
    assert row[-2][4:7] == ["L", ".", "L"]
    assert row[-2][8] == "X"


# --------------------------------------------------------------------------- P6-P8: orders


def test_P6_order_parses_and_dumps() -> None:
    state = start()
    parsed = R.check_order(state, "a", {"move": -2, "aim": [-1, 1]})
    assert parsed == PistolOrder(-2, -1, 1)
    assert R.dump_order(parsed) == {"move": -2, "aim": [-1, 1]}
    assert R.check_order(state, "a", {"move": 0, "aim": "2:-3"}) == PistolOrder(0, 2, -3)


def test_P6_zone_covers_A_to_A_plus_N_minus_1_and_B_down_to_B_minus_N_plus_1() -> None:
    landed = set()
    for f in (1, 2, 3):
        for h in (1, 2, 3):
            _, events = play(start(), order(0, 2, 4), order(0, 5, 5), [6, 1, f, h, 1, 1])
            landed.add(tuple(shots(events)[0].data["cell"]))
    assert landed == {(x, y) for x in (2, 3, 4) for y in (4, 3, 2)}


def test_P6_move_out_of_range() -> None:
    state = start()
    with pytest.raises(Rejection) as exc:
        R.check_order(state, "a", {"move": 3, "aim": [0, 0]})
    assert exc.value == Rejection("move_out_of_range", min=-2, max=2, got=3)


@pytest.mark.parametrize(
    ("raw", "field", "expected"),
    [
        ({"aim": [0, 0]}, "move", "required"),
        ({"move": 0}, "aim", "required"),
        ({"move": "left", "aim": [0, 0]}, "move", "integer"),
        ({"move": True, "aim": [0, 0]}, "move", "integer"),
        ({"move": 0, "aim": [0]}, "aim", "two integers [A, B] or 'A:B'"),
        ({"move": 0, "aim": "x:y"}, "aim", "two integers [A, B] or 'A:B'"),
        ({"move": 0, "aim": [0, 0], "fire": 1}, "fire", "no such field"),
    ],
)
def test_P6_malformed_order_names_the_field(raw: dict[str, Any], field: str, expected: str) -> None:
    with pytest.raises(Rejection) as exc:
        R.check_order(start(), "a", raw)
    assert exc.value == Rejection("invalid_field", what="order", field=field, expected=expected)


def test_P7_state_and_views_hold_no_order() -> None:
    state = start()
    after, _ = play(state, order(1, -3, 2), order(-1, 4, -4), [3, 3, 1, 1, 1, 1])
    for s in (state, after):
        for pid in (None, "a", "b"):
            text = repr(R.view(s, pid))
            assert "aim" not in R.view(s, pid)
            assert "-3, 2" not in text and "4, -4" not in text


def test_P8_aim_corner_outside_the_window_is_refused() -> None:
    state = start()
    with pytest.raises(Rejection) as exc:
        R.check_order(state, "a", {"move": 0, "aim": [6, 0]})
    assert exc.value == Rejection("aim_out_of_window", field="aim.A", min=-5, max=5, got=6)
    with pytest.raises(Rejection) as exc:
        R.check_order(state, "a", {"move": 0, "aim": [0, -6]})
    assert exc.value == Rejection("aim_out_of_window", field="aim.B", min=-5, max=5, got=-6)


def test_P8_window_is_config() -> None:
    state = start(aim_min=-8, aim_max=8)
    assert R.check_order(state, "a", {"move": 0, "aim": [8, -8]}) == PistolOrder(0, 8, -8)


# --------------------------------------------------------------------------- P9-P11: a shot


@pytest.mark.parametrize(
    ("aim", "move", "dice", "cell"),
    [
        ((3, 3), 0, (1, 1), (3, 3)),
        ((3, 3), 0, (3, 3), (5, 1)),
        ((-4, 2), 1, (2, 1), (-4, 2)),  # E = -1
        ((1, -3), -1, (1, 2), (2, -4)),  # E = +1
    ],
)
def test_P9_final_cell_formula(
    aim: tuple[int, int], move: int, dice: tuple[int, int], cell: tuple[int, int]
) -> None:
    # C = A + E + (F - 1), D = B - (H - 1), E = -move of the target.
    state = start()
    initiative = [6, 1] if move == 0 else [6, 3]  # a (rifle, still) first either way
    _, events = play(state, order(0, *aim), order(move, 5, 5), [*initiative, *dice, 1, 1])
    shot = shots(events)[0]
    assert (shot.actor, shot.data["shift"], tuple(shot.data["cell"])) == ("a", -move, cell)
    assert shot.data["dice"] == list(dice)


def test_P10_worked_example() -> None:
    # Rifle aimed at 0:0, target moves left by 2 (E = +2), dice 2 and 3 -> 3:-2, a miss.
    state = start(RIFLE, PISTOL)
    # initiative: a 4 + 0 - 0 = 4; b 1 + 1 - 2 = 0: the rifle shoots first.
    _, events = play(state, order(0, 0, 0), order(-2, 5, 5), [4, 1, 2, 3, 1, 1])
    shot = shots(events)[0]
    assert shot.actor == "a"
    assert shot.kind == "miss"
    assert shot.data["shift"] == 2
    assert shot.data["dice"] == [2, 3]
    assert shot.data["cell"] == [3, -2]
    assert rolls(events)[2:4] == [("a", "hit_x", 3, [2]), ("a", "hit_y", 3, [3])]


def _hit_on(part_aim: tuple[int, int], extra: Sequence[int] = (), **kw: Any) -> list[Event]:
    """``a`` (pin, first) hits the cell ``part_aim``; returns the events."""
    a = kw.pop("a", {"weapon": "pin"})
    b = kw.pop("b", {"weapon": "pin"})
    state = start(a, b, weapons=PIN_WEAPONS, **kw)
    _, events = play(state, order(0, *part_aim), order(0, 5, 5), [6, 1, 1, 1, *extra])
    return events


def test_P11_head_is_always_lethal_without_a_roll() -> None:
    events = _hit_on((0, 1))
    assert [e.data["purpose"] for e in kinds(events, "roll")] == ["initiative"] * 2 + [
        "hit_x",
        "hit_y",
    ]
    assert kinds(events, "death")[0].data == {"part": "head", "by": "a"}


@pytest.mark.parametrize(
    ("roll", "fate"), [(1, "death"), (50, "death"), (51, "wound"), (100, "wound")]
)
def test_P11_torso_lethal_on_d100_at_most_50(roll: int, fate: str) -> None:
    events = _hit_on((0, 0), [roll])
    assert rolls(events)[-1] == ("b", "lethality", 100, [roll])
    assert [e.kind for e in kinds(events, "death", "wound")] == [fate]


def test_P11_torso_lethality_is_config() -> None:
    events = _hit_on((0, -1), [2], lethal_roll_sides=2, lethal_roll_max=1)
    assert rolls(events)[-1] == ("b", "lethality", 2, [2])
    assert kinds(events, "wound")


@pytest.mark.parametrize("cell", [(-1, 0), (1, 0), (-1, -2), (1, -2)])
def test_P11_arm_or_leg_is_a_wound_never_lethal(cell: tuple[int, int]) -> None:
    events = _hit_on(cell)
    assert not kinds(events, "death")
    assert kinds(events, "wound")[0].actor == "b"
    assert all(r[1] != "lethality" for r in rolls(events))


# --------------------------------------------------------------------------- P12-P14


@pytest.mark.parametrize(
    ("weapon", "sides"), [("derringer", 4), ("pistol", 3), ("rifle", 3), ("dueling_pistol", 2)]
)
def test_P12_hit_dice_are_dN_of_the_weapon_zone(weapon: str, sides: int) -> None:
    state = start({"weapon": weapon}, RIFLE)
    _, events = play(state, order(0, 5, 5), order(0, 5, 5), [6, 1, 1, 1, 1, 1])
    assert rolls(events)[2:4] == [("a", "hit_x", sides, [1]), ("a", "hit_y", sides, [1])]


def test_P12_weapon_table_is_replaceable() -> None:
    weapons = {"musket": {"name": "musket", "zone": 5, "speed": -1}}
    state = start({"weapon": "musket"}, {"weapon": "musket"}, weapons=weapons)
    assert [d.zone for d in state.duelists] == [5, 5]
    with pytest.raises(Rejection) as exc:
        R.check_character(R.config({"weapons": weapons}), RIFLE)
    assert exc.value.params["allowed"] == "musket"


def test_P13_bot_rolls_every_die_and_a_pick_is_refused_by_default() -> None:
    state = start()
    with pytest.raises(Rejection) as exc:
        R.check_order(state, "a", {"move": 0, "aim": [0, 0], "pick": [1, 1]})
    assert exc.value == Rejection("pick_not_allowed", weapon="rifle")


def test_P13_extension_player_picks_the_cell_when_enabled() -> None:
    weapons = {"rifle": {"name": "rifle", "zone": 3, "speed": 0, "player_rolls": True}}
    state = start(RIFLE, RIFLE, weapons=weapons, bot_rolls_all=False)
    with pytest.raises(Rejection) as exc:
        R.check_order(state, "a", {"move": 0, "aim": [0, 0], "pick": [4, 1]})
    assert exc.value == Rejection("pick_out_of_zone", min=1, max=3, got=4)
    pick = {"move": 0, "aim": [-1, 2], "pick": [2, 2]}  # lands on (0, 1): the head
    _, events = play(state, pick, order(0, 5, 5), [6, 1])  # no hit dice rolled for a
    assert shots(events)[0].data["part"] == "head"


def test_P14_initiative_d6_plus_speed_minus_abs_move() -> None:
    state = start({"weapon": "derringer"}, RIFLE)  # speed +2 vs 0
    _, events = play(state, order(-2, 5, 5), order(1, 5, 5), [3, 5, 1, 1, 1, 1])
    init = {e.actor: e.data for e in kinds(events, "initiative")}
    assert init["a"] == {"move": -2, "roll": 3, "speed": 2, "total": 3}
    assert init["b"] == {"move": 1, "roll": 5, "speed": 0, "total": 4}
    # Higher shoots first: b.
    assert [e.actor for e in shots(events)] == ["b", "a"]
    assert [r[0] for r in rolls(events)] == ["a", "b", "b", "b", "a", "a"]


def test_P14_equal_initiative_is_simultaneous() -> None:
    state = start(RIFLE, RIFLE)
    # Both 3 + 0 - 0: simultaneous; both shots resolved even though the first one kills.
    _, events = play(state, order(0, -1, 2), order(0, -1, 2), [3, 3, 2, 2, 2, 2])
    assert [(e.actor, e.data["part"]) for e in kinds(events, "hit")] == [
        ("a", "head"),
        ("b", "head"),
    ]


# --------------------------------------------------------------------------- P15-P19


def test_P15_first_hit_stops_later_shot() -> None:
    state = start(RIFLE, RIFLE)
    # a 6 vs b 1: a shoots first, hits b's head (aim -1:2, dice 2,2 -> 0:1); b never shoots.
    after, events = play(state, order(0, -1, 2), order(0, -1, 2), [6, 1, 2, 2])
    assert [e.kind for e in shots(events)] == ["hit"]
    assert kinds(events, "no_shot")[0].actor == "b"
    assert kinds(events, "no_shot")[0].data == {"reason": "duel_over"}
    assert R.outcome(after).winners == ("a",)


def test_P15_a_miss_lets_the_later_shot_happen() -> None:
    _, events = play(start(), order(0, 5, 5), order(0, -1, 2), [6, 1, 1, 1, 2, 2])
    assert [(e.actor, e.kind) for e in shots(events)] == [("a", "miss"), ("b", "hit")]


def test_P16_any_hit_wins_even_an_arm() -> None:
    events_state = start({"weapon": "pin"}, {"weapon": "pin"}, weapons=PIN_WEAPONS)
    after, _ = play(events_state, order(0, 1, 0), order(0, 5, 5), [6, 1, 1, 1])
    result = R.outcome(after)
    assert (result.status, result.winners, result.reason) == ("win", ("a",), "hit")
    b = after.duelists[1]
    assert (b.status, b.part) == ("wounded", "arm")


def test_P17_thick_skinned_shrugs_off_the_first_limb_hit_and_still_shoots() -> None:
    state = start(
        {"weapon": "pin"}, {"weapon": "pin", "perks": ["thick_skinned"]}, weapons=PIN_WEAPONS
    )
    # a first hits b's leg: shrugged; b still shoots this turn (a miss far away).
    after, events = play(state, order(0, -1, -2), order(0, 5, 5), [6, 1, 1, 1, 1, 1])
    assert kinds(events, "perk")[0].data == {"effect": "shrug", "part": "leg", "by": "a"}
    assert [e.actor for e in shots(events)] == ["a", "b"]
    assert R.outcome(after).status == "running"
    assert after.duelists[1].shrugs_left == 0 and after.duelists[1].status == "standing"
    # The second limb hit is a wound and ends the duel.
    after, events = play(after, order(0, 1, 0), order(0, 5, 5), [6, 1, 1, 1])
    assert kinds(events, "wound") and R.outcome(after).winners == ("a",)


def test_P17_thick_skinned_does_not_shrug_head_or_torso() -> None:
    events = _hit_on((0, 1), b={"weapon": "pin", "perks": ["thick_skinned"]})
    assert not kinds(events, "perk") and kinds(events, "death")


def test_P17_lucky_torso_hit_is_never_lethal() -> None:
    events = _hit_on((0, 0), b={"weapon": "pin", "perks": ["lucky"]})  # no lethality die
    assert kinds(events, "perk")[0].data == {"effect": "not_lethal", "part": "torso", "by": "a"}
    assert kinds(events, "wound") and not kinds(events, "death")


def test_P17_steady_hand_reduces_the_zone_by_one_minimum_one() -> None:
    state = start(
        {"weapon": "rifle", "perks": ["steady_hand"]},
        {"weapon": "pin", "perks": ["steady_hand"]},
        weapons=PIN_WEAPONS,
    )
    assert [d.zone for d in state.duelists] == [2, 1]
    _, events = play(state, order(0, 5, 5), order(0, 5, 5), [6, 1, 2, 2, 1, 1])
    assert rolls(events)[2:] == [
        ("a", "hit_x", 2, [2]),
        ("a", "hit_y", 2, [2]),
        ("b", "hit_x", 1, [1]),
        ("b", "hit_y", 1, [1]),
    ]


def test_P17_perks_are_data() -> None:
    perks = {"iron": {"name": "iron", "shrug_parts": ["head"], "shrug_count": 2}}
    # The head hit is shrugged off, so b still shoots (a miss: two more d1s).
    events = _hit_on((0, 1), [1, 1], b={"weapon": "pin", "perks": ["iron"]}, perks=perks)
    assert kinds(events, "perk")[0].data["effect"] == "shrug"


def test_P18_mutual_hit() -> None:
    state = start(RIFLE, RIFLE)
    # Simultaneous (3 vs 3): a hits b's arm (aim 0:1, dice 2,2 -> 1:0), b hits a's leg.
    after, events = play(state, order(0, 0, 1), order(0, 0, -1), [3, 3, 2, 2, 2, 2])
    assert [(e.actor, e.data["part"]) for e in kinds(events, "hit")] == [("a", "arm"), ("b", "leg")]
    result = R.outcome(after)
    assert (result.status, result.winners, result.reason) == ("mutual", (), "mutual_hit")
    assert [d.status for d in after.duelists] == ["wounded", "wounded"]


def test_P18_a_neutralised_hit_lets_the_other_shooter_win() -> None:
    state = start({"weapon": "rifle", "perks": ["thick_skinned"]}, RIFLE)
    after, events = play(state, order(0, 0, 1), order(0, 0, -1), [3, 3, 2, 2, 2, 2])
    assert kinds(events, "perk")[0].actor == "a"
    assert R.outcome(after).winners == ("a",)


def test_P18_both_dead_is_still_mutual() -> None:
    state = start(RIFLE, RIFLE)
    after, _ = play(state, order(0, -1, 2), order(0, -1, 2), [3, 3, 2, 2, 2, 2])
    assert R.outcome(after).status == "mutual"
    assert [d.status for d in after.duelists] == ["dead", "dead"]


def test_P19_wounded_duelist_cannot_shoot_later_in_the_turn() -> None:
    state = start(RIFLE, RIFLE)
    # a first: aim 0:1 dice 2,2 -> 1:0, b's arm: a wound; b's shot is not taken.
    _, events = play(state, order(0, 0, 1), order(0, -1, 2), [5, 2, 2, 2])
    assert kinds(events, "wound")[0].actor == "b"
    assert [e.actor for e in shots(events)] == ["a"]
    assert kinds(events, "no_shot")[0].actor == "b"


def test_P20_events_reveal_everything_in_order() -> None:
    state = start()
    # b moves left 2 (E = +2): a aims -3:2, dice 2,2 -> 0:1, the head.
    after, events = play(state, order(0, -3, 2), order(-2, 5, 5), [4, 1, 2, 2])
    assert [e.kind for e in events] == [
        "roll",
        "initiative",
        "roll",
        "initiative",
        "roll",
        "roll",
        "hit",
        "death",
        "no_shot",
        "outcome",
    ]
    assert kinds(events, "hit")[0].data == {
        "target": "b",
        "aim": [-3, 2],
        "shift": 2,
        "zone": 3,
        "dice": [2, 2],
        "cell": [0, 1],
        "part": "head",
    }
    assert [r[1:] for r in rolls(events)] == [
        ("initiative", 6, [4]),
        ("initiative", 6, [1]),
        ("hit_x", 3, [2]),
        ("hit_y", 3, [2]),
    ]
    out = kinds(events, "outcome")[0].data
    assert out == {"status": "win", "winners": ["a"], "reason": "hit", "turn": 1, "turn_limit": 6}
    assert R.view(after)["turn"] == 2 and R.view(after)["turn_limit"] == 6


# --------------------------------------------------------------------------- default & random


def test_default_order_for_a_missing_duelist_stays_and_aims_at_the_torso() -> None:
    state = start()
    assert R.default_order(state, "b") == PistolOrder(0, 0, 0)
    # b sends nothing: stays, aims 0:0; b's dice 1,1 land on 0:0, a's torso; lethality 100.
    _, events = play(state, order(0, 5, 5), None, [6, 1, 1, 1, 1, 1, 100])
    hit = kinds(events, "hit")[0]
    assert (hit.actor, hit.data["aim"], hit.data["part"]) == ("b", [0, 0], "torso")


def test_resolve_refuses_a_strangers_order_and_defaults_a_missing_one() -> None:
    state = start()
    mine = Sealed(PistolOrder(0, 5, 5))
    for orders in ({"a": mine, "zed": mine}, {"a": mine, "b": mine, "zed": mine}):
        with pytest.raises(Rejection) as exc:
            R.resolve(state, orders, TurnLog(ScriptedDice([])))
        assert (exc.value.code, exc.value.params) == ("no_such_participant", {"pid": "zed"})
    # Only a's order reaches resolve: b's is the default (stay, aim 0:0), as at a deadline.
    log = TurnLog(ScriptedDice([6, 1, 1, 1, 1, 1, 100]))
    R.resolve(state, {"a": mine}, log)
    hit = kinds(log.events, "hit")[0]
    assert (hit.actor, hit.data["aim"], hit.data["part"]) == ("b", [0, 0], "torso")


def test_default_order_is_config() -> None:
    state = start(default_order={"move": 1, "aim": [2, 2]})
    assert R.default_order(state, "a") == PistolOrder(1, 2, 2)
    with pytest.raises(Rejection):
        R.config({"default_order": {"move": 9, "aim": [0, 0]}})


def test_random_order_is_legal_and_covers_every_value() -> None:
    import random

    state = start()
    rng = random.Random(3)
    seen = [R.random_order(state, "a", rng) for _ in range(6000)]
    assert all(R.validate(state, "a", o) is None for o in seen)
    assert {o.move for o in seen} == set(range(-2, 3))
    assert {o.aim_x for o in seen} == {o.aim_y for o in seen} == set(range(-5, 6))


def test_resolve_refuses_unknown_participant_and_finished_match() -> None:
    state = start()
    with pytest.raises(Rejection) as exc:
        R.resolve(state, {"zz": Sealed(PistolOrder(0, 0, 0))}, TurnLog(ScriptedDice([])))
    assert exc.value == Rejection("no_such_participant", pid="zz")
    over, _ = play(state, order(0, -1, 2), order(0, 5, 5), [6, 1, 2, 2])
    with pytest.raises(Rejection):
        R.resolve(over, {}, TurnLog(ScriptedDice([])))


def test_count_detail_counts_hits_by_part() -> None:
    assert R.count_detail == {"hit": "part"}


def test_state_round_trip_after_a_shrug() -> None:
    state = start(
        {"weapon": "pin"}, {"weapon": "pin", "perks": ["thick_skinned"]}, weapons=PIN_WEAPONS
    )
    after, _ = play(state, order(0, -1, -2), order(0, 5, 5), [6, 1, 1, 1, 1, 1])
    assert R.load_state(R.dump_state(after)) == after


# --------------------------------------------------------------------------- properties

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from engine.dice import RandomDice  # noqa: E402

WEAPONS = ["derringer", "pistol", "revolver", "rifle", "dueling_pistol"]
characters = st.fixed_dictionaries(
    {
        "weapon": st.sampled_from(WEAPONS),
        "perks": st.lists(
            st.sampled_from(["thick_skinned", "lucky", "steady_hand"]), unique=True, max_size=3
        ),
    }
)
orders = st.builds(
    lambda m, a, b: {"move": m, "aim": [a, b]},
    st.integers(-2, 2),
    st.integers(-5, 5),
    st.integers(-5, 5),
)
turns = st.lists(st.tuples(orders, orders), min_size=1, max_size=6)


def _run(
    a: dict[str, Any],
    b: dict[str, Any],
    plan: list[tuple[dict[str, Any], dict[str, Any]]],
    seed: int,
) -> tuple[list[PistolState], list[list[Event]]]:
    state = start(a, b)
    dice = RandomDice(seed)
    states, logs = [state], []
    for oa, ob in plan:
        if R.outcome(state).finished:
            break
        log = TurnLog(dice)
        sealed = {
            "a": Sealed(R.check_order(state, "a", oa)),
            "b": Sealed(R.check_order(state, "b", ob)),
        }
        state = R.resolve(state, sealed, log)
        states.append(state)
        logs.append(log.events)
    return states, logs


@settings(max_examples=150, deadline=None)
@given(characters, characters, turns, st.integers(0, 2**32))
def test_property_any_legal_orders_resolve(
    a: dict[str, Any], b: dict[str, Any], plan: list[Any], seed: int
) -> None:
    states, logs = _run(a, b, plan, seed)
    for before, after, events in zip(states[:-1], states[1:], logs, strict=True):
        assert after.turn == before.turn + 1
        assert len(kinds(events, "initiative")) == 2
        assert 1 <= len(shots(events)) <= 2
        for e in kinds(events, "hit"):
            assert e.data["part"] in ("head", "torso", "arm", "leg")
        # A finished turn says so with one outcome event; a running one has none.
        assert len(kinds(events, "outcome")) == (1 if R.outcome(after).finished else 0)


@settings(max_examples=60, deadline=None)
@given(characters, characters, turns, st.integers(0, 2**32))
def test_property_same_seed_same_result(
    a: dict[str, Any], b: dict[str, Any], plan: list[Any], seed: int
) -> None:
    first = _run(a, b, plan, seed)
    second = _run(a, b, plan, seed)
    assert first == second


@settings(max_examples=100, deadline=None)
@given(characters, characters, turns, st.integers(0, 2**32))
def test_property_state_and_orders_round_trip(
    a: dict[str, Any], b: dict[str, Any], plan: list[Any], seed: int
) -> None:
    states, _ = _run(a, b, plan, seed)
    for s in states:
        assert R.load_state(R.dump_state(s)) == s
        assert R.outcome(R.load_state(R.dump_state(s))) == R.outcome(s)
    for oa, ob in plan:
        for raw in (oa, ob):
            parsed = R.parse_order(states[0], "a", raw)
            assert R.parse_order(states[0], "a", R.dump_order(parsed)) == parsed
            assert R.dump_order(parsed) == raw


def _keys(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in _keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in _keys(v)}
    return set()


@settings(max_examples=100, deadline=None)
@given(characters, characters, turns, st.integers(0, 2**32))
def test_property_views_never_leak_an_order(
    a: dict[str, Any], b: dict[str, Any], plan: list[Any], seed: int
) -> None:
    states, _ = _run(a, b, plan, seed)
    for s in states:
        for pid in (None, "a", "b"):
            assert not _keys(R.view(s, pid)) & {"aim", "move", "order", "orders", "pick"}
        # The state itself never holds an order (orders live beside the match until the
        # reveal), so no view of it can show one.
        assert not any(isinstance(v, PistolOrder) for v in (s.rules, s.duelists, s.turn))


# --------------------------------------------------------------------------- the whole lifecycle


def test_a_whole_pistol_match_through_the_lifecycle() -> None:
    from engine import match as lifecycle
    from engine import usecases
    from engine.match import Phase
    from infra.memory import MemoryRepository

    clock = iter(range(1_700_000_000, 1_800_000_000, 10))
    deps = usecases.Deps(MemoryRepository(), lambda: float(next(clock)), usecases.CountingEntropy())
    gm, ann, bob = 1, 2, 3
    m = usecases.create_match(deps, -100, gm, "pistol")
    usecases.join(deps, m.id, ann, "Ann")
    usecases.join(deps, m.id, bob, "Bob")
    with pytest.raises(Rejection) as exc:
        usecases.set_character(deps, m.id, ann, "p1", {"weapon": "cannon"})
    assert exc.value.code == "unknown_weapon"
    usecases.set_character(deps, m.id, ann, "p1", {"weapon": "rifle", "perks": ["steady_hand"]})
    usecases.set_character(deps, m.id, bob, "p2", {"weapon": "derringer", "perks": ["lucky"]})
    m, _ = usecases.start(deps, m.id, gm)
    assert m.phase is Phase.RUNNING
    with pytest.raises(Rejection) as exc:
        usecases.seal_order(deps, m.id, ann, "p1", {"move": 7, "aim": [0, 0]})
    assert exc.value == Rejection("move_out_of_range", min=-2, max=2, got=7)
    records = []
    for turn in range(1, 7):
        m = deps.repo.load(m.id).match
        if m.phase is Phase.FINISHED:
            break
        assert m.turn == turn
        first = usecases.seal_order(deps, m.id, ann, "p1", {"move": 1, "aim": [-1, 1]})
        assert first.record is None
        # The sealed order is secret: the public view shows who sealed, never what.
        public = repr(lifecycle.public_view(first.match))
        assert "'aim'" not in public and "p1" in first.match.sealed
        done = usecases.seal_order(deps, m.id, bob, "p2", {"move": -2, "aim": [-1, 1]})
        assert done.record is not None
        records.append(done.record)
    m = deps.repo.load(m.id).match
    assert m.phase is Phase.FINISHED
    assert m.outcome is not None and m.outcome["status"] in ("win", "draw", "mutual")
    last = records[-1]
    assert [o.order for o in last.orders] == [
        {"move": 1, "aim": [-1, 1]},
        {"move": -2, "aim": [-1, 1]},
    ]
    assert any(e.kind == "outcome" for e in last.events)
    assert [r.turn for r in deps.repo.history(m.id) if r.turn >= 1] == [r.turn for r in records]
