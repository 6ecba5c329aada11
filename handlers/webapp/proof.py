"""The "📜 Proof" page's API (docs/bot.md "The proof page"): the match's dossier, for the page
to verify in the reader's browser with its own verifier (``webapp-verifier/``, bundled as
``static/proof-bundle.js``; docs/fairness.md).

Who may have it is ``/dossier``'s rule (``handlers.telegram.features.records``): the GM at any
time, a player of the match once it is over. The dossier is built as ``/dossier`` builds it:
a running match's open turn shows its fingerprints, never an unrevealed order, salt or seed.
The dossier goes out as JSON *text* inside the answer, so the page reads its numbers as Python
wrote them (``1.0`` stays a float: the fingerprints hash Python's canonical JSON).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from engine import usecases
from engine.dossier import build_dossier
from engine.match import Phase
from handlers.telegram.features.records import dossier_allowed

if TYPE_CHECKING:
    from telegram import User

    from handlers.telegram.i18n import Tr
    from handlers.webapp.api import WebApp

_ID = re.compile(r"^[A-Za-z0-9_-]{1,40}$")


def dossier(webapp: WebApp, user: User, tr: Tr, data: Mapping[str, Any]) -> dict[str, Any]:
    """``POST /api/dossier`` ``{"match": id}``: ``{"dossier": JSON text, "title", ...}``."""
    from handlers.telegram.screens.render import match_title
    from handlers.webapp.api import Refused
    from handlers.webapp.text import plain
    from handlers.webapp.views import strings

    mid = data.get("match")
    if not isinstance(mid, str) or not _ID.match(mid):
        raise Refused(400, "webapp.err.field", field="match")
    deps = webapp.backend.deps
    loaded = deps.repo.load(mid)
    match = loaded.match
    if not dossier_allowed(match, user.id):
        raise Refused(403, "webapp.err.no_dossier")
    current = list(loaded.orders.values()) if match.phase is Phase.RUNNING else []
    doc = build_dossier(match, usecases.history(deps, mid), current, generated_at=deps.clock())
    return {
        "dossier": json.dumps(doc, ensure_ascii=False),
        "title": plain(match_title(tr, match)),
        "ruleset": tr(f"ruleset.{match.ruleset}"),
        "lang": tr.lang,
        "strings": strings(tr.lang),
    }
