"""Native Russian (docs/glossary.md): one term per concept, no untranslated game words, names
never declined, counted nouns through plural forms.

The glossary's tables are the data: each row names a concept's Russian and English term, the
catalog key that shows it (if any) and the words that must never stand for it. These tests read
every catalog (``handlers/telegram/locale/*.po``, all areas) so a message added by any area is
checked the day it lands.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from handlers.telegram.i18n import LOCALE_DIR
from infra.catalogs import catalog_files

ROOT = Path(__file__).resolve().parents[1]
GLOSSARY = ROOT / "docs" / "glossary.md"


@dataclass(frozen=True)
class Term:
    concept: str
    ru: str
    en: str
    key: str
    never_ru: tuple[str, ...]
    never_en: tuple[str, ...]


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


@cache
def terms() -> tuple[Term, ...]:
    """The rows of every table of the glossary whose header starts with ``Concept``."""
    out: list[Term] = []
    header: list[str] | None = None
    for line in GLOSSARY.read_text(encoding="utf-8").splitlines():
        if not line.startswith("|"):
            header = None
            continue
        cells = _cells(line)
        if header is None:
            header = cells
            continue
        if set("".join(cells)) <= set("-: ") or header[0] != "Concept":
            continue
        row = dict(zip(header, cells, strict=True))

        def words(cell: str) -> tuple[str, ...]:
            return tuple(w.strip() for w in cell.split(",") if w.strip())

        out.append(
            Term(
                concept=row["Concept"],
                ru=row["Русский"],
                en=row["English"],
                key=row["Catalog key"],
                never_ru=words(row["Never in Russian"]),
                never_en=words(row["Never in English"]),
            )
        )
    return tuple(out)


@cache
def catalog(lang: str) -> dict[str, tuple[str, ...]]:
    """Every message of ``lang`` (all areas): key -> its strings (plural forms included)."""
    out: dict[str, tuple[str, ...]] = {}
    for path in catalog_files(lang, LOCALE_DIR):
        with path.open("rb") as fh:
            po = read_po(fh, locale=lang)
        for m in po:
            if not m.id:
                continue
            key = m.id[0] if isinstance(m.id, tuple) else m.id
            out[key] = tuple(m.string) if isinstance(m.string, tuple) else (m.string,)
    return out


def _plain(text: str, *, code: bool = True) -> str:
    """``text`` as read: placeholders and tags removed (``<code>``/``<pre>`` contents too unless
    ``code``), entities unescaped, spaces collapsed."""
    if not code:
        text = re.sub(r"<(code|pre)>.*?</\1>", " ", text, flags=re.S)
    text = re.sub(r"\{[^{}]*\}", " ", text)
    text = re.sub(r"<[^>]+>", " ", text)
    if not code:
        text = re.sub(r"`[^`]*`", " ", text)  # Markdown code (the dossier)
    return re.sub(r"\s+", " ", html.unescape(text)).strip()


# Commands and the command-line program: typed as they are, in every language.
_COMMAND = re.compile(r"(?<![\w/])/[a-z_]+|\bsekundant verify\b")


def _pattern(word: str) -> re.Pattern[str]:
    """A "never" word of the glossary as a regex: ``*`` is any word ending; the start and the
    end of the word are word boundaries."""
    parts = []
    for w in word.split():
        stem = re.escape(w.rstrip("*"))
        parts.append(stem + (r"\w*" if w.endswith("*") else r"(?!\w)"))
    return re.compile(r"(?<!\w)" + r"\s+".join(parts), re.I)


def test_the_glossary_has_its_tables() -> None:
    rows = terms()
    assert len(rows) > 100
    assert {"мастер", "срок", "зерно", "вскрыть ход", "шаг"} <= {t.ru for t in rows}
    concepts = [t.concept for t in rows]
    assert len(concepts) == len(set(concepts)), "a concept listed twice"


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_no_second_word_for_a_concept(lang: str) -> None:
    bad = []
    for term in terms():
        for word in term.never_ru if lang == "ru" else term.never_en:
            pattern = _pattern(word)
            for key, strings in catalog(lang).items():
                for s in strings:
                    if pattern.search(_COMMAND.sub(" ", _plain(s))):
                        bad.append(f"{key}: {word!r} for {term.concept!r} (say {term.ru!r})")
    assert not bad, "\n".join(sorted(set(bad)))


# Latin allowed in Russian text (docs/glossary.md "Latin in Russian text").
_ALLOWED_LATIN = re.compile(
    r"(?<![\w/])/[a-z_]+"  # commands
    r"|\S+\.(?:md|json|py)\b"  # file paths
    r"|@\w+"  # usernames
    r"|\b\d*d(?:\d+|N)\b"  # dice
    r"|\bsha256\b|\bJSON\b|\bTelegram\b|\bSavage Worlds\b|\bSWADE\b|\bSWD\b|\bdrand\b"
    r"|\bYAML\b|\bUTF-8\b|\bBBCode\b|\bMarkdown\b|\bUTC\b",
)


def latin_words(text: str) -> list[str]:
    """Latin words of two letters or more in Russian ``text`` outside ``<code>``/``<pre>``,
    other than the allowed ones."""
    rest = _ALLOWED_LATIN.sub(" ", _plain(text, code=False))
    return re.findall(r"[A-Za-z][A-Za-z_'-]*[A-Za-z]", rest)


def test_latin_words_are_found() -> None:
    assert latin_words("атака claws <code>/order attack claws p1</code>") == ["claws"]
    assert latin_words("урон str+d6 против {target}") == ["str"]
    assert latin_words("кубик d6, 2d8; /order; docs/fairness.md; JSON") == []


# A language's own name, shown as it is in every language (the language picker).
ENDONYMS = {"lang.en"}


def test_no_untranslated_game_word_in_russian() -> None:
    bad = [
        f"{key}: {words}"
        for key, strings in catalog("ru").items()
        for s in strings
        if key not in ENDONYMS and (words := latin_words(s))
    ]
    assert not bad, "\n".join(bad)


# Names a message may put in: a player's, a dragon's, a side's members'.
NAME_FIELDS = {
    "name",
    "names",
    "who",
    "target",
    "victim",
    "pursuer",
    "winner",
    "attacker",
    "defender",
    "opponent",
    "new",
    "old",
    "missing",
    "sealed",
    # names of game things, declined just the same ("Цель для дыхание")
    "weapon",
    "part",
    "skill",
    "group",
    "character",
    "preset",
}


def declined_names(text: str) -> list[str]:
    """Name placeholders that a word governs (a preposition, a verb, a noun: "за {name}",
    "бьёт {target}", "урон {target}"): in Russian the name would need a case it cannot take.
    A name may start the text or follow punctuation, an arrow, a dash, a bracket or "и"."""
    bad = []
    for m in re.finditer(r"\{(\w+)\}", text):
        if m.group(1) not in NAME_FIELDS or text[: m.start()].endswith("<code>"):
            continue  # a code (p1, m00001) is not a word
        before = re.sub(r"<[^>]+>", "", text[: m.start()]).rstrip()
        word = re.search(r"([A-Za-zА-Яа-яЁё]+)$", before)
        if word and word.group(1).lower() not in {"и", "или"}:
            bad.append(f"{word.group(1)} {{{m.group(1)}}}")
    return bad


def test_declined_names_are_found() -> None:
    assert declined_names("обмен за {winner}") == ["за {winner}"]
    assert declined_names("🩸 {who} бьёт <b>{target}</b>") == ["бьёт {target}"]
    assert declined_names("{who} → {target}: попадание; {name} и {names}") == []


def test_no_name_is_declined_in_russian() -> None:
    bad = [
        f"{key}: {found}"
        for key, strings in catalog("ru").items()
        for s in strings
        if (found := declined_names(s))
    ]
    assert not bad, "\n".join(bad)


# Placeholders that hold a count (a number a noun would agree with).
COUNT_FIELDS = {
    "n",
    "count",
    "length",
    "limit",
    "max",
    "min",
    "need",
    "have",
    "got",
    "total",
    "lost",
    "raises",
    "wounds",
    "hits",
    "soaked",
    "max_seconds",
}
_NOT_COUNTED = {"из", "до", "от", "и", "или", "за", "на", "в", "к", "с", "по", "—"}


def counted_nouns(text: str) -> list[str]:
    """A count placeholder followed by a Russian word ("{count} действий"): the word's form
    depends on the number, so the message must be a plural one (ngettext)."""
    bad = []
    for m in re.finditer(r"\{(\w+)\} +([а-яё]+)", text, flags=re.I):
        if m.group(1) in COUNT_FIELDS and m.group(2).lower() not in _NOT_COUNTED:
            bad.append(m.group(0))
    return bad


def test_counted_nouns_are_found() -> None:
    assert counted_nouns("{count} действий: не больше {limit} за ход.") == ["{count} действий"]
    assert counted_nouns("от {min} до {max}, а не {got}.") == []


def test_counted_nouns_use_plural_forms() -> None:
    bad = []
    for key, strings in catalog("ru").items():
        if len(strings) > 1:
            continue  # a plural message: every form agrees with its number
        if found := counted_nouns(strings[0]):
            bad.append(f"{key}: {found}")
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_a_named_concept_uses_its_term(lang: str) -> None:
    """A row with a catalog key: that message uses the row's word (so the glossary and what
    the bot shows cannot drift apart)."""
    bad = []
    for term in terms():
        if not term.key:
            continue
        strings = catalog(lang).get(term.key)
        assert strings, f"{term.key} is not in the {lang} catalog"
        word = term.ru if lang == "ru" else term.en
        if not any(word.lower() in _plain(s).lower() for s in strings):
            bad.append(f"{term.key}: {strings[0]!r} does not say {word!r}")
    assert not bad, "\n".join(bad)


# Message keys that show a name from the rulesets' data: each has its glossary row.
NAME_KEYS = re.compile(
    r"^(weapon|perk|preset|part|plans\.(skill|weapon|group|action|preset)"
    r"|dr\.(preset|weapon|trait|band|act))\.[\w ]+$"
)


def test_every_shown_name_has_its_glossary_row() -> None:
    keys = {
        k
        for k, (text, *_) in catalog("en").items()
        if NAME_KEYS.match(k) and "{" not in text and len(text.split()) <= 4
    }
    listed = {t.key for t in terms()}
    assert sorted(keys - listed) == []


# The modules that draw text into pictures (issue 24 point 4): their words come from the
# catalogs only, so the checks above (every catalog, all areas) cover the pictures too.
PICTURE_CODE = [
    *sorted((ROOT / "handlers" / "telegram" / "screens" / "pictures").glob("*.py")),
    ROOT / "handlers" / "telegram" / "screens" / "odds_chart.py",
    ROOT / "handlers" / "telegram" / "screens" / "ladder_picture.py",
    ROOT / "handlers" / "telegram" / "screens" / "canvas.py",
]


def test_picture_texts_are_checked_for_declined_names() -> None:
    """ "обмен за {name}" (``pic.exchange``) and every other picture text: each key the
    drawing code asks for is in the Russian catalog (so the name and Latin checks read it),
    none declines a name, and the drawing code writes no Russian words of its own."""
    keys: set[str] = set()
    for path in PICTURE_CODE:
        source = path.read_text(encoding="utf-8")
        assert not re.search(r"[А-Яа-яЁё]", source), f"{path.name}: Russian outside a catalog"
        keys |= set(re.findall(r"""tr\(\s*["']((?:pic|odds|ladder)\.[\w.]+)["']""", source))
    assert "pic.exchange" in keys and len(keys) > 20
    ru = catalog("ru")
    missing = sorted(k for k in keys if k not in ru)
    assert missing == []
    bad = [f"{k}: {found}" for k in sorted(keys) for s in ru[k] if (found := declined_names(s))]
    assert bad == []
    assert declined_names("{score}: {name} — обмен за {name}") == ["за {name}"]


# A match's title ("Дуэль на пистолетах m00001: Алиса — Bob") cannot take a case either
# ("Ваш приказ в Дуэль на пистолетах"). Known exceptions, to be reworded by their area (may
# only shrink): none.
TITLE_DECLINED_KNOWN: set[str] = set()


def test_no_match_title_is_declined_in_russian() -> None:
    bad = []
    for key, strings in catalog("ru").items():
        for s in strings:
            for m in re.finditer(r"\{title\}", s):
                before = re.sub(r"<[^>]+>", "", s[: m.start()]).rstrip()
                word = re.search(r"([А-Яа-яЁё]+)$", before)
                if word and word.group(1).lower() not in {"и", "или"}:
                    bad.append(f"{key}: {word.group(1)} {{title}}")
    assert sorted(b for b in bad if b.split(":")[0] not in TITLE_DECLINED_KNOWN) == []
    assert {b.split(":")[0] for b in bad} <= TITLE_DECLINED_KNOWN
