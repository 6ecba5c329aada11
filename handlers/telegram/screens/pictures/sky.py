"""Where everything goes on the dragons' sky picture, computed without drawing: the chart's
columns (Speed S) and rows (Altitude H) as in the text reveal's sky chart (only the values a
dragon is at, Speed growing to the right, Altitude upwards; docs/rules/dragons.md D36), a dot
per dragon (dragons sharing a position side by side in their cell), and a name label per dot
placed where it overlaps no other label, no dot and no mark, inside the chart. A label that
fits nowhere is left out: the dot's letter and the list beside the chart still name the
dragon. :func:`sky_layout` is what the drawing uses and what the tests check.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

Box = tuple[float, float, float, float]
Point = tuple[float, float]

DOT = 12  # a dot's radius
STEP = 60  # the distance between dots sharing a position
GAP = 5  # between a dot and its label
FALL = 30  # the length of a falling dragon's arrow, under its dot


@dataclass(frozen=True)
class Spot:
    """A dragon on the chart: its id, Speed, Altitude and whether it falls."""

    pid: str
    speed: int
    altitude: int
    falling: bool = False


@dataclass(frozen=True)
class Frame:
    left: float
    top: float
    right: float
    bottom: float

    def holds(self, box: Box) -> bool:
        return (
            box[0] >= self.left
            and box[1] >= self.top
            and box[2] <= self.right
            and box[3] <= self.bottom
        )


@dataclass
class SkyLayout:
    """The chart's columns (Speeds, left to right) and rows (Altitudes, top to bottom) with
    their pixel centres, each dragon's dot, the boxes nothing may cover (dots, fall arrows)
    and the name labels: (pid, text, box)."""

    frame: Frame
    columns: dict[int, float] = field(default_factory=dict)
    rows: dict[int, float] = field(default_factory=dict)
    dots: dict[str, Point] = field(default_factory=dict)
    marks: list[Box] = field(default_factory=list)
    labels: list[tuple[str, str, Box]] = field(default_factory=list)


def overlaps(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def sky_layout(
    spots: Sequence[Spot],
    texts: Mapping[str, str],
    width_of: Callable[[str], float],
    frame: Frame,
    line: float = 20,
) -> SkyLayout:
    """Dots for ``spots`` in ``frame`` and a label (``texts[pid]``, ``width_of`` pixels wide,
    ``line`` high) beside each dot where one fits."""
    out = SkyLayout(frame)
    speeds = sorted({s.speed for s in spots})
    alts = sorted({s.altitude for s in spots}, reverse=True)
    if not spots:
        return out
    col_w = (frame.right - frame.left) / len(speeds)
    row_h = (frame.bottom - frame.top) / len(alts)
    out.columns = {v: frame.left + (i + 0.5) * col_w for i, v in enumerate(speeds)}
    out.rows = {v: frame.top + (i + 0.5) * row_h for i, v in enumerate(alts)}
    cells: dict[tuple[int, int], list[Spot]] = {}
    for s in spots:
        cells.setdefault((s.speed, s.altitude), []).append(s)
    per_row = max(1, min(4, int(col_w // STEP)))
    for (speed, alt), members in cells.items():
        cx, cy = out.columns[speed], out.rows[alt]
        lines = -(-len(members) // per_row)
        for k, s in enumerate(members):
            r, c = divmod(k, per_row)
            in_row = min(per_row, len(members) - r * per_row)
            x = cx + (c - (in_row - 1) / 2) * STEP
            y = cy + (r - (lines - 1) / 2) * STEP
            out.dots[s.pid] = (x, y)
            out.marks.append((x - DOT, y - DOT, x + DOT, y + DOT))
            if s.falling:
                out.marks.append((x - 7, y + DOT, x + 7, y + DOT + FALL))
    for s in spots:
        text = texts.get(s.pid, "")
        if text:
            _place(out, s.pid, text, width_of(text), line)
    return out


def _candidates(x: float, y: float, w: float, h: float) -> list[Box]:
    """Label boxes around the dot at (x, y): right, left, above, below, then the corners and
    a step further out."""
    r = DOT + GAP
    spots = [
        (x + r, y - h / 2),
        (x - r - w, y - h / 2),
        (x - w / 2, y - r - h),
        (x - w / 2, y + r),
        (x + r, y - r - h / 2),
        (x - r - w, y - r - h / 2),
        (x + r, y + r - h / 2),
        (x - r - w, y + r - h / 2),
        (x - w / 2, y - r - 2 * h),
        (x - w / 2, y + r + h),
    ]
    return [(a, b, a + w, b + h) for a, b in spots]


def _place(out: SkyLayout, pid: str, text: str, width: float, line: float) -> None:
    x, y = out.dots[pid]
    taken = out.marks + [box for _, _, box in out.labels]
    for box in _candidates(x, y, width, line):
        if out.frame.holds(box) and not any(overlaps(box, t) for t in taken):
            out.labels.append((pid, text, box))
            return
