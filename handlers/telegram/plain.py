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
from handlers.telegram.i18n import Raw, Tr, catalog

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
# Parameters that list the bot's own words (never the user's input): shown whole.
_OWN_WORDS = frozenset({"allowed", "choices", "names", "skills", "perks"})
QUOTE_MAX = 40  # characters of the user's own input a reply quotes at most (issue 24)


def clip(text: str, limit: int = QUOTE_MAX) -> str:
    """The user's input as a reply may quote it: at most ``limit`` characters, "…" when cut
    (a 5,000-character bad order is not echoed back)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


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
        if kind == "skills" and not index.isdigit():
            n = Raw(id_list(tr, index) or html.escape(index))  # the skill's shown name
        text = tr(f"input.field.{kind}_n", n=n)
        if sub:
            text += " — " + field_name(tr, sub)
        return Raw(text)
    field = _TYPED_NAME.get(field, field)
    key = f"input.field.{field}"
    if tr.has(key):
        return Raw(tr(key))
    return Raw(html.escape(clip(field.replace("_", " ").replace(".", " "))))


# What the core says it expected (English, a code's detail), in the reader's language: the
# phrase -> the catalog key of its words (``input.exp.<id>``). Syntax patterns (``N``,
# ``WEAPON TARGET``, ``GROUP/SKILL/ACTION``) read the same in both languages and are kept.
_PHRASES = {
    "a whole number": "whole_number",
    "a number": "whole_number",
    "an integer": "whole_number",
    "an integer >= 1": "whole_number_1",
    "30m, 6h, 2d, 90s or none": "duration_or_none",
    "30m, 6h, 2d or 90s": "duration",
    "p1, p2… or a name": "seat_or_name",
    "a skill id from the sheet": "own_skill",
    "a JSON object": "json_object",
    "an object": "json_object",
    "a list": "list",
    "a non-empty text up to 60 characters": "text_60",
    "a text up to 200 characters": "text_200",
    "a manoeuvre name up to 60 characters, or null": "manoeuvre",
    "level, climb or dive": "move_kind",
    "up or down": "up_down",
    "climb, dive or null": "climb_dive",
    "attack, tail, force, break or power": "action_kind",
    "two integers [A, B] or 'A:B'": "pair",
    "d4, d6, d8, d10, d12 (+N)": "die",
    "e.g. 2d6, 3d6+1, str+d8": "damage",
    "0 < short <= medium <= long": "bands",
    "one word without / : +": "one_word",
    "1-20 bytes (a Latin letter is 1, a Cyrillic one 2, an emoji 4), no ':'": "side_name",
    "level, climb, dive, aero, attack, tail, force, break, power": "dragon_words",
    "move, aim, pick": "pistol_words",
    "integer": "whole_number",
    # Syntax patterns: placeholders in the reader's words, literal tokens in <code>.
    "WEAPON TARGET": "weapon_target",
    "TARGET": "target",
    "up|down [climb|dive]": "force_choice",
    "NAME:DAMAGE[:melee][:apN][:SHORT/MEDIUM/LONG]": "dragon_weapon",
    "NAME:LETHALITY": "plans_weapon",
    "LEVEL:GROUP[,GROUP] (physical, magical, mental)": "plans_skill",
    "+GROUP SKILL": "second_skill",
    "soak:, restore:, guess:": "plan_options",
    "GROUP/SKILL/ACTION": "guess_syntax",
    "-- TEXT": "text_syntax",
    "skill and group": "skill_and_group",
}
# Ids of the rulesets' data an expectation may list ("fencer, pyromancer"): by the names the
# bot shows for them (accepted back when typed: docs/glossary.md).
_ID_PREFIXES = (
    "plans.group.",
    "plans.action.",
    "plans.skill.",
    "plans.preset.",
    "preset.",
    "dr.preset.",
    "dr.weapon.",
    "weapon.",
    "perk.",
)
_ID_LIST = re.compile(r"^[A-Za-z_][\w:+-]*(?:, [A-Za-z_][\w:+-]*)*$")


def id_list(tr: Tr, ids: str, prefixes: tuple[str, ...] = _ID_PREFIXES) -> str | None:
    """A list of ids (``a, b``) in the reader's words: each by the name the bot shows for it
    (:data:`_ID_PREFIXES`), else as a literal token in ``<code>`` (typed as it is: a clock
    key, a language code); None when ``ids`` is not such a list."""
    if not _ID_LIST.match(ids):
        return None
    from handlers.telegram.ui.words import bare_name

    shown = []
    for i in ids.split(", "):
        key = next((p + i for p in prefixes if tr.has(p + i)), None)
        shown.append(bare_name(tr(key)) if key else f"<code>{html.escape(i)}</code>")
    return Raw(", ".join(shown))


_PREFIXES = {"9 numbers: ": "nine_numbers"}
_VALIDATOR = re.compile(
    r"^(Input should|Value error|String should|Field required|Extra inputs|Assertion failed"
    r"|value is not|Invalid|List should|Tuple should|Dictionary should)"
)


def phrase(tr: Tr, expected: str) -> str:
    """A known expectation phrase of the core in the reader's words (else as given, with the
    quotes of a Python repr dropped: ``'a' or 'b'`` -> ``a or b``)."""
    key = _PHRASES.get(expected)
    if key is not None:
        return Raw(tr(f"input.exp.{key}"))
    for prefix, key in _PREFIXES.items():
        if expected.startswith(prefix):
            items = expected.removeprefix(prefix).replace(",", ", ")  # attributes, typed back
            named_items = id_list(tr, items, ("input.field.",)) or items
            return Raw(tr(f"input.exp.{key}", items=Raw(named_items)))
    if expected.endswith(" or a JSON stat block"):
        presets = expected.removesuffix(" or a JSON stat block")
        return Raw(tr("input.exp.preset_or_json", presets=Raw(id_list(tr, presets) or presets)))
    listed = id_list(tr, expected)
    return listed if listed is not None else expected.replace("'", "")


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
            from handlers.telegram.screens.clock_text import duration

            value = duration(tr, value)
        parts.append(tr(f"input.expect.{op}", value=value))
    if parts:
        return Raw(", ".join(parts))
    if _VALIDATOR.match(expected):
        return Raw(tr("input.expect.valid"))  # a validator's own sentence: it does not fit
    said = phrase(tr, expected)  # our own words (Raw, may hold <code>) or the core's
    said = said if isinstance(said, Raw) else Raw(html.escape(said))
    return Raw(tr("input.expect.one_of", expected=said))


# Parameters that name things of the rulesets' data by id (a list: ``a, b``): shown by the
# names the bot shows for them (docs/glossary.md), in the reader's language.
_NAMED: dict[tuple[str, str], str] = {
    ("unknown_weapon", "allowed"): "weapon.",
    ("unknown_perk", "allowed"): "perk.",
    ("no_such_weapon", "choices"): "dr.weapon.",
    ("weapon_broken", "weapon"): "dr.weapon.",
    ("weapon_used_twice", "weapon"): "dr.weapon.",
    ("skill_not_on_sheet", "skills"): "plans.skill.",
    ("guess_skill_unknown", "skills"): "plans.skill.",
    ("second_skill_not_usable", "usable"): "plans.skill.",
    ("second_skill_same", "skill"): "plans.skill.",
    ("unknown_group", "expected"): "plans.group.",
    ("unknown_action", "expected"): "plans.action.",
    ("second_group_same", "group"): "plans.group.",
    ("reserve_empty", "group"): "plans.group.",
    ("restore_group_used", "group"): "plans.group.",
    ("pick_not_allowed", "weapon"): "weapon.",
    ("attribute_out_of_range", "attribute"): "input.field.",
    ("attribute_missing", "attribute"): "input.field.",
    ("unknown_attribute", "expected"): "input.field.",
}


def named(tr: Tr, prefix: str, ids: str) -> str:
    """``a, b`` ids of ``prefix`` names as the bot shows them ("rifle" -> "винтовка"); an id
    without a name is kept."""
    from handlers.telegram.ui.words import bare_name

    return ", ".join(
        bare_name(tr(prefix + i)) if tr.has(prefix + i) else i for i in ids.split(", ")
    )


def params(tr: Tr, code: str, raw: Mapping[str, Any]) -> dict[str, Any]:
    """A rejection's parameters ready for its message: field paths and bounds in words."""
    out: dict[str, Any] = {}
    field = str(raw.get("field", ""))
    for k, v in raw.items():
        if k == EXAMPLE:
            continue
        if (code, k) in _NAMED:
            out[k] = named(tr, _NAMED[code, k], str(v))
        elif k == "field" and not code.startswith("edit_"):  # /edit's fields are typed as is
            out[k] = field_name(tr, field)
        elif k == "expected" and code == "invalid_field":
            out[k] = expected_text(tr, field, str(v))
        elif k == "expected":
            out[k] = phrase(tr, str(v))
        elif k == "what":
            key = f"input.what.{v}"
            out[k] = Raw(tr(key)) if tr.has(key) else str(v)
        elif k == "command" and tr.has(f"input.cmd.{v}"):  # a typed keyword, in the reader's
            out[k] = tr(f"input.cmd.{v}")
        elif isinstance(v, int | float):
            out[k] = v
        elif k in _OWN_WORDS:
            out[k] = id_list(tr, str(v)) or str(v)
        else:
            out[k] = clip(str(v))
    return out


def rejection_text(tr: Tr, exc: Rejection) -> str:
    """The rejection's message in plain words, then the attached example, if any."""
    key = f"err.{exc.code}"
    text = tr("err.unknown", code=exc.code)
    if tr.has(key):
        with suppress(KeyError, IndexError):
            text = tr(key, **params(tr, exc.code, exc.params))
    if catalog(tr.lang).gettext(key).startswith("{field}"):  # begins with a field in words
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
