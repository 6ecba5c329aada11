"""A picture for every reveal (Pillow), sent before the text reveal.

- pistol (:mod:`.pistol`): both silhouettes side by side with the grid's coordinates, each
  with the shooter's aim zone (shifted by the target's move), the cell the shot landed on
  (off the grid: outside it, with an arrow), the part hit and the target's move;
- dragons (:mod:`.dragons`): the sky with the text's axes (Altitude H against Speed S), every
  attack of the turn as an arrow (hit, miss, wound), tails, falls and who left the battle,
  labels that never overlap (:mod:`.sky`);
- plans (:mod:`.plans`): the two plans face to face, each guess that landed highlighted, the
  exchange and, on the last turn, the duel's real result.

Each participant has one colour for the whole match, in every picture and in the odds chart
(:func:`~handlers.telegram.screens.canvas.participant_colours`). The drawing functions only
draw: how the picture is sent (a photo, with or without a caption) is the caller's business.

Pillow is imported only here and in ``canvas.py`` (the palette, font and drawing primitives),
and only when a picture is drawn: never on the webhook's cold
path (``tests/bot/test_pictures.py`` checks the import graph). Text is drawn with the bundled
DejaVu Sans (``fonts/``, its licence beside it), so Cyrillic and Latin names render; emoji do
not (the font has none), so the pictures use none. ``make pictures`` draws the examples in
``docs/img/``; ``make bench`` measures the drawing time.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import TYPE_CHECKING

from engine.match import Match, TurnRecord
from handlers.telegram.i18n import Tr
from handlers.telegram.screens.canvas import BG, FONT, HEIGHT, WIDTH, font
from handlers.telegram.screens.pictures import dragons
from handlers.telegram.screens.pictures.pistol import _pistol
from handlers.telegram.screens.pictures.plans import _plans

if TYPE_CHECKING:
    from PIL import ImageDraw

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


DRAWERS: dict[str, Draw] = {"pistol": _pistol, "dragons": dragons.draw, "plans": _plans}
