"""The gettext catalogs of a locale directory: which files make a language, where its compiled
``.mo`` goes, and compiling them (Babel, a build-time tool, imported only here when used).

Layout: per language a core ``<lang>.po`` plus one ``<area>.<lang>.po`` per area (a ruleset's
UI, the clock...). Shared by the bot's translator (:mod:`handlers.telegram.i18n`, which compiles
in memory when no ``.mo`` is there) and the Lambda build (:mod:`infra.deploy`, which writes the
``.mo`` files), so the build needs nothing from the layer above it.
"""

from __future__ import annotations

import io
from pathlib import Path


def languages(locale_dir: Path) -> tuple[str, ...]:
    """The languages with a core catalog ``<lang>.po`` in ``locale_dir``, sorted."""
    return tuple(sorted(p.stem for p in locale_dir.glob("*.po") if "." not in p.stem))


def catalog_files(lang: str, locale_dir: Path) -> list[Path]:
    """The catalog files of ``lang``: the core ``<lang>.po`` and one ``<area>.<lang>.po`` per
    area, so each area keeps its messages beside the others'."""
    return [locale_dir / f"{lang}.po", *sorted(locale_dir.glob(f"*.{lang}.po"))]


def mo_file(lang: str, locale_dir: Path) -> Path:
    """Where the build puts ``lang``'s precompiled catalog (all its files merged)."""
    return locale_dir / f"{lang}.mo"


def compile_catalog(lang: str, locale_dir: Path) -> bytes:
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
