"""Small conversions for the page's JSON: bot HTML as plain text, exact chances as pairs."""

from __future__ import annotations

import html
import re
from fractions import Fraction

_TAG = re.compile(r"<[^>]+>")


def plain(text: str) -> str:
    """Bot HTML as plain text (the page sets ``textContent``, never ``innerHTML``)."""
    return html.unescape(_TAG.sub("", text))


def frac(p: Fraction) -> list[int]:
    """An exact chance as ``[numerator, denominator]`` (the page shows a percentage)."""
    return [p.numerator, p.denominator]
