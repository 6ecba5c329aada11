"""Rejections in plain words: what the user did wrong, in their own terms, with an example.

The core names what is wrong by code and parameters (:class:`engine.errors.Rejection`); some
parameters are internal (a field path such as ``actions.0`` or ``turn_seconds``, a validator's
bound such as ``ge 60``). Before a rejection is shown, :func:`params` turns them into the words
the user typed or sees ("action 1", "turn", "at least 1 min"), and :func:`rejection_text` adds
the correct example a handler attached (:func:`with_example`), built for that user
(:mod:`handlers.telegram.hints`). ``tests/bot/test_bad_input_corpus.py`` keeps a deny-list of
internal words no reply may contain.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from typing import Any

from engine.errors import Rejection
from handlers.telegram.i18n import Raw, Tr

EXAMPLE = "example"  # the Rejection parameter a handler attaches a correct example under
# Rejections where an example does not help (nothing is wrong with what was typed).
_NO_EXAMPLE = frozenset({"stale_turn", "not_acting_now", "name_the_match"})

_PATH = re.compile(r"^(actions|weapons|skills)\.(\w+)(?:\.(\w+))?$")
_BOUND = re.compile(r"^(ge|gt|le|lt) (-?\d+(?:\.\d+)?)$")
# Internal field names in the words the user types (the clock's keys, the sheets' words).
_TYPED_NAME = {
    "turn_seconds": "turn",
    "reminder_before_seconds": "reminder",
    "max_extension_seconds": "extension",
    "max_extensions_per_turn": "per_turn",
    "max_extensions_total": "total",
    "missed_turns_alert": "alert",
    "max_pause_seconds": "pause",
}
_DURATIONS = frozenset(
    {"turn_seconds", "reminder_before_seconds", "max_extension_seconds", "max_pause_seconds"}
)


def field_name(tr: Tr, field: str) -> str:
    """A field path in the user's words: ``actions.0`` -> "action 1", ``skills.x`` -> "skill
    x", ``turn_seconds`` -> "turn", a known word through the catalog (``input.field.<id>``)."""
    m = _PATH.match(field)
    if m:
        kind, index, sub = m.groups()
        n: Any = int(index) + 1 if index.isdigit() else index
        text = tr(f"input.field.{kind}_n", n=n)
        if sub:
            text += " — " + field_name(tr, sub)
        return Raw(text)
    field = _TYPED_NAME.get(field, field)
    key = f"input.field.{field}"
    if tr.has(key):
        return Raw(tr(key))
    return Raw(html.escape(field.replace("_", " ").replace(".", " ")))


def expected_text(tr: Tr, field: str, expected: str) -> str:
    """A validator's expectation in words: "is missing", "must be at least 1 min"…"""
    simple = {"required": "input.expect.required", "no such field": "input.expect.no_field"}
    if expected in simple:
        return Raw(tr(simple[expected]))
    parts: list[str] = []
    for piece in expected.split(", "):
        m = _BOUND.match(piece)
        if not m:
            parts = []
            break
        op, num = m.groups()
        value: Any = float(num) if "." in num else int(num)
        if field in _DURATIONS:
            from handlers.telegram.clock_text import duration

            value = duration(tr, value)
        parts.append(tr(f"input.expect.{op}", value=value))
    if parts:
        return Raw(", ".join(parts))
    if re.match(r"^(Input|Value|String|Field|Extra)\b", expected) or "_" in expected:
        return Raw(tr("input.expect.valid"))  # a validator's own sentence: it does not fit
    return Raw(tr("input.expect.one_of", expected=expected))


def params(tr: Tr, code: str, raw: Mapping[str, Any]) -> dict[str, Any]:
    """A rejection's parameters ready for its message: field paths and bounds in words."""
    out: dict[str, Any] = {}
    field = str(raw.get("field", ""))
    for k, v in raw.items():
        if k == EXAMPLE:
            continue
        if k == "field" and not code.startswith("edit_"):  # /edit's fields are typed as is
            out[k] = field_name(tr, field)
        elif k == "expected" and code == "invalid_field":
            out[k] = expected_text(tr, field, str(v))
        elif k == "what":
            key = f"input.what.{v}"
            out[k] = Raw(tr(key)) if tr.has(key) else str(v)
        else:
            out[k] = v if isinstance(v, int | float) else str(v)
    return out


def rejection_text(tr: Tr, exc: Rejection) -> str:
    """The rejection's message in plain words, then the attached example, if any."""
    key = f"err.{exc.code}"
    text = tr("err.unknown", code=exc.code)
    if tr.has(key):
        with suppress(KeyError, IndexError):
            text = tr(key, **params(tr, exc.code, exc.params))
    text = text[:1].upper() + text[1:]
    example = exc.params.get(EXAMPLE)
    if example:
        text += "\n" + tr("input.example", example=str(example))
    return text


@contextmanager
def with_example(example: Callable[[], str]) -> Iterator[None]:
    """Attach ``example()`` (a correct command for this user; built only on a rejection) to a
    rejection raised inside."""
    try:
        yield
    except Rejection as exc:
        if EXAMPLE not in exc.params and exc.code not in _NO_EXAMPLE:
            with suppress(Exception):  # an example is a help: never a second failure
                exc.params[EXAMPLE] = example()
        raise


__all__ = ["EXAMPLE", "expected_text", "field_name", "params", "rejection_text", "with_example"]
