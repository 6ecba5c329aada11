"""The chronicle of a fight (docs/campaign.md "The chronicle"): the match told turn by turn
from its stored records - the sides and characters, each turn's orders as what the characters
did and what happened (the reveal's story, no dice), the result - as forum posts in BBCode and
Markdown, and the turn pictures stacked into one tall image.

The text is made by the same renderers as the reveal (Telegram HTML), then converted
(:class:`_Convert`): bold, italic, underline, strike, links and quotes map to each markup, other
tags are dropped, and the text is escaped for the target (Markdown's punctuation)."""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from html.parser import HTMLParser

from engine.match import Match, Phase, TurnRecord
from handlers.telegram.i18n import Raw, Tr
from handlers.telegram.screens import render
from handlers.telegram.ui import get_ui

_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>#|~])")
_TAGS = {
    "bbcode": {"b": ("[b]", "[/b]"), "strong": ("[b]", "[/b]"), "i": ("[i]", "[/i]"),
               "em": ("[i]", "[/i]"), "u": ("[u]", "[/u]"), "s": ("[s]", "[/s]")},
    "markdown": {"b": ("**", "**"), "strong": ("**", "**"), "i": ("*", "*"), "em": ("*", "*"),
                 "u": ("", ""), "s": ("~~", "~~"), "code": ("`", "`")},
}  # fmt: skip


class _Convert(HTMLParser):
    """Telegram HTML to BBCode or Markdown (the subset the bot writes)."""

    def __init__(self, target: str) -> None:
        super().__init__(convert_charrefs=True)
        self.target = target
        self.out: list[str] = []
        self.href: list[str] = []
        self.quote: list[int] = []  # where each open quote's text starts in ``out``
        self.pre = 0  # inside a preformatted block (a table): kept as it is

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "pre":
            self.pre += 1
            self.out.append("[code]" if self.target == "bbcode" else "\n```\n")
        elif self.pre:
            return
        elif tag in _TAGS[self.target]:
            self.out.append(_TAGS[self.target][tag][0])
        elif tag == "a":
            self.href.append(dict(attrs).get("href") or "")
            self.out.append("[" if self.target == "markdown" else f"[url={self.href[-1]}]")
        elif tag == "blockquote":
            self.out.append("[quote]" if self.target == "bbcode" else "")
            self.quote.append(len(self.out))

    def handle_endtag(self, tag: str) -> None:
        if tag == "pre" and self.pre:
            self.pre -= 1
            self.out.append("[/code]" if self.target == "bbcode" else "\n```\n")
        elif self.pre:
            return
        elif tag in _TAGS[self.target]:
            self.out.append(_TAGS[self.target][tag][1])
        elif tag == "a" and self.href:
            href = self.href.pop()
            self.out.append(f"]({href})" if self.target == "markdown" else "[/url]")
        elif tag == "blockquote" and self.quote:
            start = self.quote.pop()
            if self.target == "bbcode":
                self.out.append("[/quote]")
            else:
                inner = "".join(self.out[start:]).strip("\n")
                self.out[start:] = ["\n".join("> " + line for line in inner.split("\n"))]

    def handle_data(self, data: str) -> None:
        if self.target == "markdown" and not self.pre:
            data = _MD_SPECIAL.sub(r"\\\1", data)
        self.out.append(data)


def convert(text: str, target: str) -> str:
    """Telegram HTML ``text`` as ``target`` markup ("bbcode" or "markdown")."""
    parser = _Convert(target)
    parser.feed(text)
    parser.close()
    return "".join(parser.out).strip()


def sections(tr: Tr, match: Match, history: Sequence[TurnRecord]) -> list[tuple[str, list[str]]]:
    """The chronicle as (heading, lines) in Telegram HTML: the cast, each resolved turn, the
    result (when the match is over)."""
    ui = get_ui(match.ruleset)
    cast = []
    for s in match.seats:
        label = ui.character_label(tr, s.character or {}) if s.character else "—"
        if s.side and s.side != s.pid:
            line = tr("chronicle.cast_side", name=s.name, side=s.side, character=Raw(label))
        else:
            line = tr("chronicle.cast_line", name=s.name, character=Raw(label))
        cast.append(line)
    out = [(tr("chronicle.cast"), cast)]
    for record in history:
        if record.turn < 1:
            continue
        story, _details = ui.reveal_parts(tr, match, record)  # its title line, then the story
        out.append((tr("chronicle.turn", turn=record.turn), list(story[1:])))
    if match.phase is Phase.FINISHED:
        out.append((tr("chronicle.result"), [ui.outcome_text(tr, match)]))
    else:
        out.append((tr("chronicle.so_far"), [tr("chronicle.ongoing", turn=match.turn)]))
    return out


def posts(tr: Tr, match: Match, history: Sequence[TurnRecord], target: str) -> list[str]:
    """The chronicle as forum posts of ``target`` markup within its post limit."""
    from engine.campaign.chronicle import BBCODE_POST_MAX, MARKDOWN_POST_MAX, pack

    parts = []
    for heading, lines in sections(tr, match, history):
        body = [convert(line, target) for line in lines if line.strip()]
        head = convert(heading, target)
        if target == "bbcode":
            parts.append("\n".join([f"[b][u]{head}[/u][/b]", *body]))
        else:
            parts.append("\n\n".join([f"### {head}", *body]))
    title = convert(tr("chronicle.title", title=Raw(render.match_title(tr, match))), target)
    if target == "bbcode":
        return pack([f"[b]{title}[/b]", *parts], BBCODE_POST_MAX, lambda i, n: f"[b][{i}/{n}][/b]")
    return pack([f"## {title}", *parts], MARKDOWN_POST_MAX, lambda i, n: f"**\\[{i}/{n}\\]**")


def as_file(tr: Tr, found: Sequence[str], target: str) -> bytes:
    """Posts in one file, each after a line saying which post it is."""
    if len(found) == 1:
        return (found[0] + "\n").encode()
    chunks = []
    for i, post in enumerate(found, 1):
        mark = tr("chronicle.post_mark", i=i, n=len(found))
        chunks.append(f"----- {mark} -----\n\n{post}" if target == "bbcode" else f"{post}")
    sep = "\n\n" if target == "bbcode" else "\n\n---\n\n"
    return (sep.join(chunks) + "\n").encode()


def tall_picture(tr: Tr, match: Match, history: Sequence[TurnRecord]) -> bytes | None:
    """Every turn's reveal picture, top to bottom, as one PNG (None: the ruleset draws none)."""
    from PIL import Image

    from handlers.telegram.screens import pictures

    images = []
    for record in history:
        if record.turn < 1:
            continue
        png = pictures.reveal_picture(tr, match, record)
        if png is not None:
            images.append(Image.open(io.BytesIO(png)).convert("RGB"))
    if not images:
        return None
    width = max(i.width for i in images)
    tall = Image.new("RGB", (width, sum(i.height for i in images)), "white")
    y = 0
    for img in images:
        tall.paste(img, (0, y))
        y += img.height
    buf = io.BytesIO()
    tall.quantize(64).save(buf, "PNG", optimize=True)
    return buf.getvalue()
