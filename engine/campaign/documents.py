"""The sheet document: characters (and, in a group's library, NPC templates) as a JSON or YAML
file (docs/campaign.md). Parsing is strict about shape and lenient about nothing: every problem
is a :class:`EntryError` naming the entry, so the edge can say what is wrong in plain words, and
a document with any error is refused whole.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.errors import Rejection

# Limits (documented in docs/campaign.md; enforced here and by the edge before a download).
FILE_MAX_BYTES = 128_000  # an uploaded file
NAME_MAX = 40  # a character's name in a roster or library
SHEET_MAX_BYTES = 8_000  # one sheet, as compact JSON
SECTIONS = ("characters", "npcs")  # a document's lists of entries


@dataclass(frozen=True, slots=True)
class Entry:
    """One named sheet of a document (``section``: characters or npcs)."""

    section: str
    name: str
    sheet: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class EntryError:
    """What is wrong with one entry (``entry``: its name, or ``#n`` when it has none; "" for
    the document as a whole): a :class:`Rejection` the edge renders in plain words."""

    entry: str
    problem: Rejection


class DocumentError(Exception):
    """A document refused: every error found, in document order."""

    def __init__(self, errors: Sequence[EntryError]) -> None:
        super().__init__(f"{len(errors)} errors")
        self.errors = tuple(errors)


def name_key(name: str) -> str:
    """The key two names collide on (case and spacing ignored)."""
    return re.sub(r"\s+", " ", name).strip().casefold()


def load_text(data: bytes | str) -> Any:
    """The document's data: JSON when it parses as JSON, else YAML (safe loader: data only).
    Raises :class:`DocumentError` for a file too big, not text, or not JSON/YAML."""
    raw = data.encode() if isinstance(data, str) else data
    if len(raw) > FILE_MAX_BYTES:
        raise DocumentError([EntryError("", Rejection("doc_too_big", limit=FILE_MAX_BYTES))])
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise DocumentError([EntryError("", Rejection("doc_not_text"))]) from None
    try:
        return json.loads(text)
    except ValueError:
        pass
    import yaml  # only here: nothing on the webhook's cold path parses YAML

    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        line = getattr(getattr(exc, "problem_mark", None), "line", None)
        problem = Rejection("doc_unreadable", line=(line or 0) + 1)
        raise DocumentError([EntryError("", problem)]) from None


def check_name(name: Any, seen: set[str]) -> Rejection | None:
    if not isinstance(name, str) or not name.strip():
        return Rejection("entry_no_name")
    if len(name.strip()) > NAME_MAX:
        return Rejection("entry_name_long", limit=NAME_MAX)
    if name_key(name) in seen:
        return Rejection("entry_name_twice")
    return None


def _entry(section: str, n: int, raw: Any, seen: set[str]) -> Entry | EntryError:
    label = f"#{n}"
    if not isinstance(raw, Mapping):
        return EntryError(label, Rejection("entry_not_object"))
    name = raw.get("name")
    if isinstance(name, str) and name.strip():
        label = name.strip()[:NAME_MAX]
    bad = check_name(name, seen)
    if bad is not None or not isinstance(name, str):
        return EntryError(label, bad or Rejection("entry_no_name"))
    sheet = raw.get("sheet")
    if not isinstance(sheet, Mapping):
        return EntryError(label, Rejection("entry_no_sheet"))
    if len(json.dumps(sheet, separators=(",", ":"))) > SHEET_MAX_BYTES:
        return EntryError(label, Rejection("entry_sheet_big", limit=SHEET_MAX_BYTES))
    seen.add(name_key(name))
    return Entry(section, name.strip(), dict(sheet))


def _entries(
    doc: Any, ruleset: str, sections: Sequence[str], extra: Sequence[str] = ()
) -> tuple[list[Entry], list[EntryError]]:
    """The well-formed entries of a parsed document for ``ruleset``, in order, and the errors
    of the others (names, sizes, shape). A document that is not one at all raises."""
    if not isinstance(doc, Mapping):
        raise DocumentError([EntryError("", Rejection("doc_not_object"))])
    if doc.get("ruleset") != ruleset:
        problem = Rejection("doc_wrong_ruleset", found=str(doc.get("ruleset", "")), want=ruleset)
        raise DocumentError([EntryError("", problem)])
    unknown = [k for k in doc if k not in ("ruleset", "sekundant", *sections, *extra)]
    errors: list[EntryError] = [
        EntryError("", Rejection("doc_unknown_key", key=str(k))) for k in unknown
    ]
    found: list[Entry] = []
    seen: set[str] = set()
    for section in sections:
        items = doc.get(section, [])
        if not isinstance(items, list):
            errors.append(EntryError("", Rejection("doc_not_list", key=section)))
            continue
        for n, raw in enumerate(items, 1):
            got = _entry(section, n, raw, seen)
            if isinstance(got, EntryError):
                errors.append(got)
            else:
                found.append(got)
    return found, errors


def checked(
    rules: Any,
    doc: Any,
    ruleset: str,
    sections: Sequence[str],
    *,
    extra: Sequence[str] = (),
    config: Any = None,
    errors: Sequence[EntryError] = (),
) -> list[Entry]:
    """Every entry of a parsed document, each sheet validated by the ruleset
    (``rules.check_character`` with its default configuration). Raises
    :class:`DocumentError` with every error found (shape, names, sizes, sheets)."""
    found, bad = _entries(doc, ruleset, sections, extra)
    bad = [*errors, *bad]
    config = rules.config() if config is None else config
    for e in found:
        try:
            rules.check_character(config, e.sheet)
        except Rejection as exc:
            bad.append(EntryError(e.name, exc))
    if bad:
        raise DocumentError(bad)
    return found


def document(ruleset: str, sections: Mapping[str, Sequence[Entry]]) -> dict[str, Any]:
    """A document of ``sections`` (what an export writes; :func:`entries` reads it back)."""
    out: dict[str, Any] = {"sekundant": 1, "ruleset": ruleset}
    for section, items in sections.items():
        out[section] = [{"name": e.name, "sheet": dict(e.sheet)} for e in items]
    return out
