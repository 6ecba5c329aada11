"""The "📜 Proof" page's record (docs/bot.md "The proof page"): the match's dossier, for the
page to verify in the reader's browser with its own verifier (``webapp-verifier/``, bundled as
``static/proof-bundle.js``; docs/fairness.md). ``POST /api/dossier`` (:mod:`handlers.webapp.api`)
answers with it.

Who may have it is ``/dossier``'s rule (``handlers.telegram.shared.dossier_access``): the GM at
any time, a player of the match once it is over. The dossier is built as ``/dossier`` builds
it: a running match's open turn shows its fingerprints, never an unrevealed order, salt or
seed. It goes out as JSON *text* inside the answer, so the page reads its numbers as Python
wrote them (``1.0`` stays a float: the fingerprints hash Python's canonical JSON).
"""

from __future__ import annotations

import json

from engine import usecases
from engine.dossier import build_dossier
from engine.match import Match, Phase
from engine.usecases import Deps
from handlers.telegram.shared.dossier_access import dossier_allowed


class NotAllowedError(Exception):
    """The reader may not have this match's record (yet)."""


def dossier_text(deps: Deps, match_id: str, user_id: int) -> tuple[Match, str]:
    """The match and its dossier as JSON text, for ``user_id`` if ``/dossier`` would give it."""
    loaded = deps.repo.load(match_id)
    match = loaded.match
    if not dossier_allowed(match, user_id):
        raise NotAllowedError(match_id)
    current = list(loaded.orders.values()) if match.phase is Phase.RUNNING else []
    doc = build_dossier(match, usecases.history(deps, match_id), current, generated_at=deps.clock())
    return match, json.dumps(doc, ensure_ascii=False)
