"""A typed syntax for plans, so a player can seal one line instead of tapping a builder:

    /plan physical fencing +magical pyromancy strong soak:mental restore:magical
          guess:physical/fencing/strong -- I feint low, then the blade catches fire

Grammar (words separated by spaces; everything after `` -- `` is the role-play text, C22):

    [/plan] GROUP SKILL [+GROUP SKILL] ACTION [soak:GROUP|none] [restore:GROUP]
            [guess:G/S/A | guess G/S/A] -- TEXT

A guess part may be ``?`` or ``-`` (not guessed). Groups and actions accept English and Russian
words and short prefixes (``phys``, ``физ``, ``сил``…). Skills are the sheet's skill ids.
:func:`parse_typed` returns the plan's JSON form (see :mod:`engine.rulesets.plans.orders`) and
raises :class:`Rejection` with a specific code on bad input; sheet legality is checked later.
"""

from __future__ import annotations

from typing import Any

from engine.errors import Rejection
from engine.rulesets.plans.config import ACTIONS, GROUPS

GROUP_WORDS: dict[str, str] = {
    "physical": "physical", "phys": "physical", "ph": "physical",
    "физическая": "physical", "физическую": "physical", "физ": "physical", "тело": "physical",
    "magical": "magical", "magic": "magical", "mag": "magical",
    "магическая": "magical", "магическую": "magical", "маг": "magical", "магия": "magical",
    "mental": "mental", "ment": "mental", "mind": "mental",
    "ментальная": "mental", "ментальную": "mental", "мент": "mental", "разум": "mental",
}  # fmt: skip
ACTION_WORDS: dict[str, str] = {
    "strong": "strong", "str": "strong", "сильное": "strong", "сил": "strong",
    "precise": "precise", "prec": "precise", "точное": "precise", "точн": "precise",
    "cunning": "cunning", "cun": "cunning", "хитрое": "cunning", "хитр": "cunning",
    "healing": "healing", "heal": "healing", "лечебное": "healing", "леч": "healing",
    "defensive": "defensive", "def": "defensive", "защитное": "defensive", "защ": "defensive",
}  # fmt: skip
NONE_WORDS = frozenset({"none", "no", "-", "нет"})
UNKNOWN_PART = frozenset({"?", "-", "", "_"})
COMMANDS = ("/plan", "/план")

_EXPECTED_GROUP = ", ".join(GROUPS)
_EXPECTED_ACTION = ", ".join(ACTIONS)


def _group(word: str, field: str) -> str:
    value = GROUP_WORDS.get(word.lower())
    if value is None:
        raise Rejection("unknown_group", field=field, value=word, expected=_EXPECTED_GROUP)
    return value


def _action(word: str, field: str) -> str:
    value = ACTION_WORDS.get(word.lower())
    if value is None:
        raise Rejection("unknown_action", field=field, value=word, expected=_EXPECTED_ACTION)
    return value


def _guess(spec: str) -> dict[str, str | None]:
    parts = spec.split("/")
    if len(parts) != 3:
        raise Rejection("bad_guess", field="guess", value=spec, expected="GROUP/SKILL/ACTION")
    g, s, a = (p.strip() for p in parts)
    return {
        "group": None if g in UNKNOWN_PART else _group(g, "guess.group"),
        "skill": None if s in UNKNOWN_PART else s,
        "action": None if a in UNKNOWN_PART else _action(a, "guess.action"),
    }


def parse_typed(text: str) -> dict[str, Any]:
    """Parse one typed plan into its JSON form; raises :class:`Rejection` (nothing changes)."""
    head, sep, tail = text.partition("--")
    words = head.split()
    if words and words[0].split("@", 1)[0].lower() in COMMANDS:
        words = words[1:]
    if not words:
        raise Rejection("missing_part", field="group", expected=_EXPECTED_GROUP)
    if not sep or not tail.strip():
        # C22: the role-play text is required; its length is checked with the sheet.
        raise Rejection("text_required", field="text", expected="-- TEXT")
    plan: dict[str, Any] = {"group": _group(words[0], "group")}
    if len(words) < 2 or ":" in words[1] or words[1].startswith("+"):
        raise Rejection("missing_part", field="skill", expected="a skill id from the sheet")
    plan["skill"] = words[1]
    rest = words[2:]
    second: dict[str, str] | None = None
    if rest and rest[0].startswith("+"):
        if len(rest) < 2 or ":" in rest[1]:
            raise Rejection("missing_part", field="second.skill", expected="+GROUP SKILL")
        second = {"group": _group(rest[0][1:], "second.group"), "skill": rest[1]}
        rest = rest[2:]
    if not rest or ":" in rest[0] or rest[0].lower() == "guess":
        raise Rejection("missing_part", field="action", expected=_EXPECTED_ACTION)
    plan["action"] = _action(rest[0], "action")
    plan["second"] = second
    options: dict[str, Any] = {}
    k = 1
    while k < len(rest):
        word = rest[k]
        key, colon, value = word.partition(":")
        key = key.lower()
        if key == "guess" and not colon:
            if k + 1 >= len(rest):
                raise Rejection("bad_guess", field="guess", value="", expected="GROUP/SKILL/ACTION")
            value, colon, k = rest[k + 1], ":", k + 1
        if not colon or key not in ("soak", "restore", "guess"):
            raise Rejection("unknown_option", value=word, expected="soak:, restore:, guess:")
        if key in options:
            raise Rejection("duplicate_option", field=key, value=word)
        if key == "guess":
            options[key] = _guess(value)
        elif key == "soak" and value.lower() in NONE_WORDS:
            options[key] = None
        else:
            options[key] = _group(value, key)
        k += 1
    plan["soak"] = options.get("soak")
    plan["restore"] = options.get("restore")
    plan["guess"] = options.get("guess", {"group": None, "skill": None, "action": None})
    plan["text"] = tail.strip()
    return plan


def format_typed(plan: dict[str, Any]) -> str:
    """The typed form of a plan's JSON (inverse of :func:`parse_typed`, canonical words)."""
    words = ["/plan", plan["group"], plan["skill"]]
    second = plan.get("second")
    if second:
        words += [f"+{second['group']}", second["skill"]]
    words.append(plan["action"])
    if plan.get("soak"):
        words.append(f"soak:{plan['soak']}")
    if plan.get("restore"):
        words.append(f"restore:{plan['restore']}")
    guess = plan.get("guess") or {}
    if any(guess.get(k) for k in ("group", "skill", "action")):
        parts = [guess.get(k) or "?" for k in ("group", "skill", "action")]
        words.append("guess:" + "/".join(parts))
    return " ".join(words) + " -- " + str(plan.get("text", ""))
