"""The odds bar chart: one bar per result (each side's wins, draws) with its 95% interval.

Pillow is imported lazily (only when a chart is drawn) and optional: without it, or if drawing
fails, :func:`chart_png` returns None and the bot sends the text answer alone. ``FONT`` is the
bundled DejaVu Sans (Cyrillic included), the reveal pictures' font; None would use Pillow's
default, which has no Cyrillic: then a label it cannot draw means no picture rather than one of
empty boxes.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Sequence
from pathlib import Path

FONT: Path | None = Path(__file__).parent.parent / "fonts" / "DejaVuSans.ttf"
"""A TrueType font file for the labels (None: Pillow's default)."""

WIDTH = 640
ROW = 54
PAD = 16
_GREY = "#7d8a96"
_COLORS = ("#c0392b", "#2471a3", "#7d8a96", "#b7950b", "#1e8449", "#884ea0")

log = logging.getLogger(__name__)


def _latin(text: str) -> bool:
    try:
        text.encode("latin-1")
    except UnicodeEncodeError:
        return False
    return True


def chart_png(
    title: str,
    bars: Sequence[tuple[str, float, float, float]],
    colours: Sequence[str | None] | None = None,
) -> bytes | None:
    """A PNG of horizontal bars: (label, share, low, high) each, shares in 0..1; bar i in
    ``colours[i]`` (a participant's colour of the reveal pictures; None: grey, for draws),
    else in a colour of its own. None when Pillow is missing or drawing fails (the caller
    keeps the text answer)."""
    if FONT is None and not all(_latin(t) for t in (title, *(b[0] for b in bars))):
        return None  # Pillow's default font has no Cyrillic: no picture of empty boxes
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError:
        return None
    try:
        size = 16
        font: ImageFont.FreeTypeFont | ImageFont.ImageFont
        if FONT is not None:
            font = ImageFont.truetype(str(FONT), size)
        else:
            font = ImageFont.load_default(size)
        height = PAD * 3 + size + ROW * len(bars)
        img = Image.new("RGB", (WIDTH, height), "white")
        draw = ImageDraw.Draw(img)
        draw.text((PAD, PAD), title, fill="black", font=font)
        left, right = PAD, WIDTH - PAD - 60
        span = right - left
        for i, (label, share, lo, hi) in enumerate(bars):
            top = PAD * 2 + size + i * ROW
            draw.text((left, top), label, fill="black", font=font)
            y0, y1 = top + size + 6, top + ROW - 10
            draw.rectangle((left, y0, right, y1), outline="#d0d3d4")
            color = _COLORS[i % len(_COLORS)]
            if colours is not None:
                color = (colours[i] if i < len(colours) else None) or _GREY
            draw.rectangle((left, y0, left + round(share * span), y1), fill=color)
            mid = (y0 + y1) // 2  # the 95% interval as a whisker
            xl, xh = left + round(lo * span), left + round(hi * span)
            draw.line((xl, mid, xh, mid), fill="black", width=2)
            draw.line((xl, y0 + 3, xl, y1 - 3), fill="black", width=2)
            draw.line((xh, y0 + 3, xh, y1 - 3), fill="black", width=2)
            draw.text((right + 8, y0), f"{share:.0%}", fill="black", font=font)
        out = io.BytesIO()
        img.save(out, "PNG", optimize=True)
        return out.getvalue()
    except Exception:  # a picture is a bonus: never lose the answer over it
        log.exception("odds chart failed")
        return None
