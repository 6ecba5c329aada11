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

# The configuration tables a library may extend, by ruleset (docs/campaign.md "Tables"):
# pistol's weapons (P12) and perks (P17), which sheets name. Dragons and plans sheets carry
# their own weapons and skills, so their libraries hold sheets only.
TABLES: Mapping[str, tuple[str, ...]] = {"pistol": ("weapons", "perks")}
LIBRARY_MAX_ENTRIES = 50  # characters and NPC templates together, per group and ruleset
LIBRARY_MAX_BYTES = 64_000  # the stored document, as compact JSON


def tables_patch(rules: Any, ruleset: str, raw: Any) -> dict[str, Any]:
    """The match configuration patch a library's ``tables`` make: each named table is the
    default one with the library's entries added (an entry of the same id replaced).
    Raises :class:`Rejection` naming what is wrong."""
    allowed = TABLES.get(ruleset, ())
    known = ", ".join(allowed) or "-"
    if not isinstance(raw, Mapping):
        raise Rejection("tables_not_object", known=known)
    defaults = rules.config().model_dump(mode="json")
    patch: dict[str, Any] = {}
    for key, table in raw.items():
        if key not in allowed:
            raise Rejection("tables_unknown", key=str(key), known=known)
        if not isinstance(table, Mapping):
            raise Rejection("tables_not_object", known=known)
        patch[key] = {**defaults[key], **json.loads(json.dumps(dict(table)))}
    rules.config(patch)  # each entry checked by the ruleset's own configuration model
    return patch


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
    errors, config, tables = [], None, raw.get("tables") if isinstance(raw, dict) else None
    if tables is not None:
        try:
            config = rules.config(tables_patch(rules, ruleset, tables))
        except Rejection as exc:
            errors.append(EntryError("tables", exc))
    found = checked(rules, raw, ruleset, SECTIONS, extra=("tables",), config=config, errors=errors)
    if not found and tables is None:
        raise DocumentError([EntryError("", Rejection("library_empty"))])
    sections = {s: [e for e in found if e.section == s] for s in SECTIONS}
    doc = document(ruleset, sections) | {"uploaded_by": by, "uploaded_at": now}
    if tables is not None:
        doc["tables"] = json.loads(json.dumps(tables))
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
