"""Typed ``pistol`` orders: ``/order move -2 aim 0:1`` with the words of ``aliases.json``."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from engine.errors import Rejection
from engine.match import Match
from handlers.telegram.i18n import Tr
from handlers.telegram.ui import (
    alias_words,
    aliases,
    parse_words,
)
from handlers.telegram.ui.pistol.sheet import PistolSheet

ALIASES = aliases("pistol")
ORDER_KEYS = ("move", "aim", "pick")  # the typed order's words (P6, P8, P13)


class PistolTyped(PistolSheet):
    # --- orders ---

    def typed_example(self) -> str:
        return "move -2 aim 0:1"

    def example_candidates(self, tr: Tr, match: Match, pid: str) -> Iterable[str]:
        move = "шаг" if tr.lang == "ru" else "move"  # both parse (pistol/aliases.json)
        aim = "прицел" if tr.lang == "ru" else "aim"
        return [f"{move} -1 {aim} 0:1", f"{move} 0 {aim} 0:0", self.typed_example()]

    def parse_typed(self, words: Sequence[str]) -> dict[str, Any]:
        """``move N aim A:B`` (or JSON); the words of ``pistol/aliases.json`` work too."""
        text = " ".join(words).strip()
        if not text.startswith("{"):
            words = alias_words(ALIASES.get("words", {}), text).split()
            flat = [p for w in words for p in (w.split("=", 1) if "=" in w else [w])]
            for key in flat[::2]:
                if key.lower() not in ORDER_KEYS:
                    raise Rejection("typed_unknown_word", word=key, expected=", ".join(ORDER_KEYS))
        return parse_words(words, what="order")
