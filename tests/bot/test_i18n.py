"""Both catalogs translate the same keys with the same placeholders; every Rejection code of the
core and of pistol has a message; plural forms follow each language."""

from __future__ import annotations

import re
import string
from pathlib import Path

from babel.messages.pofile import read_po

from handlers.telegram.app import bot_commands
from handlers.telegram.i18n import LOCALE_DIR, t, tn
from infra.catalogs import catalog_files

ROOT = Path(__file__).resolve().parents[2]
# Every Rejection code raised anywhere in the core or the bot must be translated.
CODE_SOURCES = ["engine", "handlers/telegram"]


def _catalog(lang: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for path in catalog_files(lang, LOCALE_DIR):
        with path.open("rb") as fh:
            po = read_po(fh, locale=lang)
        for m in po:
            if not m.id:
                continue
            key = m.id[0] if isinstance(m.id, tuple) else m.id
            assert key not in out, f"{key} translated twice ({path.name})"
            strings = list(m.string) if isinstance(m.string, tuple) else [m.string]
            out[key] = strings
    return out


def test_every_language_has_the_same_catalog_files() -> None:
    names = {
        lang: {p.name.removesuffix(f"{lang}.po") for p in catalog_files(lang, LOCALE_DIR)}
        for lang in ("ru", "en")
    }
    assert names["ru"] == names["en"]


def _fields(text: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(text) if f}


def test_catalogs_have_the_same_keys_and_placeholders() -> None:
    ru, en = _catalog("ru"), _catalog("en")
    assert set(ru) == set(en)
    for key in en:
        assert all(s for s in ru[key] + en[key]), f"untranslated {key}"
        wanted = _fields(en[key][0])
        for s in ru[key] + en[key]:
            assert _fields(s) == wanted, (key, s)


def test_every_rejection_code_has_a_message_in_both_languages() -> None:
    codes: set[str] = {"not_lobby", "not_running", "not_finished"}  # built with f"not_{phase}"
    for src in CODE_SOURCES:
        path = ROOT / src
        files = [path] if path.is_file() else list(path.rglob("*.py"))
        for f in files:
            codes |= set(re.findall(r'Rejection\(\s*"([a-z_]+)"', f.read_text()))
    ru, en = _catalog("ru"), _catalog("en")
    missing = sorted(c for c in codes if f"err.{c}" not in ru or f"err.{c}" not in en)
    assert not missing


def test_russian_has_three_plural_forms() -> None:
    assert tn("ru", "lobby.players", 1) == "1 участник:"
    assert tn("ru", "lobby.players", 3) == "3 участника:"
    assert tn("ru", "lobby.players", 5) == "5 участников:"
    assert tn("ru", "lobby.players", 21) == "21 участник:"
    assert tn("en", "lobby.players", 1) == "1 participant:"
    assert tn("en", "lobby.players", 2) == "2 participants:"


def test_parameters_are_html_escaped() -> None:
    assert "&lt;b&gt;" in t("en", "gm.taken", name="<b>x</b>")


def test_command_menus_for_both_scopes_and_languages() -> None:
    for lang in ("ru", "en"):
        menus = bot_commands(lang)
        assert {c.command for c in menus["group"]} >= {"duel", "help", "lang", "status"}
        assert {c.command for c in menus["private"]} >= {"start", "order", "help", "lang"}
    assert bot_commands("ru")["group"][0].description != bot_commands("en")["group"][0].description


def test_every_reason_a_dragon_falls_or_loses_a_tail_for_has_words_in_both_languages() -> None:
    """The reveal shows a fall's reason as ``dr.reason.<code>``; a code added to the ruleset
    without words would show raw (D29's manoeuvre_crit did)."""
    import re
    from pathlib import Path

    from handlers.telegram.i18n import Tr

    package = Path(__file__).resolve().parents[2] / "engine/rulesets/dragons"
    source = "\n".join(f.read_text() for f in sorted(package.glob("*.py")))
    reasons = set(re.findall(r'start_fall\(\w+, "(\w+)"\)', source))
    assert {"speed_zero", "dangerous", "manoeuvre_crit"} <= reasons
    # ... and why a tail ended (``tail_broken``: clear_tails' reasons and the literal ones)
    tails = set(re.findall(r'clear_tails\(\w+, "(\w+)"\)', source))
    tails |= set(re.findall(r'"tail_broken",[^)]*reason="(\w+)"', source))
    assert {"fall", "out", "takeover", "contest", "circle"} <= tails
    reasons |= tails
    for lang in ("en", "ru"):
        tr = Tr(lang)
        assert [r for r in sorted(reasons) if not tr.has(f"dr.reason.{r}")] == [], lang
