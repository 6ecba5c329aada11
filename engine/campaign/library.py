"""A group's library: presets a GM uploads for the group's lobbies (characters for players,
NPC templates for the GM), one document per ruleset (docs/campaign.md)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from engine.campaign.documents import (
    SECTIONS,
    DocumentError,
    EntryError,
    checked,
    document,
    load_text,
)
from engine.errors import Rejection

LIBRARY_MAX_ENTRIES = 50  # characters and NPC templates together, per group and ruleset
LIBRARY_MAX_BYTES = 64_000  # the stored document, as compact JSON


def parse_library(
    rules: Any, data: bytes | str, ruleset: str, *, by: int, now: float
) -> dict[str, Any]:
    """The library document to store for an uploaded file: every entry checked (names,
    sizes, the ruleset's own sheet check), all or nothing. Raises :class:`DocumentError`."""
    raw = load_text(data)
    count = sum(len(v) for k, v in (raw.items() if isinstance(raw, dict) else ()) if k in SECTIONS
                and isinstance(v, list))  # fmt: skip
    if count > LIBRARY_MAX_ENTRIES:  # before any sheet is checked: a huge file is cut short
        problem = Rejection("library_too_many", limit=LIBRARY_MAX_ENTRIES, have=count)
        raise DocumentError([EntryError("", problem)])
    found = checked(rules, raw, ruleset, SECTIONS)
    if not found:
        raise DocumentError([EntryError("", Rejection("library_empty"))])
    sections = {s: [e for e in found if e.section == s] for s in SECTIONS}
    doc = document(ruleset, sections) | {"uploaded_by": by, "uploaded_at": now}
    if len(json.dumps(doc, separators=(",", ":"))) > LIBRARY_MAX_BYTES:
        raise DocumentError([EntryError("", Rejection("library_big", limit=LIBRARY_MAX_BYTES))])
    return doc


def presets(library: Mapping[str, Any] | None, section: str) -> list[tuple[str, dict[str, Any]]]:
    """(name, sheet) of a stored library's ``section``, in document order."""
    if not library:
        return []
    return [(str(e["name"]), dict(e["sheet"])) for e in library.get(section, [])]


def without(library: Mapping[str, Any], section: str, name: str) -> dict[str, Any]:
    """The library with one entry removed (the GM's remove button)."""
    kept = [e for e in library.get(section, []) if e["name"] != name]
    return {**library, section: kept}
