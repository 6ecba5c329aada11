"""The ruleset registry. A ruleset is added by adding its module (or package) and one line in
``_MODULES``; modules are imported on first use, so a cold start pays only for what it plays."""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any

from engine.ruleset import Ruleset

_MODULES: dict[str, str] = {
    "pistol": "engine.rulesets.pistol",
    "plans": "engine.rulesets.plans",
    "dragons": "engine.rulesets.dragons",
}

_LOADED: dict[str, Ruleset[Any, Any, Any]] = {}


class UnknownRulesetError(KeyError):
    """No ruleset with that id."""


def available() -> list[str]:
    """Ids of every registered ruleset whose module is present."""
    out = []
    for rid, mod in _MODULES.items():
        if importlib.util.find_spec(mod) is not None:
            out.append(rid)
    return out


def get(ruleset_id: str) -> Ruleset[Any, Any, Any]:
    """The ruleset registered under ``ruleset_id``."""
    if ruleset_id in _LOADED:
        return _LOADED[ruleset_id]
    module_name = _MODULES.get(ruleset_id)
    if module_name is None:
        raise UnknownRulesetError(ruleset_id)
    module = importlib.import_module(module_name)
    ruleset: Ruleset[Any, Any, Any] = module.RULESET
    if ruleset.id != ruleset_id:
        raise UnknownRulesetError(f"{module_name} registers {ruleset.id!r}, not {ruleset_id!r}")
    _LOADED[ruleset_id] = ruleset
    return ruleset


def register(ruleset: Ruleset[Any, Any, Any]) -> None:
    """Register an already-built ruleset (tests and plugins); built-ins use ``_MODULES``."""
    _LOADED[ruleset.id] = ruleset
