"""``sekundant turn --input FILE.json``: resolve one turn from a JSON document and print
``{"events": [...], "state": {...}, "outcome": {...}}`` (format: ``docs/simulator.md``).

The document holds either a stored match state (``ruleset``, ``state``, optional ``config``;
a whole stored match document works too) or a fresh start (``ruleset``, ``config``,
``participants`` as in a simulator setup), the turn's ``orders`` by participant id, and either
scripted ``dice`` (faces in the order rolled) or a ``seed``. Missing orders become the
ruleset's default order, as at a deadline. Bad input: exit 2, one line, nothing written.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping
from typing import Any

from engine import rulesets as registry
from engine.dice import DiceSource, RandomDice, ScriptedDice, ScriptExhaustedError, TurnLog
from engine.errors import Rejection
from engine.match import outcome_json
from engine.ruleset import Ruleset, Sealed
from engine.simulate import SetupError, parse_setup, prepare
from handlers.cli import UsageError
from handlers.commands.simulate import describe, load_json


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--input", required=True, metavar="FILE.json", help="the turn document")


def run(args: argparse.Namespace) -> int:
    doc = load_json(args.input, "--input")
    print(json.dumps(resolve_doc(doc), ensure_ascii=False))
    return 0


def resolve_doc(doc: Any) -> dict[str, Any]:
    """Resolve the turn a document describes; raises :class:`UsageError` for bad input."""
    if not isinstance(doc, Mapping):
        raise UsageError("input: expected a JSON object")
    rid = doc.get("ruleset")
    if not isinstance(rid, str):
        raise UsageError("ruleset: expected a ruleset id (string)")
    try:
        rules = registry.get(rid)
    except registry.UnknownRulesetError:
        allowed = ", ".join(registry.available())
        raise UsageError(f"ruleset: unknown ruleset {rid!r} (expected one of: {allowed})") from None
    source, seed = _dice(doc)
    state = _state(rules, doc, source)
    if rules.outcome(state).finished:
        raise UsageError("state: the match is already finished")
    orders = _orders(rules, state, doc)
    defaulted = sorted(rules.acting(state) - set(orders))
    orders = rules.with_defaults(state, orders)  # deadline semantics, as in live play
    log = TurnLog(source)
    turn = rules.turn_of(state)
    try:
        new_state = rules.resolve(state, orders, log)
    except ScriptExhaustedError as exc:
        raise UsageError(f"dice: {exc}") from None
    except Rejection as exc:
        raise UsageError(describe("orders", exc)) from None
    out: dict[str, Any] = {
        "ruleset": rid,
        "turn": turn,
        "orders": {pid: rules.dump_order(s.order) for pid, s in orders.items()},
        "defaulted": defaulted,
        "events": [e.to_json() for e in log.events],
        "state": rules.dump_state(new_state),
        "outcome": outcome_json(rules.outcome(new_state)),
    }
    if isinstance(source, ScriptedDice):
        out["dice_unused"] = source.remaining
    else:
        out["seed"] = seed
    return out


def _dice(doc: Mapping[str, Any]) -> tuple[DiceSource, int | str | None]:
    dice = doc.get("dice")
    if dice is not None:
        if not isinstance(dice, list) or not all(
            isinstance(f, int) and not isinstance(f, bool) and f >= 1 for f in dice
        ):
            raise UsageError("dice: expected a list of die faces (integers >= 1)")
        return ScriptedDice(dice), None
    seed = doc.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int | str):
        raise UsageError("seed: expected an integer or a string")
    return RandomDice(seed), seed


def _state(rules: Ruleset[Any, Any, Any], doc: Mapping[str, Any], source: DiceSource) -> Any:
    raw = doc.get("state")
    if raw is not None:
        if not isinstance(raw, Mapping):
            raise UsageError("state: expected the state object the store saved")
        try:
            return rules.load_state(raw)
        except Rejection as exc:
            raise UsageError(describe("state", exc)) from None
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise UsageError(
                f"state: not a {rules.id} state ({type(exc).__name__}: {exc})"
            ) from None
    if "participants" not in doc:
        raise UsageError("state: required (or participants, to set up a fresh match)")
    setup_doc = {k: doc[k] for k in ("ruleset", "config", "participants") if k in doc}
    try:
        prepared = prepare(parse_setup(setup_doc))
    except SetupError as exc:
        raise UsageError(describe(exc.where, exc.reason)) from None
    try:
        return rules.setup(prepared.config, prepared.entrants, TurnLog(source))
    except ScriptExhaustedError as exc:
        raise UsageError(f"dice: {exc}") from None


def _orders(
    rules: Ruleset[Any, Any, Any], state: Any, doc: Mapping[str, Any]
) -> dict[str, Sealed[Any]]:
    raw = doc.get("orders")
    if not isinstance(raw, Mapping):
        raise UsageError("orders: required, an object of orders by participant id ({} is allowed)")
    acting = rules.acting(state)
    out: dict[str, Sealed[Any]] = {}
    for seq, (pid, order) in enumerate(raw.items(), start=1):
        if pid not in acting:
            expected = ", ".join(sorted(acting))
            raise UsageError(f"orders.{pid}: not acting this turn (expected one of: {expected})")
        if not isinstance(order, Mapping):
            raise UsageError(f"orders.{pid}: expected an order object")
        try:
            out[pid] = Sealed(rules.check_order(state, pid, order), seq=seq)
        except Rejection as exc:
            raise UsageError(describe(f"orders.{pid}", exc)) from None
        except (KeyError, TypeError, ValueError) as exc:  # a ruleset's parser less careful
            raise UsageError(
                f"orders.{pid}: not a valid order ({type(exc).__name__}: {exc})"
            ) from None
    return out
