"""Exact hit chances of an aim (engine/rulesets/pistol/odds.py, P9-P11): known cells, every
(F, H) die pair of a zone placed by the P9 formula, the average over the moves (P6)."""

from __future__ import annotations

from fractions import Fraction

from engine.rulesets.pistol import PistolConfig
from engine.rulesets.pistol.odds import averaged, heat_map, part_chances

CFG = PistolConfig()
CELLS = {cell: part for part, cs in CFG.silhouette.items() for cell in cs}


def test_P9_P10_a_rifle_at_minus1_1_against_a_still_and_a_moving_target() -> None:
    assert part_chances(CELLS, 2, (-1, 1), 0) == {
        "head": Fraction(1, 4),
        "torso": Fraction(1, 4),
        "arm": Fraction(1, 4),
    }
    # The target moves 1 to the right as it sees it: E = -1, the zone slides left (P10).
    assert part_chances(CELLS, 2, (-1, 1), 1) == {"arm": Fraction(1, 4)}


def test_P9_every_die_pair_lands_where_the_formula_says() -> None:
    zone, aim, move = 3, (-1, 0), -2
    landed: dict[str, int] = {}
    for f in range(1, zone + 1):
        for h in range(1, zone + 1):
            cell = (aim[0] - move + f - 1, aim[1] - h + 1)  # C = A + E + (F-1), D = B - (H-1)
            if cell in CELLS:
                landed[CELLS[cell]] = landed.get(CELLS[cell], 0) + 1
    expected = {p: Fraction(n, zone * zone) for p, n in landed.items()}
    assert part_chances(CELLS, zone, aim, move) == expected


def test_the_moving_chance_is_the_mean_over_every_legal_move() -> None:
    moves = range(-CFG.move_max, CFG.move_max + 1)
    for cell in heat_map(CFG, 3):
        per_move = [sum(part_chances(CELLS, 3, cell.aim, m).values(), Fraction(0)) for m in moves]
        assert cell.moving_hit == sum(per_move, Fraction(0)) / len(per_move)
        assert cell.moving == averaged(CELLS, 3, cell.aim, moves)
        assert 0 <= cell.still_hit <= 1


def test_the_heat_map_covers_the_whole_P8_window_and_far_aims_can_miss_for_sure() -> None:
    cells = heat_map(CFG, 2)
    assert len(cells) == 121 and cells[0].aim == (-5, 5)
    far = next(c for c in cells if c.aim == (5, 5))
    assert far.still_hit == 0 and far.moving_hit == 0
