"""Texts and files of the campaign features (``features/roster.py``, ``library.py``): a
refused document's errors in plain words, sheets as files (docs/campaign.md)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from engine.match import Match
from handlers.telegram import plain
from handlers.telegram.callbacks import Callback
from handlers.telegram.i18n import Raw, Tr
from handlers.telegram.ui import Button, esc

MAX_SHOWN_ERRORS = 10


def errors_text(tr: Tr, errors: Any) -> str:
    """A refused document: one line per entry that is wrong (its name, what is wrong), the
    first :data:`MAX_SHOWN_ERRORS`, then how many more; nothing was saved."""
    lines = [tr("campaign.doc_refused")]
    for e in list(errors)[:MAX_SHOWN_ERRORS]:
        problem = Raw(plain.rejection_text(tr, e.problem))
        if e.entry:
            lines.append(tr("campaign.err_entry", entry=e.entry, problem=problem))
        else:
            lines.append(tr("campaign.err_doc", problem=problem))
    more = len(errors) - MAX_SHOWN_ERRORS
    if more > 0:
        lines.append(tr.n("campaign.err_more", more))
    lines.append(tr("campaign.doc_help"))
    return "\n".join(lines)


def sheet_file(doc: Mapping[str, Any]) -> bytes:
    """A sheet document as the JSON file a player or GM downloads (and may send back)."""
    return (json.dumps(doc, ensure_ascii=False, indent=2) + "\n").encode()


def sheet_block(sheet: Mapping[str, Any]) -> str:
    """A sheet as JSON, collapsed (a tap opens it)."""
    body = esc(json.dumps(dict(sheet), ensure_ascii=False, indent=1))
    return f"<blockquote expandable><code>{body}</code></blockquote>"


UNRATED = "unrated"  # engine.campaign.ladder.UNRATED (not imported: the lobby is drawn often)


def lobby_lines(tr: Tr, match: Match) -> list[str]:
    """The lobby's line when the GM marked the match unrated (off the ladder)."""
    return [tr("ladder.lobby_unrated")] if match.ui.get(UNRATED) else []


def lobby_rows(tr: Tr, match: Match) -> list[list[Button]]:
    """The GM's ⚖️ switch between a rated and an unrated match (``features/ladder.py``)."""
    key = "ladder.btn_unrated" if match.ui.get(UNRATED) else "ladder.btn_rated"
    return [[Button(tr(key), Callback("cru", match.id))]]
