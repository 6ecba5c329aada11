"""The ``pistol`` lobby: the GM's options (turn limit, weapons)."""

from __future__ import annotations

from engine.match import Match
from engine.rulesets.pistol import PistolConfig
from handlers.telegram.i18n import Tr
from handlers.telegram.ui import (
    Option,
    RulesetUI,
)
from handlers.telegram.ui.pistol.common import _config

TURN_LIMITS = (3, 6, 10)
PAIR = "dueling_pistol"


class PistolLobby(RulesetUI):
    # --- lobby ---

    def turn_limit(self, match: Match) -> int | None:
        return _config(match).turn_limit

    def options(self, tr: Tr, match: Match) -> list[Option]:
        cfg = _config(match)
        nxt = (
            TURN_LIMITS[(TURN_LIMITS.index(cfg.turn_limit) + 1) % len(TURN_LIMITS)]
            if (cfg.turn_limit in TURN_LIMITS)
            else 6
        )
        pair_only = set(cfg.weapons) == {PAIR}
        defaults = PistolConfig().model_dump(mode="json")
        if pair_only:
            weapons_patch = {"weapons": defaults["weapons"], "presets": defaults["presets"]}
        else:
            weapons_patch = {
                "weapons": {PAIR: defaults["weapons"][PAIR]},
                "presets": {"gentleman": {"weapon": PAIR, "perks": []}},
            }
        return [
            Option("tl", tr("opt.turn_limit", n=cfg.turn_limit), {"turn_limit": nxt}),
            Option("wp", tr("opt.weapons_pair" if pair_only else "opt.weapons_all"), weapons_patch),
        ]
