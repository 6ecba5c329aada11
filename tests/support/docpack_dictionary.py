"""How ``infra/docpack_v1.txt`` was made, and how to make a candidate v2: typical stored
documents, newest-looking last (zlib prefers near matches), one per line.

``python -m tests.support.docpack_dictionary > /tmp/v2.txt`` prints: for each ruleset (dragons,
plans, pistol), a sealed default order and the match document at turn 1 of a started match
with preset characters and the default configuration, as the DynamoDB adapter stores them.
Its ids, seeds and salts are random, so it never reproduces v1's bytes: v1 is frozen (its
SHA-256 is pinned in ``infra.docpack``); a v2 would be added beside it (docs/storage.md,
"Item sizes")."""

from __future__ import annotations

import json
from typing import Any

from engine import codec
from engine import usecases as uc
from engine.rulesets import get as get_ruleset
from tests.fairness import posting


def _dumps(doc: Any) -> str:
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":"))


def documents() -> list[str]:
    parts = []
    for rid in ("dragons", "plans", "pistol"):
        rules = get_ruleset(rid)
        presets = list(rules.presets(rules.config()).values())
        deps, _clock, _bot, mid = posting.started(
            rid, characters=(presets[0], presets[1 % len(presets)])
        )
        stored = deps.repo.load(mid).match.state
        assert stored is not None
        state = rules.load_state(stored)
        raw = rules.dump_order(rules.default_order(state, "p1"))
        parts.append(_dumps(codec.order_to_doc(uc.seal_order(deps, mid, 1, "p1", raw).order)))
        match = deps.repo.load(mid).match
        parts.append(_dumps(codec.match_to_doc(match) | {"version": match.version}))
    return parts


if __name__ == "__main__":
    print("\n".join(documents()))
