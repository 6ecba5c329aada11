"""The ruleset registry. A built-in ruleset is added by adding its package and one line in
``_MODULES``; packages are imported on first use, so a cold start pays only for what it plays.
A plug-in (a ruleset living elsewhere, e.g. the tests' toy ``coin``) is added at run time with
:func:`register` and is then listed by :func:`available` like a built-in."""

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
_PLUGINS: dict[str, None] = {}  # ids registered at run time, in registration order


class UnknownRulesetError(KeyError):
    """No ruleset with that id."""


def available() -> list[str]:
    """Ids of every built-in ruleset whose package is present, then every plug-in."""
    out = []
    for rid, mod in _MODULES.items():
        if importlib.util.find_spec(mod) is not None:
            out.append(rid)
    return out + [rid for rid in _PLUGINS if rid not in _MODULES]


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
    """Register an already-built ruleset (a plug-in, or a test's stand-in for a built-in);
    built-ins use ``_MODULES``."""
    _LOADED[ruleset.id] = ruleset
    _PLUGINS[ruleset.id] = None


def unregister(ruleset_id: str) -> None:
    """Forget a ruleset registered with :func:`register` (a test's clean-up); a built-in is
    loaded again from its package on next use."""
    _LOADED.pop(ruleset_id, None)
    _PLUGINS.pop(ruleset_id, None)
