"""How a resolved turn reads in the group: the story first, the dice one tap away.

The reveal message is the ruleset UI's short story of the turn (who did what, who was hit
where, who is out), the turn counter, then every die and modifier in collapsed
``<blockquote expandable>`` blocks, then the proof block (:func:`fairness.reveal_proof`).
A phone shows the story; a tap opens the rest.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable

from engine.match import Match, TurnRecord
from handlers.telegram.i18n import Tr

# A collapsed block is kept under this many characters, so a long turn's details become
# several blocks that split_text can put into separate messages without cutting a tag.
BLOCK_MAX = 3000
_EXPANDABLE = re.compile(r"<blockquote expandable>.*?</blockquote>", re.S)
_TAGS = re.compile(r"</?[a-z]+( [^>]*)?>")


def expandable(lines: Iterable[str], limit: int = BLOCK_MAX) -> str:
    """``lines`` in collapsed blocks (blank lines dropped: a block keeps no paragraphs)."""
    blocks: list[str] = []
    current: list[str] = []
    size = 0
    for line in lines:
        if not line.strip():
            continue
        if current and size + len(line) + 1 > limit:
            blocks.append("\n".join(current))
            current, size = [], 0
        current.append(line)
        size += len(line) + 1
    if current:
        blocks.append("\n".join(current))
    return "\n\n".join(f"<blockquote expandable>{b}</blockquote>" for b in blocks)


def visible(text: str) -> str:
    """What a reader sees before tapping anything: the text without its collapsed blocks, as
    a client shows it (tags dropped, entities unescaped)."""
    return html.unescape(_TAGS.sub("", _EXPANDABLE.sub("", text))).strip()


def reveal_text(tr: Tr, match: Match, record: TurnRecord) -> str:
    """The group's reveal of ``record``: story, turn counter, details, proof."""
    from handlers.telegram.fairness import reveal_proof
    from handlers.telegram.render import turn_label
    from handlers.telegram.ui import get_ui

    ui = get_ui(match.ruleset)
    story, details = ui.reveal_parts(tr, match, record)
    text = "\n".join(line for line in story if line is not None).strip()
    text += "\n" + turn_label(tr, match, record.turn)
    if any(line.strip() for line in details):
        text += "\n\n" + tr("reveal.details") + "\n" + expandable(details)
    return text + "\n\n" + reveal_proof(tr, match, record)  # seed and salts: checkable
