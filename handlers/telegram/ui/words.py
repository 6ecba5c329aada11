"""Typed words: the generic ``key value`` / JSON parser of typed orders and characters, and
each ruleset's table of typed words (``<id>/aliases.json``, in its UI package)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from engine.errors import Rejection


def _value(word: str) -> Any:
    """A typed value: int, ``a:b`` pair of ints, comma list, or the word itself."""
    try:
        return int(word)
    except ValueError:
        pass
    if ":" in word:
        a, _, b = word.partition(":")
        try:
            return [int(a), int(b)]
        except ValueError:
            return word
    if "," in word:
        return [_value(w) for w in word.split(",") if w]
    return word


def parse_words(words: Sequence[str], *, what: str) -> dict[str, Any]:
    """``{"a": 1}`` JSON, or ``key value key value`` / ``key=value`` words. Raises a
    :class:`Rejection` (``typed_syntax``) naming what was expected."""
    text = " ".join(words).strip()
    if not text:
        raise Rejection("typed_empty", what=what)
    if text.startswith("{"):
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            raise Rejection("typed_json", what=what, detail=exc.msg) from None
        except RecursionError:  # a message can nest deeper than the parser recurses
            raise Rejection("typed_too_deep", what=what) from None
        if not isinstance(value, dict):
            raise Rejection("typed_json", what=what, detail="object expected")
        return value
    flat: list[str] = []
    for w in words:
        if "=" in w:
            k, _, v = w.partition("=")
            flat += [k, v]
        else:
            flat.append(w)
    if len(flat) % 2:
        raise Rejection("typed_pairs", what=what, word=flat[-1])
    return {flat[i].lower(): _value(flat[i + 1]) for i in range(0, len(flat), 2)}


ALIAS_DIR = Path(__file__).parent


@cache
def aliases(ruleset_id: str) -> dict[str, dict[str, str]]:
    """The ruleset's table of typed words (``<id>/aliases.json``, in the ruleset's UI package): per
    part of the syntax, a word or phrase a player may type (the Russian words the buttons
    show, translated names) mapped to the canonical word the parser reads. Data, not code:
    add words there."""
    try:
        path = ALIAS_DIR / ruleset_id / "aliases.json"
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    return {
        part: {k.lower(): v for k, v in table.items()}
        for part, table in raw.items()
        if isinstance(table, dict)
    }


def leading_phrase(table: Mapping[str, str], words: Sequence[str]) -> tuple[str, int] | None:
    """The canonical word for the longest phrase (up to 4 words) ``words`` start with, and how
    many words it took; None when they start with no phrase of ``table``."""
    for size in range(min(4, len(words)), 0, -1):
        phrase = " ".join(words[:size]).lower()
        if phrase in table:
            return table[phrase], size
    return None


def alias_words(table: Mapping[str, str], text: str) -> str:
    """``text`` with every word of ``table`` replaced by its canonical word, also inside
    ``key:value`` and ``a/b/c`` (other words and the spacing of the rest are kept)."""

    def one(word: str) -> str:
        return table.get(word.lower(), word)

    def token(tok: str) -> str:
        return ":".join("/".join(one(p) for p in part.split("/")) for part in tok.split(":"))

    return " ".join(token(t) for t in text.split(" "))


def bare_name(text: str) -> str:
    """A shown name without its icon and note: "🦎 Налётчик (статист)" -> "Налётчик"."""
    text = re.sub(r"\s*\([^)]*\)\s*$", "", text)
    return re.sub(r"^[^\w]+", "", text).strip()


@cache
def shown_names(*prefixes: str) -> dict[str, str]:
    """Every name the bot shows under the message ids ``<prefix><id>``, in every language, as a
    player types it (lowercase, without icon and note; ``ё`` as ``е`` too), mapped to its id;
    the ids themselves (``_`` as a space too). Typing a name a button or a sheet shows, in
    either language, reads as that thing (docs/glossary.md)."""
    from handlers.telegram.i18n import LANGS, message_ids, t

    out: dict[str, str] = {}
    for prefix in prefixes:
        for lang in LANGS:
            for key in message_ids(lang, prefix):
                ident = key.removeprefix(prefix)
                name = bare_name(t(lang, key)).lower()
                if "{" in name or len(name.split()) > 4:
                    continue  # a sentence, not a name
                for word in (ident, ident.replace("_", " "), name, name.replace(" ", "_")):
                    out.setdefault(word.lower(), ident)
                    out.setdefault(word.lower().replace("ё", "е"), ident)
    return out


def replace_names(table: Mapping[str, str], text: str) -> str:
    """``text`` with every name of ``table`` (the longest first, whole words, a phrase too)
    replaced by its id: "оружие=дуэльный пистолет" -> "оружие=dueling_pistol"."""
    for name in sorted(table, key=len, reverse=True):
        if name != table[name]:
            pattern = r"(?<![\w-])" + r"\s+".join(map(re.escape, name.split())) + r"(?![\w-])"
            text = re.sub(pattern, table[name], text, flags=re.I)
    return text
