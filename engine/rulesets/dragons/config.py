"""The ``dragons`` configuration: every DEFAULT of ``docs/rules/dragons.md`` as data."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from engine.savage import (
    Edition,
)

MoveKind = Literal["level", "climb", "dive"]
MOVE_KINDS: tuple[str, ...] = ("level", "climb", "dive")
ACTION_TYPES: tuple[str, ...] = ("attack", "tail", "force", "break", "power")
FORCE_CHOICES: tuple[str, ...] = ("up", "down")
FORCE_RAISE_CHOICES: tuple[str, ...] = ("climb", "dive")
IN = "in"
# D29: the Piloting rolls of the manoeuvres (D25 tailing, D27 forcing, D28 breaking the tail),
# the initiator's and the defender's ("_defence"); see DragonsConfig.manoeuvre_rolls.
ManoeuvreRoll = Literal["tail", "tail_defence", "force", "force_defence", "break", "break_defence"]
MANOEUVRE_ROLLS: tuple[ManoeuvreRoll, ...] = (
    "tail", "tail_defence", "force", "force_defence", "break", "break_defence"
)  # fmt: skip


# --------------------------------------------------------------------------- configuration


class DragonsConfig(BaseModel):
    """Every DEFAULT of the dragon rules (and the section-15 decisions they use) as data."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    edition: Edition = "SWADE"  # decision 1
    lowest_start_altitude: int = 10  # D5
    max_actions: int = Field(3, ge=1, le=5)  # D3
    multi_action_penalty: int = Field(2, ge=0, le=10)  # D3 / decision 4
    level_speed_up: int = Field(2, ge=0, le=10)  # D11
    level_slow_down: int = Field(1, ge=0, le=10)  # D11
    climb_speed_cost: int = Field(3, ge=1, le=10)  # D12
    dive_speed_gain: int = Field(2, ge=0, le=10)  # D13
    max_altitude_change: int = Field(10, ge=1, le=50)  # largest climb/dive an order may ask
    refuse_impossible_climb: bool = True  # D14 DEFAULT: refused at validation
    level_capped_by_top_speed: bool = True  # D15 DEFAULT
    range_per_speed: int = 10  # D19
    range_per_altitude: int = 50  # D19
    range_same_position: int = 5  # D19
    range_on_tail: int = 5  # D19 / D26
    band_penalties: tuple[int, int, int] = (0, -2, -4)  # D20
    default_breath_bands: tuple[int, int, int] = (25, 50, 100)  # D20 DEFAULT (presets)
    extreme_range: bool = False  # decision 21 (SWADE only when enabled)
    melee_requires_range_5: bool = False  # D21 DEFAULT: same Altitude is enough
    gang_up: bool = True  # decision 23
    gang_up_cap: int = 4  # decision 23
    target_number: int = 4  # D20
    wound_speed_loss: tuple[int, int] = (2, 3)  # D24: at the 1st and the 2nd wound
    cumulative_speed_loss: bool = True  # D24 DEFAULT / decision 12
    wound_penalty_cap: int = 3  # decision 11
    break_at_two_wounds: int = Field(2, ge=0, le=6)  # D24: weapon damaged on d6 <= this
    break_at_three_wounds: int = Field(4, ge=0, le=6)  # D24
    altitude_loss_at_three_wounds: int = 1  # D24
    out_at_wounds: int = 4  # D24
    terrain: Literal["blue", "ground"] = "blue"  # D24: the Blue (death) or over ground (GM)
    fall_speed_step: int = Field(5, ge=1)  # D30: +1 Altitude lost per 5 Speed
    fall_out_depth: int = 10  # D31
    # D31 DEFAULT: with every dragon in the battle falling there is no steady dragon to
    # measure from. "last_steady": measure from the Altitude where the last steady dragon
    # was when it stopped flying steady (started falling or left); "none": nobody is
    # removed (falls can then go on for ever).
    all_falling_floor: Literal["last_steady", "none"] = "last_steady"
    fall_first_penalty: int = 0  # D32 DEFAULT / decision 29: the first roll is at -0
    force_penalty: int = 2  # D27 / decision 19
    break_tail_penalty: int = 2  # D28 / decision 19
    forced_speed_up: int = 2  # D27 DEFAULT
    forced_slow_down: int = 1  # D27 DEFAULT
    forced_climb: int = 1  # D27 DEFAULT
    forced_dive: int = 1  # D27 DEFAULT
    dangerous_crit_altitude_loss: int = 0  # decision 32 (off)
    # D29 DEFAULT: a critical failure on a manoeuvre's Piloting roll starts Falling; off: a
    # crit there is only a lost contest.
    manoeuvre_crit_falls: bool = True
    # D29 DEFAULT: which rolls are "a manoeuvre": the Piloting rolls of tailing, forcing and
    # breaking the tail, both sides of each contest (a target that also attempted the tail
    # rolls "tail"). Not in it: attacks, Spirit, powers (no manoeuvre); the D33 dangerous
    # roll (its failure, a crit included, already falls) and the D32 roll (already falling).
    manoeuvre_rolls: tuple[ManoeuvreRoll, ...] = MANOEUVRE_ROLLS
    # D25-D26 DEFAULT: a new tail that would close a circle of three or more tails (a on b,
    # b on c, c now on a) ends the tail on the new pursuer ("newest_stands", as D25 does for
    # two dragons); "allowed" keeps the circle, which then never moves (nobody in it has a
    # victim that sends a movement, D26).
    tail_circles: Literal["newest_stands", "allowed"] = "newest_stands"
    extra_crit_confirm: bool = True  # decision 16
    consumed_attacks_nearest: bool = True  # D34: the dragon gives its own orders
    default_speed_delta: int = 0  # default order: level flight, Speed unchanged, no action
    turn_limit: int | None = Field(None, ge=1)  # D35 DEFAULT: none (the GM may set one)
    wild_die: int = 6  # 2.3
