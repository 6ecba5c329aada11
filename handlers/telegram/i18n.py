"""Translations: gettext catalogs (``<lang>.po``, ``<area>.<lang>.po``) read with Babel,

Message ids are stable keys (``lobby.title``), never English sentences; every catalog, English
included, translates them. Placeholders are ``str.format`` fields (``{name}``). Plural messages
use gettext plural forms (Russian has three), keyed by ``msgid``/``msgid_plural`` = ``key`` /
``key.plural``.

Parameters are HTML-escaped unless wrapped in :class:`Raw`: user-provided text (names!) can
never inject markup into a message sent with ``parse_mode=HTML``.

Catalogs are loaded on first use of a language and cached for the life of the process (their
file layout and compiler: :mod:`infra.catalogs`). The Lambda build (``infra.deploy``) compiles
each language's files into one ``<lang>.mo`` beside them, read with the stdlib ``gettext`` (no
Babel in the package); without a ``.mo`` (local runs, tests) the ``.po`` files are compiled in
memory with Babel.
"""

from __future__ import annotations

import gettext
import html
import io
from functools import cache
from pathlib import Path
from typing import Any

from infra.catalogs import compile_catalog, mo_file

LANGS: tuple[str, ...] = ("ru", "en")
LOCALE_DIR = Path(__file__).with_name("locale")
# Catalog directories of plug-ins (a ruleset UI registered at run time, ``ui.register``):
# their ``<lang>.po``/``<area>.<lang>.po`` files extend every language's catalog.
_PLUGIN_DIRS: list[Path] = []


class Raw(str):
    """A parameter that is already safe HTML (rendered by us), so it is not escaped again."""

    __slots__ = ()


def normalize(lang: str | None, default: str = "ru") -> str:
    """Telegram's ``language_code`` to one of :data:`LANGS`: ``ru*`` -> ru, anything else en;
    no code at all -> ``default``."""
    if not lang:
        return default if default in LANGS else "ru"
    return "ru" if lang.lower().startswith("ru") else "en"


@cache
def catalog(lang: str) -> gettext.GNUTranslations:
    """The catalog of ``lang``: its precompiled ``.mo`` if the build wrote one, else its
    ``.po`` files compiled now (cached either way). A plug-in's messages are a fallback: they
    add message ids and never change ours."""
    try:
        with mo_file(lang, LOCALE_DIR).open("rb") as fh:
            found = gettext.GNUTranslations(fh)
    except FileNotFoundError:
        found = gettext.GNUTranslations(io.BytesIO(compile_catalog(lang, LOCALE_DIR)))
    for directory in _PLUGIN_DIRS:
        found.add_fallback(gettext.GNUTranslations(io.BytesIO(compile_catalog(lang, directory))))
    return found


def add_catalogs(directory: Path) -> None:
    """Extend every language's catalog with the ``.po`` files in ``directory`` (a plug-in's
    own messages, so adding a ruleset edits no shared catalog)."""
    if directory not in _PLUGIN_DIRS:
        _PLUGIN_DIRS.append(directory)
        catalog.cache_clear()


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


def message_ids(lang: str, prefix: str) -> list[str]:
    """The ids of ``lang``'s singular messages that start with ``prefix`` (a family of shown
    names: ``weapon.``), sorted."""
    table: dict[Any, str] = getattr(catalog(lang), "_catalog", {})
    return sorted(k for k in table if isinstance(k, str) and k.startswith(prefix))


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
