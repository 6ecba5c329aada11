"""Telegram UI of the ``pistol`` ruleset (``docs/rules/pistol.md``).

Order builder (state in callback data, no storage): move buttons -2..+2 (P6, direction as the
opponent sees it) -> an aim keyboard laid out as the silhouette grid with coordinates (P5, P8)
-> a confirmation screen showing exactly what will be sealed, with the aim zone drawn (P6).
Typed syntax: ``/order move -2 aim 0:1``. The reveal shows both orders, every die with its
purpose, each shot's landing cell on the target's grid, the result and "turn k of N" (P20).

Modules (the shape of every ruleset UI): :mod:`.lobby`, :mod:`.sheet`, :mod:`.typed`,
:mod:`.reveal`, :mod:`.builder` (each a layer of :class:`PistolUI`), :mod:`.common`.
"""

from __future__ import annotations

from handlers.telegram.ui.pistol.builder import PistolBuilder


class PistolUI(PistolBuilder):
    ruleset = "pistol"
    help_key = "help.pistol"


UI = PistolUI()

__all__ = ["UI", "PistolUI"]
