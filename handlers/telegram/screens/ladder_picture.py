"""The ladder as a picture (``/ladder``): a table of the top players with a bar per rating,
drawn with the reveal pictures' canvas (:mod:`handlers.telegram.screens.canvas`: the bundled
font and palette). Pillow is imported only when a picture is drawn."""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

from handlers.telegram.screens import canvas

ROW = 46
TOP = 86


def ladder_png(title: str, header: Sequence[str], rows: Sequence[Sequence[Any]]) -> bytes:
    """``rows`` of (place, name, rating, matches, wins) under ``header`` labels."""
    from PIL import Image, ImageDraw

    width = canvas.WIDTH
    height = TOP + ROW * max(1, len(rows)) + 24
    img = Image.new("RGB", (width, height), canvas.BG)
    d = ImageDraw.Draw(img)
    canvas.draw_text(d, (32, 22), canvas.fit(title, 30, width - 64), 30)
    cols = (32, 90, 560, 730, 850)
    for x, label in zip(cols[1:], header, strict=False):
        canvas.draw_text(d, (x, TOP - 26), label, 16, fill=canvas.MUTED)
    top = max((float(r[2]) for r in rows), default=1.0) or 1.0
    for i, (place, name, rating, matches, wins) in enumerate(rows):
        y = TOP + i * ROW
        if i % 2 == 0:
            d.rectangle([16, y - 4, width - 16, y + ROW - 8], fill="#f1ece1")
        colour = canvas.PALETTE[i % len(canvas.PALETTE)]
        share = max(0.0, float(rating)) / top if top > 0 else 0.0
        d.rectangle([cols[2], y + 26, cols[2] + int(150 * share), y + 32], fill=colour)
        canvas.draw_text(d, (cols[0], y), f"{place}.", 22)
        canvas.draw_text(d, (cols[1], y), canvas.fit(str(name), 22, cols[2] - cols[1] - 20), 22)
        canvas.draw_text(d, (cols[2], y), f"{float(rating):.1f}", 22)
        canvas.draw_text(d, (cols[3], y), str(matches), 22)
        canvas.draw_text(d, (cols[4], y), str(wins), 22)
    buf = io.BytesIO()
    img.save(buf, format="PNG", optimize=True)
    return buf.getvalue()
