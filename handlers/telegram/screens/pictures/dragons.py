"""The dragons reveal picture: the sky after the turn and what happened in it.

The chart has the text reveal's axes (Speed S to the right, Altitude H upwards, only the values
a dragon is at; docs/rules/dragons.md D36) and its letters (A, B, ... in the battle's order).
Each dragon is a dot in its participant's colour (the same in every picture of the match) with
its letter and, where it fits, its name (:mod:`.sky` places the labels so none overlaps).
Drawn on it: every attack of the turn as a curved arrow from the attacker to the target (solid
for a hit, dashed ending in a cross for a miss, a red ring on the target for a wound), every
tail as a grey arrow from the pursuer to its victim, a red arrow down under a falling dragon and
a grey cross where a dragon left the battle this turn. Beside the chart, the dragons by side
with Speed, Altitude and state; under it, the key of the marks.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from html import unescape
from typing import TYPE_CHECKING

from engine.match import Match, TurnRecord
from handlers.telegram.i18n import Tr
from handlers.telegram.screens.canvas import (
    BG,
    GRID,
    HEIGHT,
    HIT,
    INK,
    MUTED,
    WIDTH,
    draw_text,
    fit,
    font,
    participant_colours,
    seat_names,
)
from handlers.telegram.screens.pictures.sky import (
    DOT,
    FALL,
    Frame,
    Point,
    SkyLayout,
    Spot,
    sky_layout,
)

if TYPE_CHECKING:
    from PIL import ImageDraw

    from engine.events import Event
    from engine.rulesets.dragons import Dragon, DragonsState

FRAME = Frame(left=70, top=84, right=600, bottom=440)
PANEL = 628  # the left edge of the list beside the chart
LABEL = 17  # the labels' font size


@dataclass(frozen=True)
class Attack:
    """One attack of the turn: who, at whom, and how it ended: miss, hit or wound."""

    actor: str
    target: str
    result: str


def attacks(events: tuple[Event, ...]) -> list[Attack]:
    """The turn's attacks in order (an ``attack`` event, then its ``hit`` or ``miss`` and, for
    a hit, its ``damage`` and the ``wound`` it caused)."""
    found: list[list[str]] = []
    for e in events:
        last = found[-1] if found else None
        if e.kind == "attack" and e.actor:
            found.append([e.actor, str(e.data["target"]), "miss"])
        elif last is not None and e.kind == "wound" and e.actor == last[1]:
            last[2] = "wound" if str(e.data.get("by")) == last[0] else last[2]
        elif last is None or e.actor != last[0]:
            continue
        elif e.kind == "hit" and str(e.data.get("target")) == last[1]:
            last[2] = "hit"
        elif e.kind == "damage" and str(e.data.get("target")) == last[1]:
            last[2] = "wound" if int(e.data.get("wounds", 0)) > 0 else last[2]
    return [Attack(a, t, r) for a, t, r in found]


def letters(state: DragonsState) -> dict[str, str]:
    """The text chart's letters (engine/rulesets/dragons/view.py): A, B, ... by battle order."""
    return {g.pid: chr(ord("A") + i % 26) for i, g in enumerate(state.dragons)}


def layout(tr: Tr, match: Match, record: TurnRecord) -> SkyLayout:
    """The chart's layout for ``record`` (what :func:`draw` draws; the tests check it)."""
    state = _state(match, record)
    names = seat_names(match)
    spots = [Spot(g.pid, g.speed, g.altitude, g.falling) for g in _charted(state, record)]
    texts = {s.pid: fit(names.get(s.pid, s.pid), LABEL, 150) for s in spots}
    return sky_layout(spots, texts, font(LABEL).getlength, FRAME, line=LABEL + 5)


def _state(match: Match, record: TurnRecord) -> DragonsState:
    from engine.rulesets.dragons import DragonsState

    state = match.rules.load_state(record.state_after)
    assert isinstance(state, DragonsState)
    return state


def _charted(state: DragonsState, record: TurnRecord) -> list[Dragon]:
    """The dragons on the chart: those in the battle and those that left it this turn."""
    gone_now = {e.actor for e in record.events if e.kind == "out"}
    return [g for g in state.dragons if g.in_battle or g.pid in gone_now]


