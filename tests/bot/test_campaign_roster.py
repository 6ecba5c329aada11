"""The roster through the bot (docs/campaign.md "My characters"): a typed character is kept,
offered as one tap in the next lobby, shown, exported, imported and deleted in private."""

from __future__ import annotations

import json

import yaml

from engine.match import Phase
from handlers.telegram.harness import plain
from tests.bot.conftest import Duel


def _second_lobby(duel: Duel) -> None:
    h = duel.h
    h.say(duel.gm, duel.g, "/duel@sekundant_bot")
    h.press_text(duel.gm, h.last(duel.g, with_buttons=True), "Pistol")
    lobby = h.last(duel.g, with_buttons=True)
    h.press(duel.bob, lobby, 0)


def test_a_typed_character_is_kept_and_offered_as_one_tap_in_the_next_lobby(duel: Duel) -> None:
    h = duel.h
    duel.start()
    assert "Kept in your characters" in h.last(duel.b).text or any(
        "Kept in your characters" in t for t in h.texts(duel.b)
    )
    duel.play_out()
    assert h.deps.repo.load("m00001").match.phase is Phase.FINISHED
    _second_lobby(duel)
    picker = h.last(duel.b, with_buttons=True)
    h.press_text(duel.bob, picker, "⭐")
    match = h.deps.repo.active_in_chat(duel.g)[0]
    seat = match.seat_of_user(duel.b)
    assert seat is not None and seat.character == {"weapon": "revolver", "perks": ["lucky"]}
    # The first match keeps its own copy: deleting the roster entry changes no match.
    h.say(duel.bob, duel.b, "/characters")
    listing = h.last(duel.b, with_buttons=True)
    h.press_text(duel.bob, listing, "⭐")
    assert "revolver" in plain(h.last(duel.b, with_buttons=True).text).lower()
    h.press_text(duel.bob, h.last(duel.b, with_buttons=True), "Delete")
    assert "None yet" in h.last(duel.b).text
    old = h.deps.repo.load("m00001").match.seat_of_user(duel.b)
    assert old is not None and old.character == {"weapon": "revolver", "perks": ["lucky"]}


def test_export_then_import_round_trips_and_a_bad_file_changes_nothing(duel: Duel) -> None:
    h = duel.h
    h.say(duel.bob, duel.b, "/characters set pistol Sharpshooter = weapon=rifle")
    assert "Saved: Sharpshooter" in plain(h.last(duel.b).text)
    h.say(duel.bob, duel.b, "/characters")
    h.press_text(duel.bob, h.last(duel.b, with_buttons=True), "Download")
    exported = h.api.documents(duel.b)[-1].content
    doc = json.loads(exported)
    assert doc["ruleset"] == "pistol" and doc["characters"][0]["name"] == "Sharpshooter"
    # An edited copy as YAML: one good entry, one bad sheet, one without a name.
    doc["characters"].append({"name": "Broken", "sheet": {"weapon": "cannon"}})
    doc["characters"].append({"sheet": {"weapon": "pistol"}})
    h.upload(duel.bob, duel.b, "mine.yaml", yaml.safe_dump(doc, allow_unicode=True).encode())
    refusal = plain(h.last(duel.b).text)
    assert "nothing changed" in refusal and "«Broken»" in refusal and "«#3»" in refusal
    assert "loc" not in refusal and "Input should" not in refusal
    h.say(duel.bob, duel.b, "/characters")
    assert "Broken" not in h.last(duel.b).text
    # The export as it was imports fine (the same name replaces it).
    h.upload(duel.bob, duel.b, "characters-pistol.json", exported)
    assert "Imported 1 character" in plain(h.last(duel.b).text)
