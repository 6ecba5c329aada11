"""The group's reveal of a resolved turn as text: story, turn counter, details collapsed, proof
(moved from ``handlers.telegram.reveal``, which keeps the plain text helpers the ruleset UIs use,
so that ``ui`` -> ``reveal`` closes no import cycle)."""

from __future__ import annotations

from engine.match import Match, TurnRecord
from handlers.telegram.i18n import Tr
from handlers.telegram.reveal import expandable


def reveal_text(tr: Tr, match: Match, record: TurnRecord) -> str:
    """The group's reveal of ``record``: story, turn counter, details, proof."""
    from handlers.telegram.screens.fairness import reveal_proof
    from handlers.telegram.screens.render import turn_label
    from handlers.telegram.ui import get_ui

    ui = get_ui(match.ruleset)
    story, details = ui.reveal_parts(tr, match, record)
    text = "\n".join(line for line in story if line is not None).strip()
    text += "\n" + turn_label(tr, match, record.turn)
    if any(line.strip() for line in details):
        text += "\n\n" + tr("reveal.details") + "\n" + expandable(details)
    return text + "\n\n" + reveal_proof(tr, match, record)  # seed and salts: checkable
