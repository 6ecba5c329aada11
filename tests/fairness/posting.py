"""What the bot does each time a turn opens, for tests that drive the use cases directly: its
seed commitment goes to the group as its own message (docs/fairness.md), and that message's
id and time are recorded. ``verify`` requires it for every turn with a sealed order."""

from __future__ import annotations

import itertools

from engine import usecases as uc

_messages = itertools.count(7000)


def post(deps: uc.Deps, match_id: str) -> None:
    m = deps.repo.load(match_id).match
    if m.commitment is not None and m.commitment_posted_at is None:
        uc.commitment_posted(deps, match_id, m.turn, m.commitment, next(_messages))
