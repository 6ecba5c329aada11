"""A campaign through the bot (docs/bot.md "Running a campaign", docs/campaign.md): two dragons
matches in one group. The second reuses the first's custom character from the roster and an
NPC template from the group's uploaded library; the ladder shows both results and changes back
after the GM undoes the final turn; ``/chronicle`` gives BBCode and Markdown that parse."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from typing import Any

import bbcode
import pytest
from markdown_it import MarkdownIt

from engine.match import Phase
from handlers.telegram.fake_api import FakeMessage
from handlers.telegram.harness import GROUP_ID, Harness, plain

LIBRARY = """\
ruleset: dragons
npcs:
  - name: Raider of the North
    sheet: {name: Raider, wild_card: false, piloting: d6, fighting: d6, shooting: d6,
            spirit: d6, top_speed: 10, toughness: 8, armor: 1, strength: d8, speed: 6,
            altitude: 10, weapons: [{name: claws, melee: true, damage: str+d4}]}
characters:
  - name: Ember
    sheet: {name: Ember, wild_card: true, piloting: d8, fighting: d6, shooting: d8,
            spirit: d6, top_speed: 10, toughness: 9, armor: 2, strength: d10, speed: 6,
            altitude: 10, weapons: [{name: claws, melee: true, damage: str+d6}]}
"""
BROKEN = """\
ruleset: dragons
npcs:
  - name: Raider of the North
    sheet: {name: Raider, piloting: d7}
  - sheet: {name: Nameless}
