"""Translations: gettext catalogs (``<lang>.po``, ``<area>.<lang>.po``) read with Babel,

Message ids are stable keys (``lobby.title``), never English sentences; every catalog, English
included, translates them. Placeholders are ``str.format`` fields (``{name}``). Plural messages
use gettext plural forms (Russian has three), keyed by ``msgid``/``msgid_plural`` = ``key`` /
``key.plural``.

Parameters are HTML-escaped unless wrapped in :class:`Raw`: user-provided text (names!) can
never inject markup into a message sent with ``parse_mode=HTML``.

Catalogs are loaded on first use of a language and cached for the life of the process. The
Lambda build (``infra.deploy``) compiles each language's files into one ``<lang>.mo`` beside
them, read with the stdlib ``gettext`` (no Babel in the package); without a ``.mo`` (local
runs, tests) the ``.po`` files are compiled in memory with Babel.
"""

from __future__ import annotations

import gettext
import html
import io
from functools import cache
from pathlib import Path
from typing import Any

LANGS: tuple[str, ...] = ("ru", "en")
LOCALE_DIR = Path(__file__).with_name("locale")


class Raw(str):
    """A parameter that is already safe HTML (rendered by us), so it is not escaped again."""

    __slots__ = ()


def normalize(lang: str | None, default: str = "ru") -> str:
    """Telegram's ``language_code`` to one of :data:`LANGS`: ``ru*`` -> ru, anything else en;
    no code at all -> ``default``."""
    if not lang:
        return default if default in LANGS else "ru"
    return "ru" if lang.lower().startswith("ru") else "en"


def catalog_files(lang: str, locale_dir: Path = LOCALE_DIR) -> list[Path]:
    """The catalog files of ``lang``: the core ``<lang>.po`` and one ``<area>.<lang>.po`` per
    area (a ruleset's UI, the clock...), so each area keeps its messages beside the others'."""
    return [locale_dir / f"{lang}.po", *sorted(locale_dir.glob(f"*.{lang}.po"))]


def mo_file(lang: str, locale_dir: Path = LOCALE_DIR) -> Path:
    """Where the build puts ``lang``'s precompiled catalog (all its files merged)."""
    return locale_dir / f"{lang}.mo"


@cache
def catalog(lang: str) -> gettext.GNUTranslations:
    """The catalog of ``lang``: its precompiled ``.mo`` if the build wrote one, else its
    ``.po`` files compiled now (cached either way)."""
    try:
        with mo_file(lang).open("rb") as fh:
            return gettext.GNUTranslations(fh)
    except FileNotFoundError:
        return gettext.GNUTranslations(io.BytesIO(compile_catalog(lang)))


def compile_catalog(lang: str, locale_dir: Path = LOCALE_DIR) -> bytes:
    """``lang``'s ``.po`` files merged and compiled to ``.mo`` bytes (needs Babel); a message
    id translated in two files is an error."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    po = None
    for path in catalog_files(lang, locale_dir):
        with path.open("rb") as fh:
            part = read_po(fh, locale=lang)
        if po is None:
            po = part
            continue
        for message in part:
            if message.id:
                if message.id in po:
                    raise ValueError(f"{path.name}: {message.id!r} is already translated elsewhere")
                po[message.id] = message
    assert po is not None
    buf = io.BytesIO()
    write_mo(buf, po, use_fuzzy=False)
    return buf.getvalue()


def _fmt(text: str, params: dict[str, Any]) -> str:
    if not params:
        return text
    safe = {
        k: (v if isinstance(v, Raw) or not isinstance(v, str) else html.escape(v))
        for k, v in params.items()
    }
    return text.format(**safe)


def t(lang: str, key: str, /, **params: Any) -> str:
    """The message ``key`` in ``lang`` with ``params`` filled in (str params HTML-escaped)."""
    return _fmt(catalog(lang).gettext(key), params)


def tn(lang: str, key: str, n: int, /, **params: Any) -> str:
    """A plural message: the form for ``n`` (also available as ``{n}``)."""
    return _fmt(catalog(lang).ngettext(key, key + ".plural", n), {"n": n, **params})


def has(lang: str, key: str) -> bool:
    """Whether ``lang``'s catalog translates ``key``."""
    return catalog(lang).gettext(key) != key


class Tr:
    """``t``/``tn`` bound to one language, handed to renderers."""

    __slots__ = ("lang",)

    def __init__(self, lang: str) -> None:
        self.lang = lang

    def __call__(self, key: str, /, **params: Any) -> str:
        return t(self.lang, key, **params)

    def n(self, key: str, n: int, /, **params: Any) -> str:
        return tn(self.lang, key, n, **params)

    def has(self, key: str) -> bool:
        return has(self.lang, key)
