"""A picture for every reveal (Pillow), sent before the text reveal.

- pistol: both silhouettes side by side, each with the shooter's aim zone (shifted by the
  target's move), the cell the shot landed on, the part hit and the target's move;
- dragons: the sky chart: Altitude against Range from the slowest dragon, each dragon in its
  side's colour and labelled by name and side, tails as arrows, falling dragons marked;
- plans: the two plans face to face, each guess that landed highlighted, the exchange.

Pillow is imported only here and in ``canvas.py`` (the palette, font and drawing primitives),
and only when a picture is drawn: never on the webhook's cold
path (``tests/bot/test_pictures.py`` checks the import graph). Text is drawn with the bundled
DejaVu Sans (``fonts/``, its licence beside it), so Cyrillic and Latin names render; emoji do
not (the font has none), so the pictures use none. ``make pictures`` draws the examples in
``docs/img/``; ``make bench`` measures the drawing time.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from html import unescape
from typing import TYPE_CHECKING, Any

from engine.match import Match, TurnRecord
from handlers.telegram.i18n import Tr
from handlers.telegram.screens.canvas import (
    BG,
    DUELIST,
    FONT,
    GRID,
    HEIGHT,
    HIT,
    INK,
    MISS,
    MUTED,
    PART_COLOURS,
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

    from engine.events import Event
    from engine.rulesets.dragons import Dragon
    from engine.rulesets.pistol import PistolConfig

MAX_BYTES = 150_000
__all__ = ["DRAWERS", "FONT", "HEIGHT", "MAX_BYTES", "WIDTH", "font", "reveal_picture"]

Draw = Callable[["ImageDraw.ImageDraw", Tr, Match, TurnRecord], None]


def reveal_picture(tr: Tr, match: Match, record: TurnRecord) -> bytes | None:
    """The PNG of ``record``'s reveal, or None for a ruleset without a picture."""
    drawer = DRAWERS.get(match.ruleset)
    if drawer is None:
        return None
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (WIDTH, HEIGHT), BG)
    drawer(ImageDraw.Draw(image), tr, match, record)
    buf = io.BytesIO()
    # Flat colours: a 64-colour palette keeps the file small and quick to compress.
    image.quantize(64, method=Image.Quantize.FASTOCTREE).save(buf, "PNG", compress_level=6)
    return buf.getvalue()


# --------------------------------------------------------------------------- pistol


Box = Callable[[int, int], tuple[int, int, int, int]]


