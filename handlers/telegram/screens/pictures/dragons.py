"""The dragons reveal picture: the sky chart."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine.match import Match, TurnRecord
from handlers.telegram.i18n import Tr
from handlers.telegram.screens.canvas import (
    GRID,
    HEIGHT,
    HIT,
    INK,
    MUTED,
    SIDE_COLOURS,
    WIDTH,
    arrow,
    draw_text,
    fit,
    font,
    seat_names,
)

if TYPE_CHECKING:
    from PIL import ImageDraw

    from engine.rulesets.dragons import Dragon


@dataclass(frozen=True)
class _Sky:
    """The chart's frame in pixels and its scales: Range to x, Altitude to y."""

    left: int
    top: int
    right: int
    bottom: int
    r_max: int
    a_lo: int
    a_hi: int

    def x(self, r: int) -> float:
        return self.left + 30 + (self.right - self.left - 60) * r / self.r_max

    def y(self, a: int) -> float:
        return self.bottom - (self.bottom - self.top) * (a - self.a_lo) / (self.a_hi - self.a_lo)


def _dragons(d: ImageDraw.ImageDraw, tr: Tr, match: Match, record: TurnRecord) -> None:
    from engine.rulesets.dragons import DragonsState

    state = match.rules.load_state(record.state_after)
    assert isinstance(state, DragonsState)
    names = seat_names(match)
    shown = [g for g in state.dragons if g.in_battle]
    sides = list(dict.fromkeys(g.side for g in state.dragons))
    colour = {side: SIDE_COLOURS[i % len(SIDE_COLOURS)] for i, side in enumerate(sides)}
    draw_text(d, (24, 16), tr("pic.sky", turn=record.turn), 22, fill=MUTED)
    _dragons_legend(d, tr, sides, colour)
    left, top, right, bottom = 90, 90, WIDTH - 40, HEIGHT - 90
    d.line((left, bottom, right, bottom), fill=INK, width=2)
    d.line((left, top, left, bottom), fill=INK, width=2)
    draw_text(d, (right - 6, bottom + 30), tr("pic.range"), 16, fill=MUTED, anchor="ra")
    draw_text(d, (left - 10, top - 24), tr("pic.altitude"), 16, fill=MUTED, anchor="la")
    if not shown:
        draw_text(d, ((left + right) / 2, (top + bottom) / 2), tr("pic.empty_sky"), 22, anchor="mm")
        return
    step = state.config.range_per_speed
    slowest = min(g.speed for g in shown)
    ranges = sorted({step * (g.speed - slowest) for g in shown})
    alts = sorted({g.altitude for g in shown})
    r_max = max(ranges[-1], step * 4)
    a_lo, a_hi = alts[0] - 1, max(alts[-1] + 1, alts[0] + 3)
    sky = _Sky(left, top, right, bottom, r_max, a_lo, a_hi)
    _dragons_ticks(d, sky, ranges, alts)
    points = {g.pid: (sky.x(step * (g.speed - slowest)), sky.y(g.altitude)) for g in shown}
    _dragons_points(d, tr, sky, shown, points, names, colour)
    gone = [g for g in state.dragons if not g.in_battle]
    if gone:
        out = ", ".join(names.get(g.pid, g.name) for g in gone)
        draw_text(
            d, (24, HEIGHT - 32), fit(tr("pic.out", names=out), 17, WIDTH - 48), 17, fill=MUTED
        )


def _dragons_legend(
    d: ImageDraw.ImageDraw, tr: Tr, sides: list[str], colour: Mapping[str, str]
) -> None:
    """The sides' colours, top right."""
    x = float(WIDTH - 24)
    for side in reversed(sides):
        label = tr("pic.side", side=side)
        x -= font(18).getlength(label)
        draw_text(d, (x, 18), label, 18)
        d.ellipse((x - 22, 22, x - 6, 38), fill=colour[side])
        x -= 46


def _dragons_ticks(d: ImageDraw.ImageDraw, sky: _Sky, ranges: list[int], alts: list[int]) -> None:
    """A tick per Range and per Altitude a dragon is at; a grid line per Altitude."""
    left, right, bottom = sky.left, sky.right, sky.bottom
    for r in ranges:
        px = sky.x(r)
        d.line((px, bottom, px, bottom + 6), fill=INK, width=2)
        draw_text(d, (px, bottom + 10), str(r), 16, anchor="ma")
    for a in alts:
        py = sky.y(a)
        d.line((left - 6, py, left, py), fill=INK, width=2)
        d.line((left, py, right, py), fill=GRID, width=1)
        draw_text(d, (left - 10, py), str(a), 16, anchor="rm")


def _dragons_points(
    d: ImageDraw.ImageDraw,
    tr: Tr,
    sky: _Sky,
    shown: list[Dragon],
    points: Mapping[str, tuple[float, float]],
    names: Mapping[str, str],
    colour: Mapping[str, str],
) -> None:
    """The tails as arrows, then each dragon as a dot labelled with its name, side and state."""
    left, right = sky.left, sky.right
    stacked: dict[tuple[float, float], int] = {}
    for g in shown:  # tails first, under the dots
        victim = points.get(g.tail_of or "")
        if victim is not None and victim != points[g.pid]:
            arrow(d, points[g.pid], victim, MUTED)
    for g in shown:
        px, y0 = points[g.pid]
        k = stacked.get((px, y0), 0)
        stacked[(px, y0)] = k + 1
        py = y0 + 22 * k  # dragons sharing a position: a short column under the point
        if k:
            d.line((px, y0, px, py), fill=MUTED, width=1)
        d.ellipse((px - 9, py - 9, px + 9, py + 9), fill=colour[g.side], outline=INK)
        label = f"{names.get(g.pid, g.name)} ({g.side})"
        marks = []
        if g.tail_of and points.get(g.tail_of) == (px, y0):
            marks.append(tr("pic.tail", name=names.get(g.tail_of, g.tail_of)))
        if g.falling:
            marks.append(tr("pic.falling"))
            arrow(d, (px, py + 12), (px, py + 42), HIT)
        if g.shaken:
            marks.append(tr("pic.shaken"))
        if marks:
            label += " · " + ", ".join(marks)
        room = right - px - 14
        if room < 200:  # near the right edge: the label goes to the left of the dot
            label = fit(label, 17, px - left - 24)
            draw_text(d, (px - 14, py - 10), label, 17, fill=colour[g.side], anchor="ra")
        else:
            draw_text(d, (px + 14, py - 10), fit(label, 17, room), 17, fill=colour[g.side])