def draw(d: ImageDraw.ImageDraw, tr: Tr, match: Match, record: TurnRecord) -> None:
    state = _state(match, record)
    names = seat_names(match)
    colour = participant_colours(match)
    draw_text(d, (24, 16), tr("pic.sky", turn=record.turn), 22, fill=MUTED)
    sky = layout(tr, match, record)
    _axes(d, tr, sky)
    if not sky.dots:
        draw_text(d, (FRAME.left + 20, FRAME.top + 20), tr("pic.empty_sky"), 22)
    tags = letters(state)
    charted = _charted(state, record)
    for g in charted:
        victim = sky.dots.get(g.tail_of or "")
        if g.in_battle and victim is not None:
            _curve(d, sky.dots[g.pid], victim, MUTED, dashed=False, head="open", bend=-1)
    hits = attacks(record.events)
    seen: dict[tuple[str, str], int] = {}
    for a in hits:
        if a.actor in sky.dots and a.target in sky.dots:
            dashed, head = (True, "cross") if a.result == "miss" else (False, "solid")
            k = seen[(a.actor, a.target)] = seen.get((a.actor, a.target), -1) + 1
            ends = (sky.dots[a.actor], sky.dots[a.target])
            _curve(d, *ends, colour.get(a.actor, INK), dashed, head, bend=k)
    for pid in {a.target for a in hits if a.result == "wound"} & sky.dots.keys():
        x, y = sky.dots[pid]
        d.ellipse((x - DOT - 6, y - DOT - 6, x + DOT + 6, y + DOT + 6), outline=HIT, width=4)
    for g in charted:
        _dot(d, sky.dots[g.pid], tags[g.pid], colour.get(g.pid, INK), g)
    for pid, text, box in sky.labels:
        d.rectangle(box, fill=BG)
        draw_text(d, (box[0], box[1] + 1), text, LABEL, fill=colour.get(pid, INK))
    _panel(d, tr, state, names, colour, tags)
    _key(d, tr)


def _axes(d: ImageDraw.ImageDraw, tr: Tr, sky: SkyLayout) -> None:
    """The frame, a faint line and a value per occupied Speed and Altitude, the axes' names."""
    f = sky.frame
    for speed, x in sky.columns.items():
        d.line((x, f.top, x, f.bottom), fill=GRID, width=1)
        draw_text(d, (x, f.bottom + 10), str(speed), 16, anchor="ma")
    for alt, y in sky.rows.items():
        d.line((f.left, y, f.right, y), fill=GRID, width=1)
        draw_text(d, (f.left - 10, y), str(alt), 16, anchor="rm")
    d.line((f.left, f.bottom, f.right, f.bottom), fill=INK, width=2)
    d.line((f.left, f.top, f.left, f.bottom), fill=INK, width=2)
    draw_text(d, (f.right, f.bottom + 32), tr("pic.speed_axis"), 16, fill=MUTED, anchor="ra")
    draw_text(d, (f.left - 10, f.top - 30), tr("pic.altitude_axis"), 16, fill=MUTED)


def _dot(d: ImageDraw.ImageDraw, at: Point, tag: str, colour: str, g: Dragon) -> None:
    x, y = at
    if not g.in_battle:  # left the battle this turn: a grey cross where it was
        for s in (-1, 1):
            d.line((x - DOT, y - s * DOT, x + DOT, y + s * DOT), fill=MUTED, width=5)
        return
    d.ellipse((x - DOT, y - DOT, x + DOT, y + DOT), fill=colour, outline=INK)
    draw_text(d, (x, y + 1), tag, 15, fill="#ffffff", anchor="mm")
    if g.falling:
        _fall(d, x, y + DOT + 2, y + DOT + FALL)


def _curve(
    d: ImageDraw.ImageDraw,
    a: Point,
    b: Point,
    colour: str,
    dashed: bool,
    head: str,
    bend: int = 0,
) -> None:
    """A gently curved arrow from dot ``a`` to dot ``b`` (curved so that A→B and B→A, and
    attacks between dots side by side, stay apart; the ``bend``-th arrow between the same two
    dots curves further out; a negative one curves the other way, as tails do), from edge to
    edge."""
    (x0, y0), (x1, y1) = a, b
    length = max(1.0, ((x1 - x0) ** 2 + (y1 - y0) ** 2) ** 0.5)
    nx, ny = -(y1 - y0) / length, (x1 - x0) / length
    bulge = (max(76.0, 0.2 * length) + 34 * abs(bend)) * (-1 if bend < 0 else 1)
    cx, cy = (x0 + x1) / 2 + nx * bulge, (y0 + y1) / 2 + ny * bulge
    points = []
    for i in range(25):
        t = i / 24
        points.append(
            (
                (1 - t) ** 2 * x0 + 2 * (1 - t) * t * cx + t * t * x1,
                (1 - t) ** 2 * y0 + 2 * (1 - t) * t * cy + t * t * y1,
            )
        )
    edge = DOT + 4
    short = 14 if head == "cross" else 2  # a miss stops short: a hit's head on the same dot shows
    points = [p for p in points if _far(p, a, edge) and _far(p, b, edge + short)]
    if len(points) < 2:
        return
    for i in range(len(points) - 1):
        if not dashed or i % 2 == 0:
            d.line((points[i], points[i + 1]), fill=colour, width=4)
    _head(d, points[-2], points[-1], colour, head)


