"""The group's reveal of a resolved turn as text: story, turn counter, details collapsed, proof
(moved from ``handlers.telegram.reveal``, which keeps the plain text helpers the ruleset UIs use,
so that ``ui`` -> ``reveal`` closes no import cycle)."""

from __future__ import annotations

from engine.match import Match, TurnRecord
from handlers.telegram.i18n import Tr
from handlers.telegram.reveal import expandable


def reveal_text(tr: Tr, match: Match, record: TurnRecord) -> str:
    """The group's reveal of ``record``: story, turn counter, details, proof."""
    story, rest = reveal_pieces(tr, match, record)
    return story + "\n\n" + rest


def reveal_pieces(tr: Tr, match: Match, record: TurnRecord) -> tuple[str, str]:
    """The reveal in two pieces: the story with the turn counter (a picture's caption when it
    fits), and the details collapsed with the proof (seed and salts: checkable)."""
    from handlers.telegram.screens.fairness import reveal_proof
    from handlers.telegram.screens.render import turn_label
    from handlers.telegram.ui import get_ui

    ui = get_ui(match.ruleset)
    story, details = ui.reveal_parts(tr, match, record)
    text = "\n".join(line for line in story if line is not None).strip()
    text += "\n" + turn_label(tr, match, record.turn)
    rest = ""
    if any(line.strip() for line in details):
        rest = tr("reveal.details") + "\n" + expandable(details) + "\n\n"
    return text, rest + reveal_proof(tr, match, record)
