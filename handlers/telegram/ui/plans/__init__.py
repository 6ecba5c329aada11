"""Telegram UI of the ``plans`` ruleset (``docs/rules/plans.md``, C1-C22).

Order builder (private chat), one step per screen, every screen with Back and Cancel:
group -> skill -> second skill (C10; only groups whose reserve can pay, skipped when none can)
-> action (C11) -> soak group (C15; skipped unless the config puts it in the plan) -> group to
restore (C17) -> guesses of the opponent's group, skill and action (C12) -> a confirmation
screen with the action pool and the EXACT chance of at least 1, 2, 3… successes
(:mod:`engine.rulesets.plans.preview`). The role-play text (C22) is the last part: the player
*replies* to the confirmation message with it, and the reply seals the plan.

Builder state travels in the callback data as ONE argument of one character per step
(:data:`STEPS`; ``-`` = none/not guessed; indexes, never names), so a whole plan costs 9 bytes
of the 64. The confirmation message's "✍️" button carries the complete state, signed: a reply
to that message is read back by :mod:`handlers.telegram.features.text_reply` from the replied
message's keyboard, so the text step needs no storage either.

Typed syntax: ``/plan physical fencing +mental feint strong soak:mental restore:magical
guess:magical/pyromancy/cunning -- text`` (also after ``/order``),
:func:`engine.rulesets.plans.parse_typed`.

Modules (the shape of every ruleset UI): :mod:`.lobby`, :mod:`.sheet`, :mod:`.typed`,
:mod:`.reveal`, :mod:`.builder` (each a layer of :class:`PlansUI`), :mod:`.common`; and
:mod:`.flow`, the Telegram flow beyond buttons (``/plan``, the GM's veto), plugged in by the
wiring through :meth:`handlers.telegram.ui.RulesetUI.flow`. The wiring imports the flow on a
cold start, so this package's names load lazily (the UI imports the ruleset, and pydantic).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from handlers.telegram.ui.plans.common import action_name, group_name, skill_name
    from handlers.telegram.ui.plans.main import UI, PlansUI

# Where each public name lives: loaded on first use (PEP 562), not when the flow is imported.
_LAZY = {
    "UI": "handlers.telegram.ui.plans.main",
    "PlansUI": "handlers.telegram.ui.plans.main",
    "action_name": "handlers.telegram.ui.plans.common",
    "group_name": "handlers.telegram.ui.plans.common",
    "skill_name": "handlers.telegram.ui.plans.common",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


__all__ = ["UI", "PlansUI", "action_name", "group_name", "skill_name"]
