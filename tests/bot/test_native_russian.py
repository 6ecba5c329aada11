"""Native Russian through the bot (docs/glossary.md): a match of every ruleset played by
Russian speakers, every text the bot sends them (messages, edits, captions, alerts, buttons)
checked for untranslated game words, including the names that come from the rulesets' data
(weapons, skills, presets, traits), and for a dragon battle called a duel."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

from engine.match import Phase
from handlers.telegram.fake_api import FakeMessage
from handlers.telegram.harness import GROUP_ID, Harness
from handlers.telegram.i18n import Tr
from tests.test_glossary import latin_words

MID = "m00001"
tr = Tr("ru")


class RuTable:
    """A group where the GM and both players speak Russian."""

    def __init__(self) -> None:
        self.h = Harness()
        self.gm = self.h.user(501, "Мастер", lang="ru")
        self.alice = self.h.user(502, "Алиса", lang="ru")
        self.boris = self.h.user(503, "Борис", lang="ru")
        self.g = self.h.group(GROUP_ID)

    def uid(self, user: dict[str, Any]) -> int:
        return int(user["id"])

    def match(self) -> Any:
        return self.h.deps.repo.load(MID).match

    def open(self, ruleset_button: str) -> FakeMessage:
        h = self.h
        h.say(self.gm, self.g, "/duel")
        h.press_text(self.gm, h.last(self.g, with_buttons=True), ruleset_button)
        lobby = h.last(self.g, with_buttons=True)
        for user in (self.alice, self.boris):
            h.press(user, lobby, 0)  # join: opens the private chat
        return lobby

    def start(self, lobby: FakeMessage) -> None:
        self.h.press_text(self.gm, self.h.last(self.g, with_buttons=True), "Начать")

    def example(self, user: dict[str, Any]) -> str:
        """The typed example the bot showed ``user`` last (the builder's "or type …")."""
        for m in reversed(self.h.api.chat(self.uid(user)).messages):
            if m.from_bot:
                for code in re.findall(r"<code>(.*?)</code>", m.text):
                    if code.startswith(("/order", "/plan")):
                        return html.unescape(code)
        raise AssertionError("no typed example shown")

    def sent(self) -> Iterator[tuple[int, str]]:
        """Every text the bot sent or edited in, with its chat (alerts: the presser's)."""
        for call in self.h.api.calls:
            p = call.params
            chat = p.get("chat_id")
            for field in ("text", "caption"):
                if isinstance(p.get(field), str) and chat is not None:
                    yield int(chat), p[field]
            markup = p.get("reply_markup")
            if isinstance(markup, str):
                markup = json.loads(markup)
            for row in (markup or {}).get("inline_keyboard", []):
                for b in row:
                    yield int(chat or 0), str(b.get("text", ""))

    def dossier_md(self) -> str:
        """The readable dossier ``/dossier`` sends the GM privately (at any time)."""
        h, gm = self.h, self.uid(self.gm)
        before = len(h.api.documents(gm))
        h.say(self.gm, gm, f"/dossier {MID}")
        docs = h.api.documents(gm)[before:]
        return next(d.content.decode() for d in docs if d.file_name.endswith(".md"))

    def dossier_untranslated(self) -> list[str]:
        """Latin words of the readable dossier outside its code spans (issue 24: "Правила:
        pistol", "Фаза: finished", reasons like all_sealed), the players' names aside."""
        md = self.dossier_md()
        assert tr("phase.finished") in md or tr("phase.running") in md
        names = ("Мастер", "Алиса", "Борис")
        return [
            f"{words}: {line!r}"
            for line in md.splitlines()
            if (words := [w for w in latin_words(line) if w not in names])
        ]

    def untranslated(self) -> list[str]:
        names = ("Мастер", "Алиса", "Борис")
        bad = []
        for _chat, text in self.sent():
            if (words := latin_words(text)) and not all(w in names for w in words):
                bad.append(f"{words}: {text[:300]!r}")
        return bad


@pytest.fixture
def table() -> Iterator[RuTable]:
    t = RuTable()
    yield t
    t.h.close()


def test_a_pistol_duel_in_russian_has_no_english_game_word(table: RuTable) -> None:
    t, h = table, table.h
    lobby = t.open("пистолет")
    h.press(t.alice, h.last(t.uid(t.alice), with_buttons=True), 0)  # the first preset
    h.say(t.boris, t.uid(t.boris), "/character оружие=винтовка особенности=везунчик")
    assert t.match().seats[1].character["weapon"] == "rifle"
    t.start(lobby)
    for _ in range(6):
        if t.match().phase is Phase.FINISHED:
            break
        for user in (t.alice, t.boris):
            h.say(user, t.uid(user), t.example(user))
    assert t.match().phase is Phase.FINISHED
    assert t.untranslated() == [], "\n".join(t.untranslated())
    md = t.dossier_md()
    assert f"Правила: {tr('ruleset.pistol')}" in md and f"Фаза: {tr('phase.finished')}" in md
    assert t.dossier_untranslated() == [], "\n".join(t.dossier_untranslated())


def test_a_plans_duel_in_russian_has_no_english_game_word(table: RuTable) -> None:
    t, h = table, table.h
    lobby = t.open("планов")
    for user in (t.alice, t.boris):
        h.press(user, h.last(t.uid(user), with_buttons=True), 1)  # the second preset
    t.start(lobby)
    for _ in range(4):
        if t.match().phase is not Phase.RUNNING:
            break
        for user in (t.alice, t.boris):
            h.say(user, t.uid(user), t.example(user))
    assert t.match().turn > 2 or t.match().phase is Phase.FINISHED
    assert t.untranslated() == [], "\n".join(t.untranslated())
    assert t.dossier_untranslated() == [], "\n".join(t.dossier_untranslated())


def test_a_dragon_battle_in_russian_has_no_english_game_word_and_is_no_duel(
    table: RuTable,
) -> None:
    t, h = table, table.h
    lobby = t.open("драконов")
    for user, typed, side in ((t.alice, "молодой", "A"), (t.boris, "боевой", "B")):
        h.say(user, t.uid(user), f"/character {typed}")
        h.press_text(user, h.last(t.g, with_buttons=True), f" {side}")
    t.start(lobby)
    for _ in range(4):
        if t.match().phase is not Phase.RUNNING:
            break
        for user in (t.alice, t.boris):
            h.say(user, t.uid(user), t.example(user))
    assert t.match().turn > 2 or t.match().phase is Phase.FINISHED
    assert t.untranslated() == [], "\n".join(t.untranslated())
    assert t.dossier_untranslated() == [], "\n".join(t.dossier_untranslated())
    rulesets = {tr("ruleset.pistol"), tr("ruleset.plans")}  # the buttons of /duel
    duel = [text for _, text in t.sent() if re.search(r"дуэл", text, re.I) and text not in rulesets]
    assert duel == [], "\n".join(duel)


@pytest.mark.parametrize("button", ["пистолет", "планов", "драконов"])
def test_the_character_example_a_russian_player_sees_is_russian_and_accepted(
    table: RuTable, button: str
) -> None:
    """The picker's typed example is in the reader's words (оружие=винтовка, not
    weapon=rifle) and sets the character when sent back as shown."""
    t, h = table, table.h
    t.open(button)
    picker = h.last(t.uid(t.alice), with_buttons=True)
    (example,) = [
        html.unescape(c) for c in re.findall(r"<code>(/character[^<]*)</code>", picker.text)
    ]
    assert not re.search(r"[A-Za-z]{3,}", example.removeprefix("/character")), example
    h.say(t.alice, t.uid(t.alice), example)
    assert t.match().seats[0].character, (example, h.texts(t.uid(t.alice))[-1])


def test_the_plans_builder_buttons_name_skills_in_russian(table: RuTable) -> None:
    """Sandbox play (issue 24): the builder's skill, second-skill and guess buttons said
    "fencing 3", "+ feint 2", "pyromancy"; every step's buttons are checked."""
    t, h = table, table.h
    lobby = t.open("планов")
    for user in (t.alice, t.boris):
        h.press(user, h.last(t.uid(user), with_buttons=True), 0)  # the first preset
    t.start(lobby)
    for _ in range(9):  # the first choice of every step
        builder = h.last(t.uid(t.alice), with_buttons=True)
        h.press(t.alice, builder, 0)
    labels = [b["text"] for b in h.api.chat(t.uid(t.alice)).messages[-1].buttons]
    assert labels, "the builder went through its steps"
    assert t.untranslated() == [], "\n".join(t.untranslated())
