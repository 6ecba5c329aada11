"""What the reveal pictures (:mod:`handlers.telegram.screens.pictures`) draw with: the canvas
size, the palette, the bundled font and a few drawing primitives. Pillow is imported lazily."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.match import Match

if TYPE_CHECKING:
    from PIL import ImageDraw, ImageFont

FONT = Path(__file__).parent.parent / "fonts" / "DejaVuSans.ttf"
WIDTH, HEIGHT = 960, 540
BG, INK, GRID, MUTED = "#fbf8f1", "#222222", "#d9d3c7", "#8a8478"
HIT, MISS = "#c62828", "#37474f"
# One colour per participant for the whole match (:func:`participant_colours`): none is the
# red of hits and wounds (HIT) nor the grey of what is muted.
PALETTE = (
    "#1565c0",  # blue
    "#2e7d32",  # green
    "#6a1b9a",  # purple
    "#ef6c00",  # orange
    "#00838f",  # teal
    "#ad1457",  # pink
    "#5d4037",  # brown
    "#827717",  # olive
    "#283593",  # indigo
    "#0277bd",  # light blue
    "#4e342e",  # dark brown
    "#558b2f",  # light green
)
PART_COLOURS = {"head": "#8d6e63", "torso": "#a1887f", "arm": "#bcaaa4", "leg": "#bcaaa4"}


@cache
def font(size: int) -> ImageFont.FreeTypeFont:
    from PIL import ImageFont

    return ImageFont.truetype(str(FONT), size)


def seat_names(match: Match) -> dict[str, str]:
    return {s.pid: s.name for s in match.seats}


def participant_colours(match: Match) -> dict[str, str]:
    """Each seat's colour, by its position among the match's seats: seats are only added or
    removed in the lobby, so a participant keeps one colour in every picture of the match
    (the reveals' and the odds chart's), whatever the order of a turn."""
    return {s.pid: PALETTE[i % len(PALETTE)] for i, s in enumerate(match.seats)}


def draw_text(
    d: ImageDraw.ImageDraw, xy: tuple[float, float], text: str, size: int, **kw: Any
) -> None:
    d.text(xy, text, font=font(size), fill=kw.pop("fill", INK), **kw)


def fit(text: str, size: int, width: float) -> str:
    """``text`` cut (with an ellipsis) to ``width`` pixels at ``size``."""
    f = font(size)
    if f.getlength(text) <= width:
        return text
    while text and f.getlength(text + "…") > width:
        text = text[:-1]
    return text + "…"


def arrow(
    d: ImageDraw.ImageDraw, a: tuple[float, float], b: tuple[float, float], colour: str
) -> None:
    """A line from ``a`` to ``b`` with a head at ``b``."""
    d.line([a, b], fill=colour, width=3)
    (x0, y0), (x1, y1) = a, b
    length = max(1.0, ((x1 - x0) ** 2 + (y1 - y0) ** 2) ** 0.5)
    ux, uy = (x1 - x0) / length, (y1 - y0) / length
    left = (x1 - 12 * ux - 6 * uy, y1 - 12 * uy + 6 * ux)
    right = (x1 - 12 * ux + 6 * uy, y1 - 12 * uy - 6 * ux)
    d.polygon([b, left, right], fill=colour)
