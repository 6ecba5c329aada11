"""A library's tables (docs/campaign.md "Tables"): pistol's weapons and perks extended, the
library's sheets checked against them, bad tables named, refused for rulesets without them."""

from __future__ import annotations

import json

import pytest

from engine import rulesets as registry
from engine.campaign import documents, library
from engine.errors import Rejection

PISTOL = registry.get("pistol")
OLD_TOM = {"name": "Old Tom", "sheet": {"weapon": "blunderbuss", "perks": ["iron_nerves"]}}
TABLES = {
    "weapons": {"blunderbuss": {"name": "blunderbuss", "zone": 6, "speed": -2}},
    "perks": {"iron_nerves": {"name": "iron nerves", "shrug_parts": ["arm"], "shrug_count": 2}},
}


def _doc(**kw: object) -> str:
    return json.dumps({"ruleset": "pistol", "characters": [OLD_TOM], **kw})


def test_tables_extend_the_defaults_and_their_sheets_are_accepted() -> None:
    doc = library.parse_library(PISTOL, _doc(tables=TABLES), "pistol", by=1, now=0.0)
    assert doc["tables"] == TABLES
    patch = library.tables_patch(PISTOL, "pistol", doc["tables"])
    config = PISTOL.config(patch)
    assert {"blunderbuss", "rifle"} <= set(config.weapons)  # added, defaults kept
    PISTOL.check_character(config, OLD_TOM["sheet"])


def test_without_its_tables_the_sheet_is_refused_by_name() -> None:
    with pytest.raises(documents.DocumentError) as err:
        library.parse_library(PISTOL, _doc(), "pistol", by=1, now=0.0)
    assert [(e.entry, e.problem.code) for e in err.value.errors] == [("Old Tom", "unknown_weapon")]


@pytest.mark.parametrize(
    "tables,code",
    [
        ({"silhouette": {}}, "tables_unknown"),
        ({"weapons": ["blunderbuss"]}, "tables_not_object"),
        ({"weapons": {"blunderbuss": {"name": "b", "zone": 99, "speed": 0}}}, "invalid_field"),
    ],
)
def test_bad_tables_are_named_and_nothing_is_accepted(tables: object, code: str) -> None:
    with pytest.raises(documents.DocumentError) as err:
        library.parse_library(PISTOL, _doc(tables=tables), "pistol", by=1, now=0.0)
    assert ("tables", code) in [(e.entry, e.problem.code) for e in err.value.errors]


def test_rulesets_without_tables_refuse_them() -> None:
    with pytest.raises(Rejection) as err:
        library.tables_patch(registry.get("dragons"), "dragons", {"weapons": {}})
    assert err.value.code == "tables_unknown"