def _far(p: Point, q: Point, r: float) -> bool:
    return (p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2 > r * r


def _fall(d: ImageDraw.ImageDraw, x: float, y0: float, y1: float) -> None:
    """A red arrow straight down: the dragon falls."""
    d.line((x, y0, x, y1 - 6), fill=HIT, width=4)
    _head(d, (x, y0), (x, y1), HIT, "solid")


def _head(d: ImageDraw.ImageDraw, a: Point, b: Point, colour: str, kind: str) -> None:
    """The end of an arrow at ``b`` coming from ``a``: a solid or open head, or a cross."""
    (x0, y0), (x1, y1) = a, b
    length = max(1.0, ((x1 - x0) ** 2 + (y1 - y0) ** 2) ** 0.5)
    ux, uy = (x1 - x0) / length, (y1 - y0) / length
    left = (x1 - 13 * ux - 7 * uy, y1 - 13 * uy + 7 * ux)
    right = (x1 - 13 * ux + 7 * uy, y1 - 13 * uy - 7 * ux)
    if kind == "solid":
        d.polygon([b, left, right], fill=colour)
    elif kind == "open":
        d.line((left, b, right), fill=colour, width=3)
    else:
        for s in (-1, 1):
            d.line((x1 - 7, y1 - 7 * s, x1 + 7, y1 + 7 * s), fill=colour, width=3)


def _panel(
    d: ImageDraw.ImageDraw,
    tr: Tr,
    state: DragonsState,
    names: Mapping[str, str],
    colour: Mapping[str, str],
    tags: Mapping[str, str],
) -> None:
    """The dragons by side: letter, name, Speed and Altitude, and their state."""
    sides = list(dict.fromkeys(g.side for g in state.dragons))
    rows = len(sides) + len(state.dragons)
    step = min(44, (HEIGHT - 80 - 70) // max(1, rows))
    y = 64.0
    for side in sides:
        title = unescape(tr("pic.side", side=side))  # the catalog escapes the side's name
        draw_text(d, (PANEL, y), fit(title, 16, WIDTH - 12 - PANEL), 16, fill=MUTED)
        y += step * 0.8
        for g in (g for g in state.dragons if g.side == side):
            _panel_row(d, tr, g, names, colour, tags, y, step)
            y += step
        y += step * 0.2


def _panel_row(
    d: ImageDraw.ImageDraw,
    tr: Tr,
    g: Dragon,
    names: Mapping[str, str],
    colour: Mapping[str, str],
    tags: Mapping[str, str],
    y: float,
    step: int,
) -> None:
    fill = colour.get(g.pid, INK) if g.in_battle else MUTED
    d.ellipse((PANEL, y, PANEL + 20, y + 20), fill=fill)
    draw_text(d, (PANEL + 10, y + 11), tags[g.pid], 13, fill="#ffffff", anchor="mm")
    name = fit(names.get(g.pid, g.name), 17, 150)
    draw_text(d, (PANEL + 28, y), name, 17, fill=fill)
    where = tr("pic.position", speed=g.speed, altitude=g.altitude)
    marks = [where] if g.in_battle else [tr("pic.left_battle")]
    if g.wounds:
        marks.append(tr("pic.wounds", wounds=g.wounds))
    if g.shaken:
        marks.append(tr("pic.shaken"))
    if g.falling:
        marks.append(tr("pic.falling"))
    if g.tail_of:
        marks.append(tr("pic.tail_of", letter=tags.get(g.tail_of, "?")))
    text = ", ".join(marks)
    x = PANEL + 36 + font(17).getlength(name)
    if step >= 40 or x + font(14).getlength(text) > WIDTH - 12:  # a second line
        x, y = PANEL + 28, y + 20
    draw_text(d, (x, y + 3), fit(text, 14, WIDTH - 12 - x), 14, fill=MUTED)


def _key(d: ImageDraw.ImageDraw, tr: Tr) -> None:
    """Under the chart: what each mark means."""
    x, y = float(FRAME.left), HEIGHT - 34.0
    samples = (("hit", "solid", False), ("miss", "cross", True), ("tail", "open", False))
    for key, head, dashed in samples:
        colour = MUTED if key == "tail" else INK
        for i in range(4):
            if not dashed or i % 2 == 0:
                d.line((x + i * 9, y + 9, x + (i + 1) * 9, y + 9), fill=colour, width=3)
        _head(d, (x + 30, y + 9), (x + 40, y + 9), colour, head)
        x = _key_word(d, tr(f"pic.key.{key}"), x + 54, y)
    d.ellipse((x, y, x + 18, y + 18), outline=HIT, width=4)
    x = _key_word(d, tr("pic.key.wound"), x + 24, y)
    _fall(d, x + 8, y - 2, y + 20)
    x = _key_word(d, tr("pic.falling"), x + 20, y)
    for s in (-1, 1):
        d.line((x, y + 9 - 8 * s, x + 16, y + 9 + 8 * s), fill=MUTED, width=4)
    _key_word(d, tr("pic.left_battle"), x + 22, y)


def _key_word(d: ImageDraw.ImageDraw, word: str, x: float, y: float) -> float:
    draw_text(d, (x, y), word, 15, fill=MUTED)
    return x + font(15).getlength(word) + 22