def _pistol(d: ImageDraw.ImageDraw, tr: Tr, match: Match, record: TurnRecord) -> None:
    from engine.rulesets.pistol import PistolConfig

    cfg = match.rules.config((record.state_before or {}).get("config") or match.config)
    assert isinstance(cfg, PistolConfig)
    names = seat_names(match)
    moves = {o.pid: int(o.order.get("move", 0)) for o in record.orders}
    shots = {str(e.data["target"]): e for e in record.events if e.kind in ("hit", "miss")}
    dead = {e.actor for e in record.events if e.kind == "death"}
    wounded = {e.actor for e in record.events if e.kind == "wound"}
    targets = [s.pid for s in match.seats][:2]
    draw_text(d, (24, 16), tr("pic.turn", turn=record.turn), 22, fill=MUTED)
    cells = {c: part for part, cs in cfg.silhouette.items() for c in cs}
    span = cfg.aim_max - cfg.aim_min + 1
    size = min(30, 380 // span)
    for i, pid in enumerate(targets):
        left = i * WIDTH // 2
        x0, y0 = left + (WIDTH // 2 - size * span) // 2, 92
        draw_text(
            d, (left + 24, 52), fit(names.get(pid, pid), 26, WIDTH // 2 - 48), 26, fill=DUELIST[i]
        )
        box = _pistol_box(cfg, size, x0, y0)
        _pistol_grid(d, cfg, cells, box)
        shot = shots.get(pid)
        lines: list[tuple[str, str]] = []
        if shot is not None:
            colour = DUELIST[(i + 1) % 2]  # the shooter's zone, in the shooter's colour
            lines.append(_pistol_shot(d, tr, cfg, box, shot, colour, names, pid))
        else:
            lines.append((tr("pic.no_shot"), MUTED))
        if pid in dead:
            lines.append((tr("pic.killed"), HIT))
        elif pid in wounded:
            lines.append((tr("pic.wounded"), HIT))
        move = moves.get(pid, 0)
        lines.append((tr("pic.move", move=f"{move:+d}" if move else "0"), MUTED))
        _pistol_caption(d, lines, move, left, y0 + size * span + 14)
    d.line((WIDTH // 2, 60, WIDTH // 2, HEIGHT - 20), fill=GRID, width=2)


def _pistol_box(cfg: PistolConfig, size: int, x0: int, y0: int) -> Box:
    """The pixel box of grid cell (x, y) of the silhouette drawn at (x0, y0)."""

    def box(x: int, y: int) -> tuple[int, int, int, int]:
        col, row = x - cfg.aim_min, cfg.aim_max - y
        return (x0 + col * size, y0 + row * size, x0 + (col + 1) * size, y0 + (row + 1) * size)

    return box


def _pistol_grid(
    d: ImageDraw.ImageDraw, cfg: PistolConfig, cells: Mapping[tuple[int, int], str], box: Box
) -> None:
    """The aim grid, each cell in the colour of the body part it covers."""
    for x in range(cfg.aim_min, cfg.aim_max + 1):
        for y in range(cfg.aim_min, cfg.aim_max + 1):
            part = cells.get((x, y))
            d.rectangle(box(x, y), fill=PART_COLOURS.get(part or "", BG), outline=GRID)


def _pistol_shot(
    d: ImageDraw.ImageDraw,
    tr: Tr,
    cfg: PistolConfig,
    box: Box,
    shot: Event,
    colour: str,
    names: Mapping[str, str],
    pid: str,
) -> tuple[str, str]:
    """The shooter's aim zone and the cross where the shot landed; the caption line of it."""
    a, b = (int(v) for v in shot.data["aim"])
    n, shift = int(shot.data.get("zone", 1)), int(shot.data["shift"])
    zx, zy = a + shift, b
    top_left = box(max(cfg.aim_min, min(cfg.aim_max, zx)), max(cfg.aim_min, min(cfg.aim_max, zy)))
    bottom_right = box(
        max(cfg.aim_min, min(cfg.aim_max, zx + n - 1)),
        max(cfg.aim_min, min(cfg.aim_max, zy - n + 1)),
    )
    d.rectangle(
        (top_left[0], top_left[1], bottom_right[2], bottom_right[3]),
        outline=colour,
        width=4,
    )
    c, r = (int(v) for v in shot.data["cell"])
    inside = cfg.aim_min <= c <= cfg.aim_max and cfg.aim_min <= r <= cfg.aim_max
    cx = max(cfg.aim_min, min(cfg.aim_max, c))
    cy = max(cfg.aim_min, min(cfg.aim_max, r))
    bx = box(cx, cy)
    mark = HIT if shot.kind == "hit" else MISS
    pad = 4 if inside else 8
    d.line((bx[0] + pad, bx[1] + pad, bx[2] - pad, bx[3] - pad), fill=mark, width=5)
    d.line((bx[0] + pad, bx[3] - pad, bx[2] - pad, bx[1] + pad), fill=mark, width=5)
    shooter = names.get(shot.actor or "", "")
    if shot.kind == "hit":
        what = tr("pic.hit", part=tr(f"part.{shot.data['part']}"))
    else:
        what = tr("pic.miss") if inside else tr("pic.off_grid")
    return (f"{shooter} → {names.get(pid, pid)}: {what}", mark)


def _pistol_caption(
    d: ImageDraw.ImageDraw, lines: list[tuple[str, str]], move: int, left: int, y: int
) -> None:
    """Under the grid: the target's move as an arrow (as the shooter sees it), then ``lines``."""
    if move:
        mid = left + WIDTH // 4
        arrow(d, (mid - 20 * move, y + 6), (mid + 20 * move, y + 6), MUTED)
        y += 16
    for text, colour in lines:
        draw_text(d, (left + 24, y), fit(text, 20, WIDTH // 2 - 48), 20, fill=colour)
        y += 26


# --------------------------------------------------------------------------- dragons


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


# --------------------------------------------------------------------------- plans


def _plans(d: ImageDraw.ImageDraw, tr: Tr, match: Match, record: TurnRecord) -> None:
    from handlers.telegram.ui.plans import action_name, group_name, skill_name

    names = seat_names(match)
    reveal = next((e.data for e in record.events if e.kind == "reveal"), None)
    if reveal is None:
        return
    guessed = {e.actor: e.data.get("guessed", {}) for e in record.events if e.kind == "action"}
    contest = next((e.data for e in record.events if e.kind == "contest"), {})
    wounds = {e.actor: e.data.get("wounds") for e in record.events if e.kind == "status"}
    draw_text(d, (24, 16), tr("pic.turn", turn=record.turn), 22, fill=MUTED)
    pids = [str(reveal["attacker"]), str(reveal["defender"])]
    plans: Mapping[str, Mapping[str, Any]] = reveal["plans"]

    def plain(html_text: str) -> str:
        return unescape(html_text)

    for i, pid in enumerate(pids):
        left = 24 + i * WIDTH // 2
        width = WIDTH // 2 - 48
        plan = plans.get(pid, {})
        role = tr("pic.attacker" if i == 0 else "pic.defender")
        draw_text(d, (left, 52), fit(names.get(pid, pid), 26, width), 26, fill=SIDE_COLOURS[i])
        draw_text(d, (left, 86), role, 18, fill=MUTED)
        rows: list[tuple[str, str]] = [
            (tr("pic.group"), plain(group_name(tr, str(plan.get("group", "?"))))),
            (tr("pic.skill"), plain(skill_name(tr, plan.get("skill", "?")))),
            (tr("pic.action"), plain(action_name(tr, str(plan.get("action", "?"))))),
        ]
        y = 122
        for label, value in rows:
            draw_text(d, (left, y), label, 17, fill=MUTED)
            draw_text(d, (left + 120, y - 3), fit(value, 22, width - 120), 22)
            y += 36
        y += 6
        draw_text(d, (left, y), tr("pic.guesses"), 17, fill=MUTED)
        y += 28
        guess: Mapping[str, Any] = plan.get("guess") or {}
        marks = guessed.get(pid, {})
        for part in ("group", "skill", "action"):
            guessed_value = guess.get(part)
            if guessed_value is None:
                text, fill, box = tr("pic.no_guess"), MUTED, BG
            else:
                namer = {"group": group_name, "skill": skill_name, "action": action_name}[part]
                text = plain(namer(tr, guessed_value))
                right_guess = marks.get(part) is True
                fill, box = (INK, "#c8e6c9") if right_guess else (INK, "#f3d6d6")
                text = ("✓ " if right_guess else "✗ ") + text
            d.rounded_rectangle((left, y - 4, left + width, y + 28), 8, fill=box)
            draw_text(d, (left + 10, y), fit(text, 20, width - 20), 20, fill=fill)
            y += 40
        if pid in wounds:
            draw_text(d, (left, y + 8), tr("pic.wounds", wounds=wounds[pid]), 18, fill=MUTED)
    d.line((WIDTH // 2, 60, WIDTH // 2, HEIGHT - 80), fill=GRID, width=2)
    successes: Mapping[str, Any] = contest.get("successes", {})
    if successes:
        score = " : ".join(str(successes.get(p, 0)) for p in pids)
        winner = contest.get("winner")
        line = tr("pic.tie", score=score)
        if winner and not contest.get("tie"):
            line = tr("pic.exchange", score=score, name=names.get(str(winner), str(winner)))
        draw_text(d, (WIDTH / 2, HEIGHT - 48), line, 22, anchor="mm")


DRAWERS: dict[str, Draw] = {"pistol": _pistol, "dragons": _dragons, "plans": _plans}
