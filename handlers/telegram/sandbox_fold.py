"""How the offline sandbox shows a message's expandable blocks in a terminal: folded as a
phone shows them (a ▸ line naming ``:unfold``), or open with a bar beside each line."""

from __future__ import annotations

import re

FOLD = re.compile(r"<blockquote expandable>(.*?)</blockquote>", re.S)


def folded(text: str, number: int) -> str:
    """``text`` with each expandable block folded as a phone shows it: a ▸ line saying how to
    open it (``:unfold`` and the message's number)."""

    def fold(m: re.Match[str]) -> str:
        lines = m.group(1).strip("\n").count("\n") + 1
        return f"▸ [{lines} more line(s) folded: :unfold {number}]"

    return FOLD.sub(fold, text)


def unfolded(text: str) -> str:
    """``text`` with its blocks open, each line of a block marked with a bar."""

    def bar(m: re.Match[str]) -> str:
        return "\n".join(f"│ {line}" for line in m.group(1).strip("\n").split("\n"))

    return re.sub(r"<blockquote(?: expandable)?>(.*?)</blockquote>", bar, text, flags=re.S)