"""


class Campaign:
    def __init__(self, h: Harness) -> None:
        self.h = h
        self.gm = h.user(333, "Carol", lang="en")
        self.alice = h.user(111, "Alice", lang="en")
        self.bob = h.user(222, "Bob", lang="en")
        self.g = h.group(GROUP_ID)
        h.say(self.gm, 333, "/start")
        h.api.admins[self.g] = {333: "creator"}

    def lobby(self) -> FakeMessage:
        h = self.h
        h.say(self.gm, self.g, "/duel")
        h.press_text(self.gm, h.last(self.g, with_buttons=True), "Dragon")
        lobby = h.last(self.g, with_buttons=True)
        h.press_text(self.alice, lobby, "Join")
        h.press_text(self.bob, lobby, "Join")
        return lobby

    def match(self) -> Any:
        return self.h.deps.repo.active_in_chat(self.g)[0]

    def one_turn(self) -> None:
        """Every acting seat moves level, no attack (typed, as players and the GM can)."""
        h, m = self.h, self.match()
        turn = m.turn
        for seat in m.seats:
            if seat.npc:
                h.say(self.gm, 333, f"/npcorder {seat.pid} level 0")
            else:
                user = self.alice if seat.user_id == 111 else self.bob
                h.say(user, int(user["id"]), "/order level 0")
        assert self.h.deps.repo.load(m.id).match.turn == turn + 1

    def end_with_side(self, side: str) -> None:
        h = self.h
        status = h.api.message(self.g, int(self.match().ui["status"]))
        assert status is not None
        h.press_text(self.gm, status, "GM")
        h.press_text(self.gm, status, "End with a result")
        h.press_text(self.gm, status, f"Side {side} wins")
        h.press_text(self.gm, status, "Confirm")  # ending asks first (issue 24)

    def ladder(self) -> str:
        self.h.say(self.gm, self.g, "/ladder")
        return plain(self.h.last(self.g).text)


@pytest.fixture
def campaign() -> Iterator[Campaign]:
    h = Harness()
    yield Campaign(h)
    h.close()


def _line(text: str, name: str) -> str:
    return next(line for line in text.splitlines() if f". {name} —" in line)


def test_two_matches_roster_library_ladder_undo_and_chronicle(campaign: Campaign) -> None:
    c, h = campaign, campaign.h
    # Match 1: Bob types his own dragon; it is kept in his roster.
    lobby = c.lobby()
    h.press(c.alice, h.last(111, with_buttons=True), 0)  # the young dragon preset
    h.say(c.bob, 222, "/character war name=Smaug speed=6")
    assert any("Kept in your characters as «Smaug»" in plain(t) for t in h.texts(222))
    h.press_text(c.alice, lobby, "Side A")
    h.press_text(c.bob, lobby, "Side B")
    h.press_text(c.gm, lobby, "Start")
    first = c.match()
    c.one_turn()
    c.end_with_side("B")
    assert h.deps.repo.load(first.id).match.phase is Phase.FINISHED
    table = c.ladder()
    assert "Ladder: Dragon" in table
    assert "matches 1 · wins 1" in _line(table, "Bob") and "wins 0" in _line(table, "Alice")
    ladder_msg = h.last(c.g)
    assert ladder_msg.photo is not None and ladder_msg.photo.startswith(b"\x89PNG")

    # The GM uploads the group's library: a bad file is refused entry by entry, nothing kept.
    h.upload(c.gm, c.g, "broken.yaml", BROKEN.encode(), caption="/library")
    refusal = plain(h.last(c.g).text)
    assert "«Raider of the North»" in refusal and "«#2»" in refusal
    assert "Input should" not in refusal and "npcs.0" not in refusal
    assert h.deps.repo.library(c.g, "dragons") is None  # type: ignore[attr-defined]
    h.upload(c.gm, c.g, "library.yaml", LIBRARY.encode(), caption="/library")
    assert "Library saved" in plain(h.texts(c.g)[-2])

    # Match 2: Bob's Smaug from his roster, Alice's Ember and the GM's Raider from the library.
    lobby = c.lobby()
    h.press_text(c.bob, h.last(222, with_buttons=True), "⭐ Smaug")
    h.press_text(c.alice, h.last(111, with_buttons=True), "📚 Ember")
    h.say(c.gm, c.g, "/library")
    h.press_text(c.gm, h.last(c.g, with_buttons=True), "➕ Raider of the North")
    h.press_text(c.gm, h.last(c.g, with_buttons=True), "Side A")
    h.press_text(c.alice, lobby, "Side A")
    h.press_text(c.bob, lobby, "Side B")
    second = c.match()
    seats = {s.name: s for s in second.seats}
    assert seats["Bob"].character == h.deps.repo.load(first.id).match.seat("p2").character
    assert seats["Alice"].character is not None and seats["Alice"].character["name"] == "Ember"
    assert seats["Raider of the North"].npc and seats["Raider of the North"].side == "A"
    h.press_text(c.gm, lobby, "Start")
    c.one_turn()
    c.end_with_side("A")
    table = c.ladder()
    assert "matches 2 · wins 1" in _line(table, "Alice")
    assert "matches 2 · wins 1" in _line(table, "Bob")
    before_undo = table

    # The GM undoes the final turn from the summary: the second result leaves the ladder.
    summary = next(m for m in reversed(h.api.chat(c.g).messages) if m.buttons and any(
        "Undo" in b["text"] for b in m.buttons))  # fmt: skip
    h.press_text(c.gm, summary, "Undo")
    h.press_text(c.gm, summary, "Confirm")
    assert h.deps.repo.load(second.id).match.phase is Phase.RUNNING
    table = c.ladder()
    assert "matches 1 · wins 1" in _line(table, "Bob") and "matches 1 · wins 0" in _line(
        table, "Alice"
    )
    assert table != before_undo

    # The chronicle of the running match (on demand, its turn played again), then of the
    # finished first one.
    c.one_turn()
    h.say(c.gm, c.g, "/chronicle")
    docs = {d.file_name: d.content for d in h.api.documents(c.g)[-3:]}
    bb = docs[f"chronicle-{second.id}.bbcode.txt"].decode()
    md = docs[f"chronicle-{second.id}.md"].decode()
    assert docs[f"chronicle-{second.id}.png"].startswith(b"\x89PNG")
    _check_bbcode(bb, ["Smaug", "Ember", "Raider of the North", "Turn 1"])
    _check_markdown(md, ["Smaug", "Ember", "Turn 1"])
    h.say(c.gm, c.g, f"/chronicle {first.id}")
    docs = {d.file_name: d.content for d in h.api.documents(c.g)[-3:]}
    _check_bbcode(docs[f"chronicle-{first.id}.bbcode.txt"].decode(), ["The result", "Bob"])


def _check_bbcode(text: str, needles: list[str]) -> None:
    parser = bbcode.Parser()
    rendered = parser.format(text)
    assert "<strong>" in rendered and "[b]" not in rendered and "[/" not in rendered
    tags = [t for t in parser.tokenize(text) if t[0] in (parser.TOKEN_TAG_START,)]
    assert {t[1] for t in tags} <= {"b", "i", "u", "s", "quote", "url", "code"}
    for needle in needles:
        assert needle in rendered


def _check_markdown(text: str, needles: list[str]) -> None:
    md = MarkdownIt("commonmark")
    assert any(t.type == "heading_open" for t in md.parse(text))
    shown = html.unescape(re.sub(r"<[^>]+>", "", md.render(text)))  # what a reader sees
    for needle in needles:
        assert needle in shown


def test_a_plans_chronicle_tells_the_role_play_lines_in_both_markups() -> None:
    from tests.bot.test_plans_ui import BOB_TEXT, PlansDuel

    h = Harness()
    try:
        pd = PlansDuel(h)
        pd.start()
        confirm = pd.build_first_choices()
        pd.reply(pd.alice, confirm, "Я делаю выпад и финт, ход 1")
        pd.seal_shown(pd.alice)  # the text is shown back first (issue 24)
        pd.bob_types(1)
        h.say(pd.gm, pd.g, "/chronicle")
        docs = {d.file_name: d.content for d in h.api.documents(pd.g)}
        bb = docs["chronicle-m00001.bbcode.txt"].decode()
        md = docs["chronicle-m00001.md"].decode()
    finally:
        h.close()
    _check_bbcode(bb, ["Я делаю выпад и финт, ход 1", "Turn 1", "Bob &lt;b&gt;Smith"])
    # A player's text is text: "<b>fire</b>" stays the words, never markup, in either format.
    assert "&lt;b&gt;fire&lt;/b&gt; &amp; brimstone" in bbcode.Parser().format(bb)
    _check_markdown(md, ["Я делаю выпад и финт, ход 1", BOB_TEXT])
    assert "&lt;b&gt;fire&lt;/b&gt;" in MarkdownIt("commonmark").render(md)


PISTOL_LIBRARY = """\
ruleset: pistol
tables:
  weapons:
    blunderbuss: {name: blunderbuss, zone: 6, speed: -2}
characters:
  - name: Old Tom
    sheet: {weapon: blunderbuss}
"""


def test_the_gm_puts_the_library_tables_into_a_pistol_lobby() -> None:
    h = Harness()
    try:
        c = Campaign(h)
        h.upload(c.gm, c.g, "pistol.yaml", PISTOL_LIBRARY.encode(), caption="/library")
        h.say(c.gm, c.g, "/duel")
        h.press_text(c.gm, h.last(c.g, with_buttons=True), "Pistol")
        lobby = h.last(c.g, with_buttons=True)
        h.press_text(c.alice, lobby, "Join")
        picker = h.last(111, with_buttons=True)
        h.press_text(c.alice, picker, "📚 Old Tom")  # the lobby does not know the blunderbuss
        assert "blunderbuss" in h.api.alerts[-1][1] and c.match().seats[0].character is None
        h.say(c.gm, c.g, "/library")
        h.press_text(c.gm, h.last(c.g, with_buttons=True), "Use the group's tables")
        assert "blunderbuss" in c.match().config["weapons"]
        h.press_text(c.alice, picker, "📚 Old Tom")
        assert c.match().seats[0].character == {"weapon": "blunderbuss"}
    finally:
        h.close()
