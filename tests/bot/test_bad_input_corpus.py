"""A corpus of bad inputs (every command, every ruleset, Russian and English): each gets a
reply in plain words - never an internal field name, a validator's phrase, "key value" jargon
or a Python repr (the deny-list below) - and changes nothing."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from engine.match import Match
from handlers.telegram.harness import GROUP_ID, Harness, plain
from handlers.telegram.i18n import Tr
from tests.test_glossary import latin_words

# What no reply may contain: field paths, internal names, validator kinds and phrases, reprs.
DENY = [
    r"\b(actions|weapons|skills|guess|second|aim)\.\w",  # field paths (actions.0, aim.A)
    r"_seconds\b",
    r"\braise_choice\b",
    r"\b(turn|max|reminder)_\w+_",
    r"invalid_field|extra_forbidden|typed_pairs|not_on_sheet",
    r"\b(ge|le|gt|lt) -?\d",  # a validator's bound
    r"\bexpected (required|ge|le)\b",
    r"no such field",
    r"(Invalid|Неверно)\W.{0,30}\b(field|поле)\b",  # the old "Invalid order: field …"
    r"key value|key=value|ключ значение|«ключ",
    r"Input should|Value error|validation error|object expected|Expecting ",
    r"Rejection|Traceback|\bNone\b|\bTrue\b|\bFalse\b|\bnull\b",
    r"\{'|\['|'\]|'\}",  # a Python repr of a dict or list
    r"\b(err|input|dr|plans|npc)\.[a-z_]+\b",  # a catalog key
    r"\(code [a-z_]+\)",  # err.unknown: a code nobody translated
    r"(ожидается|можно задать)[^\n|]*\b(or|an?|the|number)\b",  # English in a Russian reply
]
DENIED = re.compile("|".join(DENY))

# Names of the cast and of the NPC (shown as typed in every language).
NAMES = {"alice", "bob", "carol", "wingman"}


def english_words(reply: str, typed: str) -> list[str]:
    """Latin-script words of a Russian reply outside ``<code>`` (docs/glossary.md, "Latin in
    Russian text"): not the user's own words quoted back, nor a name."""
    own = {w.casefold() for w in re.findall(r"[A-Za-z][A-Za-z_'-]*", typed)}
    return [w for w in latin_words(reply) if w.casefold() not in own | NAMES]


ORDER_BAD = {
    "pistol": [
        "blah",
        "move 9 aim 0:1",
        "move 1 aim 9:0",
        "move 1 aim",
        "move 1",
        "jump 1 aim 0:0",
        "move x aim 0:0",
        "move 1 aim a:b",
        '{"move": 1}',
        '{"move": 1, "aim": [1]}',
        "{not json",
        '{"move": 1, "aim": "0:0", "zap": 1}',
        "move 1 aim 0:0 pick 9:9",
        "[1, 2]",
        "шаг x прицел 0:0",
        "шаг 1",
        "прыжок 1 прицел 0:0",
    ],
    "dragons": [
        "blah",
        "level +9",
        "climb 9",
        "dive 0",
        "level x",
        "attack",
        "attack breath p2",
        "attack breath p9",
        "attack laser p2",
        "атака когти p9",
        "по уровню +5",
        "tail",
        "force sideways",
        "break p2",
        "level 1; climb 1",
        "level 0; attack claws p2; attack claws p2",
        '{"move": "sideways"}',
        '{"actions": [{"type": "attack"}]}',
        '{"actions": [{"type": "zap"}]}',
        '{"n": "x"}',
        "{broken",
        "power fire",
        "атака",
        "атака когти",
        "хвост",
        "принуждение вбок",
        "по уровню x",
        "отрыв p2 p3",
    ],
    "plans": [
        "blah",
        "physical fencing strong",
        "cosmic fencing strong -- a long enough text",
        "physical fireball strong -- a long enough text",
        "physical fencing dance -- a long enough text",
        "physical fencing strong -- short",
        "physical fencing strong guess:x -- a long enough text",
        "physical fencing strong soak:cosmic -- a long enough text",
        "physical fencing strong zap:1 -- a long enough text",
        "physical -- a long enough text",
        "physical fencing +magical -- a long enough text",
        "physical fencing strong guess:?/nothing/? -- a long enough text",
        "-- only text here",
        "физическая -- достаточно длинный отыгрыш",
        "физическая фехтование +магическая -- достаточно длинный отыгрыш",
        "физическая фехтование сильное догадка:x -- достаточно длинный отыгрыш",
        "физическая фехтование сильное зап:1 -- достаточно длинный отыгрыш",
    ],
}
CHARACTER_BAD = {
    "pistol": [
        "weapon=bazooka",
        "weapon=pistol perks=flying",
        "weapon",
        "blah",
        '{"weapon": 5}',
        "weapon=pistol perks=lucky,lucky",
        "{oops",
        "оружие=базука",
        "оружие=винтовка особенности=летучий",
    ],
    "dragons": [
        "blah",
        "young speed=99",
        "young piloting=d7",
        "young weapon=breath",
        "young weapon=claws:2x9:melee",
        "young weapon=breath:2d8",
        "young armor=30",
        "young toughness=x",
        "young laser=1",
        "young weapon=bad:2d6:45/20/10",
        "name=X",
        "young wings=2",
        '{"weapons": []}',
        "young weapon=breath:str+d6:25/50/100",
    ],
    "plans": [
        "blah",
        "preset=wizard",
        "attrs=1,2,3",
        "preset=fencer fencing=x:physical",
        "preset=fencer fencing=3:cosmic",
        "preset=fencer dex=x",
        "preset=fencer dex=99",
        "preset=fencer weapon=saber",
        "fencing=3:physical",
        '{"attributes": 5}',
        "заготовка=волшебник",
        "заготовка=фехтовальщик ловкость=x",
        "заготовка=фехтовальщик мудрость=3",
    ],
}
GROUP_BAD = [
    "/clock turn=20s",
    "/clock turn=soon",
    "/clock turn=45d",
    "/clock reminder=-5m",
    "/clock per_turn=x",
    "/clock blah=1",
    "/clock alert=0",
    "/lang xx",
    "/side",
    "/side p9 Q",
    "/npc",
    "/npc dragonzilla",
    "/npc {oops",
    "/npc remove p1",
]
PRIVATE_MISC = ["/start join_nope", "/start play_nope", "/dossier nope", "/history nope"]


class Corpus:
    def __init__(self, h: Harness, lang: str) -> None:
        self.h, self.lang = h, lang
        self.gm = h.user(333, "Carol", lang=lang)
        self.alice = h.user(111, "Alice", lang=lang)
        self.bob = h.user(222, "Bob", lang=lang)
        h.group(GROUP_ID)
        h.say(self.gm, 333, "/start")
        self.checked = 0

    def match(self) -> Match:
        return self.h.deps.repo.active_in_chat(GROUP_ID)[0]

    def lobby(self, ruleset: str) -> None:
        h, tr = self.h, Tr(self.lang)
        h.say(self.gm, GROUP_ID, "/duel")
        h.press_text(self.gm, h.last(GROUP_ID, with_buttons=True), tr(f"ruleset.{ruleset}"))
        self.lobby_msg = h.last(GROUP_ID, with_buttons=True)
        h.press(self.alice, self.lobby_msg, 0)
        h.press(self.bob, self.lobby_msg, 0)
        if ruleset == "dragons":
            h.press_text(self.alice, self.lobby_msg, tr("dr.btn.side", side="A"))
            h.press_text(self.bob, self.lobby_msg, tr("dr.btn.side", side="B"))
            h.say(self.gm, GROUP_ID, "/npc raider A Wingman")

    def start(self) -> None:
        for p in (self.alice, self.bob):
            self.h.press(p, self.h.last(int(p["id"]), with_buttons=True), 0)  # first preset
        self.h.press_text(self.gm, self.lobby_msg, "▶️")

    def bad(self, user: dict[str, object], chat: int, text: str) -> None:
        """Send one bad input: a reply comes, it passes the deny-list, nothing changed."""
        h = self.h
        before_state = self.match()
        before = len(h.texts(chat))
        h.say(user, chat, text)
        raw = h.texts(chat)[before:]
        replies = [plain(t) for t in raw]
        assert replies, f"no answer to {text!r}"
        for reply in replies:
            found = DENIED.search(reply)
            assert found is None, (text, found.group(0) if found else "", reply)
        if self.lang == "ru":
            for reply in raw:
                english = english_words(reply, text)
                assert english == [], (text, english, plain(reply))
        after = self.match()
        assert after.sealed == before_state.sealed, text
        assert [s.character for s in after.seats] == [s.character for s in before_state.seats]
        self.checked += 1


@pytest.fixture(params=["ru", "en"])
def corpus(request: pytest.FixtureRequest) -> Iterator[Corpus]:
    h = Harness()
    yield Corpus(h, request.param)
    h.close()


@pytest.mark.parametrize("ruleset", ["pistol", "dragons", "plans"])
def test_bad_inputs_get_plain_answers_and_change_nothing(corpus: Corpus, ruleset: str) -> None:
    c = corpus
    c.lobby(ruleset)
    for words in CHARACTER_BAD[ruleset]:
        c.bad(c.bob, 222, f"/character {words}")
    c.bad(c.bob, 222, "/order move 1 aim 0:0")  # no orders before the start
    for text in GROUP_BAD:
        c.bad(c.gm, GROUP_ID, text)
    c.start()
    c.bad(c.bob, 222, "/character weapon=pistol")  # no characters after the start
    command = "/plan" if ruleset == "plans" else "/order"
    for words in ORDER_BAD[ruleset]:
        c.bad(c.bob, 222, f"{command} {words}")
        if ruleset == "plans":
            c.bad(c.bob, 222, f"/order {words}")
    if ruleset == "dragons":
        for words in ("", "n1", "n9 level 0", "p1 level 0", "n1 blah", "n1 attack claws n1"):
            c.bad(c.gm, 333, f"/npcorder {words}")
    for text in ("/edit", "/edit p9 status dead x", "/edit p1 bogus 1 x", "/replace p9"):
        c.bad(c.gm, GROUP_ID, text)
    for text in PRIVATE_MISC:
        c.bad(c.bob, 222, text)
    c.bad(c.alice, 111, "/dossier")
    c.bad(c.alice, GROUP_ID, "/clock turn=1h")  # not the GM
    assert c.checked >= 40


def test_the_corpus_has_at_least_100_inputs() -> None:
    per_ruleset = [len(ORDER_BAD[r]) + len(CHARACTER_BAD[r]) + len(GROUP_BAD) for r in ORDER_BAD]
    assert sum(per_ruleset) * 2 >= 100  # both languages
