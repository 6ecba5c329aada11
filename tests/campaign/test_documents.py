"""The sheet document (docs/campaign.md): the page's examples are accepted, bad entries are
named in the errors, nothing of a bad document is accepted, and the limits hold."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from engine import rulesets as registry
from engine.campaign import documents, library, roster
from engine.errors import Rejection

DOCS = Path(__file__).resolve().parents[2] / "docs"
DOC = DOCS / "campaign.md"


def _examples() -> list[tuple[str, str]]:
    """Sheet documents shown in docs/campaign.md and docs/bot.md (indented blocks too)."""
    found = []
    for page in (DOC, DOCS / "bot.md"):
        text = page.read_text(encoding="utf-8")
        for indent, kind, block in re.findall(r"( *)```(json|yaml)\n(.*?)```", text, re.S):
            body = "\n".join(line.removeprefix(indent) for line in block.split("\n"))
            if '"ruleset"' in body or "ruleset:" in body:
                found.append((kind, body))
    return found


def test_the_page_has_examples_in_both_formats() -> None:
    kinds = {k for k, _ in _examples()}
    assert kinds == {"json", "yaml"} and len(_examples()) >= 4


@pytest.mark.parametrize("kind,text", _examples())
def test_every_example_on_the_page_is_accepted(kind: str, text: str) -> None:
    rid = (json.loads(text) if kind == "json" else __import__("yaml").safe_load(text))["ruleset"]
    doc = library.parse_library(registry.get(rid), text, rid, by=1, now=0.0)
    assert doc["ruleset"] == rid and (doc["characters"] or doc["npcs"])


def _problems(exc: documents.DocumentError) -> list[tuple[str, str]]:
    return [(e.entry, e.problem.code) for e in exc.errors]


def test_each_bad_entry_is_named_and_nothing_is_returned() -> None:
    text = json.dumps(
        {
            "ruleset": "pistol",
            "characters": [
                {"name": "Good", "sheet": {"weapon": "rifle"}},
                {"name": "Broken", "sheet": {"weapon": "cannon"}},
                {"sheet": {"weapon": "rifle"}},
                {"name": "good ", "sheet": {"weapon": "rifle"}},
                "just text",
                {"name": "x" * 41, "sheet": {}},
                {"name": "No sheet"},
            ],
            "weapons": [],
        }
    )
    with pytest.raises(documents.DocumentError) as err:
        roster.parse_import(registry.get("pistol"), text, "pistol", [], 0.0)
    got = _problems(err.value)
    assert ("", "doc_unknown_key") in got
    assert ("#3", "entry_no_name") in got
    assert ("good", "entry_name_twice") in got
    assert ("#5", "entry_not_object") in got
    assert ("x" * 40, "entry_name_long") in got
    assert ("No sheet", "entry_no_sheet") in got
    assert ("Broken", "unknown_weapon") in got
    assert not any(name == "Good" for name, _ in got)


@pytest.mark.parametrize(
    "data,code",
    [
        (b"\xff\xfe\x00bad", "doc_not_text"),
        (b"ruleset: [unclosed", "doc_unreadable"),
        (b"- just\n- a list\n", "doc_not_object"),
        (b'{"ruleset": "dragons", "characters": []}', "doc_wrong_ruleset"),
        (b"x" * (documents.FILE_MAX_BYTES + 1), "doc_too_big"),
    ],
)
def test_a_document_that_is_not_one_is_refused_whole(data: bytes, code: str) -> None:
    with pytest.raises(documents.DocumentError) as err:
        roster.parse_import(registry.get("pistol"), data, "pistol", [], 0.0)
    assert [c for _, c in _problems(err.value)] == [code]


def test_library_limits_on_count_and_emptiness() -> None:
    rules = registry.get("pistol")
    many = {
        "ruleset": "pistol",
        "characters": [
            {"name": f"C{i}", "sheet": {"weapon": "rifle"}}
            for i in range(library.LIBRARY_MAX_ENTRIES + 1)
        ],
    }
    with pytest.raises(documents.DocumentError) as err:
        library.parse_library(rules, json.dumps(many), "pistol", by=1, now=0.0)
    assert _problems(err.value) == [("", "library_too_many")]
    with pytest.raises(documents.DocumentError) as err:
        library.parse_library(rules, '{"ruleset": "pistol"}', "pistol", by=1, now=0.0)
    assert _problems(err.value) == [("", "library_empty")]


def test_a_roster_import_beyond_the_limit_is_refused() -> None:
    kept = [roster.entry_doc("pistol", f"K{i}", {"weapon": "rifle"}, 0.0) for i in range(29)]
    two = {"ruleset": "pistol", "characters": [
        {"name": n, "sheet": {"weapon": "rifle"}} for n in ("New one", "New two")
    ]}  # fmt: skip
    with pytest.raises(documents.DocumentError) as err:
        roster.parse_import(registry.get("pistol"), json.dumps(two), "pistol", kept, 0.0)
    assert err.value.errors[0].problem == Rejection("roster_full", limit=roster.ROSTER_MAX)
    # Replacing a kept name does not count as a new one.
    one = {"ruleset": "pistol", "characters": [{"name": "k3", "sheet": {"weapon": "pistol"}}]}
    (entry,) = roster.parse_import(registry.get("pistol"), json.dumps(one), "pistol", kept, 0.0)
    assert entry["key"] == "k3"


def test_a_built_character_is_kept_once_under_a_free_name() -> None:
    sheet = {"weapon": "revolver", "perks": ["lucky"]}
    first = roster.keep_built("pistol", "Revolver + Lucky", sheet, [], 1.0)
    assert first is not None and first["name"] == "Revolver + Lucky"
    assert roster.keep_built("pistol", "Revolver + Lucky", dict(sheet), [first], 2.0) is None
    other = roster.keep_built("pistol", "Revolver + Lucky", {"weapon": "revolver"}, [first], 3.0)
    assert other is not None and other["name"] == "Revolver + Lucky 2"
