"""The pistol reveal picture: both silhouettes side by side, each with the shooter's aim zone
(shifted by the target's move), the cell the shot landed on, the part hit and the target's move."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from engine.match import Match, TurnRecord
from handlers.telegram.i18n import Tr
from handlers.telegram.screens.canvas import (
    BG,
    GRID,
    HEIGHT,
    HIT,
    INK,
    MISS,
    MUTED,
    PART_COLOURS,
    WIDTH,
    arrow,
    draw_text,
    fit,
    participant_colours,
    seat_names,
)

if TYPE_CHECKING:
    from PIL import ImageDraw

    from engine.events import Event
    from engine.rulesets.pistol import PistolConfig


Box = Callable[[int, int], tuple[int, int, int, int]]


def _pistol(d: ImageDraw.ImageDraw, tr: Tr, match: Match, record: TurnRecord) -> None:
    from engine.rulesets.pistol import PistolConfig

    cfg = match.rules.config((record.state_before or {}).get("config") or match.config)
    assert isinstance(cfg, PistolConfig)
    names = seat_names(match)
    colours = participant_colours(match)
    moves = {o.pid: int(o.order.get("move", 0)) for o in record.orders}
    shots = {str(e.data["target"]): e for e in record.events if e.kind in ("hit", "miss")}
    dead = {e.actor for e in record.events if e.kind == "death"}
    wounded = {e.actor for e in record.events if e.kind == "wound"}
    targets = [s.pid for s in match.seats][:2]
    draw_text(d, (24, 16), tr("pic.turn", turn=record.turn), 22, fill=MUTED)
    cells = {c: part for part, cs in cfg.silhouette.items() for c in cs}
    span = cfg.aim_max - cfg.aim_min + 1
    # room for the grid, a cell and a half around it (off-grid shots) and three lines under it
    size = min(30, 320 // (span + 2), (WIDTH // 2 - 40) // (span + 3))
    for i, pid in enumerate(targets):
        left = i * WIDTH // 2
        x0, y0 = left + (WIDTH // 2 - size * span) // 2, 124
        draw_text(
            d,
            (left + 24, 52),
            fit(names.get(pid, pid), 26, WIDTH // 2 - 48),
            26,
            fill=colours.get(pid, INK),
        )
        box = _pistol_box(cfg, size, x0, y0)
        _pistol_grid(d, cfg, cells, box)
        shot = shots.get(pid)
        lines: list[tuple[str, str]] = []
        if shot is not None:
            colour = colours.get(shot.actor or "", INK)  # the zone in the shooter's colour
            lines.append(_pistol_shot(d, tr, cfg, box, shot, colour, names, pid))
        else:
            lines.append((tr("pic.no_shot"), MUTED))
        if pid in dead:
            lines.append((tr("pic.killed"), HIT))
        elif pid in wounded:
            lines.append((tr("pic.wounded"), HIT))
        move = moves.get(pid, 0)
        lines.append((tr("pic.move", move=f"{move:+d}" if move else "0"), MUTED))
        _pistol_caption(d, lines, move, left, y0 + size * span + size * 2 + 10)
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
    # the coordinates on the edge, as the text writes a cell ("x:y"): x under, y on the left
    for x in range(cfg.aim_min, cfg.aim_max + 1):
        b = box(x, cfg.aim_min)
        draw_text(d, ((b[0] + b[2]) / 2, b[3] + 3), str(x), 14, fill=MUTED, anchor="ma")
    for y in range(cfg.aim_min, cfg.aim_max + 1):
        b = box(cfg.aim_min, y)
        draw_text(d, (b[0] - 5, (b[1] + b[3]) / 2), str(y), 14, fill=MUTED, anchor="rm")


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
    mark = HIT if shot.kind == "hit" else MISS
    _pistol_cross(d, cfg, box, (c, r), mark)
    shooter = names.get(shot.actor or "", "")
    if shot.kind == "hit":
        what = tr("pic.hit", part=tr(f"part.{shot.data['part']}"))
    else:
        what = tr("pic.miss") if inside else tr("pic.off_grid")
    where = tr("pic.cell", cell=f"{c}:{r}")
    return (f"{shooter} → {names.get(pid, pid)}: {where}, {what}", mark)


def _pistol_cross(
    d: ImageDraw.ImageDraw, cfg: PistolConfig, box: Box, cell: tuple[int, int], mark: str
) -> None:
    """A cross on the cell the shot landed on. Off the grid, the cross is drawn outside it,
    a cell and a half beyond the edge on the cell's side (past the coordinates), with an arrow
    from the grid's edge and the cell's coordinates beside it."""
    c, r = cell
    lo, hi = box(cfg.aim_min, cfg.aim_max), box(cfg.aim_max, cfg.aim_min)
    size = lo[2] - lo[0]
    gx0, gy0, gx1, gy1 = lo[0], lo[1], hi[2], hi[3]
    b = box(c, r)
    mx, my = (b[0] + b[2]) / 2, (b[1] + b[3]) / 2
    if gx0 <= mx <= gx1 and gy0 <= my <= gy1:
        pad = 4
        d.line((b[0] + pad, b[1] + pad, b[2] - pad, b[3] - pad), fill=mark, width=5)
        d.line((b[0] + pad, b[3] - pad, b[2] - pad, b[1] + pad), fill=mark, width=5)
        return
    far = 1.5 * size
    ex, ey = max(gx0, min(gx1, mx)), max(gy0, min(gy1, my))  # the nearest point of the grid
    # a cell and a half from the edge, so that the arrow shows
    mx = ex + (far if mx > gx1 else -far if mx < gx0 else mx - ex)
    my = ey + (far if my > gy1 else -far if my < gy0 else my - ey)
    length = max(1.0, ((mx - ex) ** 2 + (my - ey) ** 2) ** 0.5)
    ux, uy = (mx - ex) / length, (my - ey) / length
    arrow(d, (ex, ey), (mx - ux * size * 0.45, my - uy * size * 0.45), mark)
    h = size * 0.35
    d.line((mx - h, my - h, mx + h, my + h), fill=mark, width=5)
    d.line((mx - h, my + h, mx + h, my - h), fill=mark, width=5)
    anchor = "lm" if mx >= gx0 else "rm"
    tx = mx + (h + 6 if anchor == "lm" else -h - 6)
    draw_text(d, (tx, my), f"{c}:{r}", 16, fill=mark, anchor=anchor)


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
