"""The chronicle's posts: a fight's sections packed into forum posts within a length limit,
numbered when there are several (docs/campaign.md "Chronicle")."""

from __future__ import annotations

from collections.abc import Callable, Sequence

# Characters per post. BBCode: vBulletin's default ``postmaxchars`` (10,000), the lowest of the
# common engines' defaults (phpBB 60,000, XenForo 25,000, MyBB 65,535). Markdown: Discourse's
# default ``max_post_length`` (32,000). Headroom is left for the numbering line.
BBCODE_POST_MAX = 10_000
MARKDOWN_POST_MAX = 32_000
_NUMBER_ROOM = 40


def _cut(section: str, limit: int) -> list[str]:
    """A section longer than ``limit`` cut at line ends (a single longer line, hard)."""
    pieces: list[str] = []
    current = ""
    for whole in section.split("\n"):
        line = whole
        while len(line) > limit:
            if current:
                pieces.append(current)
                current = ""
            pieces.append(line[:limit])
            line = line[limit:]
        candidate = f"{current}\n{line}" if current else line
        if len(candidate) > limit:
            pieces.append(current)
            current = line
        else:
            current = candidate
    if current:
        pieces.append(current)
    return pieces


def pack(
    sections: Sequence[str], limit: int, number: Callable[[int, int], str], sep: str = "\n\n"
) -> list[str]:
    """``sections`` joined into as few posts as fit ``limit`` characters, a section split
    only when it alone is too long; with several posts each starts with ``number(i, n)``."""
    room = limit - _NUMBER_ROOM
    posts: list[str] = []
    current = ""
    for section in sections:
        for piece in _cut(section, room) if len(section) > room else [section]:
            candidate = f"{current}{sep}{piece}" if current else piece
            if len(candidate) > room and current:
                posts.append(current)
                current = piece
            else:
                current = candidate
    if current:
        posts.append(current)
    if len(posts) > 1:
        posts = [f"{number(i, len(posts))}\n{p}" for i, p in enumerate(posts, 1)]
    return posts
