"""Reveal pictures: drawing time per picture (target <= 50 ms, best of several draws, Pillow
and the font already loaded) and PNG size (target <= 150 KB), one seeded turn per ruleset
played through the bot (``handlers.telegram.picture_demo``)."""

from __future__ import annotations

import time

from engine.match import Match, TurnRecord
from handlers.telegram.harness import GROUP_ID
from handlers.telegram.i18n import Tr
from handlers.telegram.picture_demo import RULESETS, play
from handlers.telegram.pictures import MAX_BYTES, reveal_picture

DRAWS = 20


def _last_turn(ruleset: str) -> tuple[Match, TurnRecord]:
    from engine import usecases

    h = play(ruleset)
    match = h.deps.repo.active_in_chat(GROUP_ID) or [h.deps.repo.load("m00001").match]
    record = usecases.history(h.deps, match[0].id)[-1]
    h.close()
    return match[0], record


def main() -> None:
    tr = Tr("ru")
    for ruleset in RULESETS:
        match, record = _last_turn(ruleset)
        png = reveal_picture(tr, match, record)  # warms Pillow and the font up
        assert png is not None
        times = []
        for _ in range(DRAWS):
            started = time.perf_counter()
            reveal_picture(tr, match, record)
            times.append(time.perf_counter() - started)
        best, median = min(times) * 1000, sorted(times)[DRAWS // 2] * 1000
        print(
            f"   {ruleset:8} drawn in {best:.1f} ms (median {median:.1f} ms)   target <= 50 ms;"
            f" {len(png) / 1024:.0f} KB   target <= {MAX_BYTES // 1000} KB"
        )
