"""Verify a match dossier: commitments, fingerprints, every die and every resolution.

For each recorded turn (0 is the setup):
1. ``sha256(seed) == commitment`` — the seed is the one committed before any order was sealed.
2. Every sealed order's fingerprint recomputes from (match, turn, pid, order, salt); a default
   order equals the ruleset's default for that state.
3. The chain holds: each turn starts from the previous turn's final state.
4. The turn is replayed with the recorded ruleset: dice re-derived from the seed
   (:class:`~engine.dice.CommittedDice`), orders parsed, ``setup``/``resolve`` run; the events
   (every roll included) and the final state must match exactly.

Every mismatch is a :class:`Finding` (turn, what, expected, found); a dossier verifies when
there is none.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine import rulesets as registry
from engine.dice import CommittedDice, TurnLog
from engine.dossier import FORMAT
from engine.events import Event
from engine.match import canonical_json, order_fingerprint
from engine.ruleset import Entrant, Ruleset, Sealed


@dataclass(frozen=True, slots=True)
class Finding:
    turn: int | None
    what: str
    expected: Any = None
    found: Any = None

    def __str__(self) -> str:
        where = "dossier" if self.turn is None else f"turn {self.turn}"
        if self.expected is None and self.found is None:
            return f"{where}: {self.what}"
        return f"{where}: {self.what}: expected {_short(self.expected)}, found {_short(self.found)}"


def _short(value: Any, limit: int = 160) -> str:
    text = value if isinstance(value, str) else canonical_json(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def verify(dossier: Mapping[str, Any]) -> list[Finding]:
    """Every inconsistency in ``dossier`` (empty when it verifies)."""
    try:
        return _verify(dossier)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        return [Finding(None, f"malformed dossier ({type(exc).__name__}: {exc})")]


def _verify(dossier: Mapping[str, Any]) -> list[Finding]:
    if dossier.get("format") != FORMAT:
        return [Finding(None, "not a Sekundant dossier", FORMAT, dossier.get("format"))]
    match = dossier["match"]
    try:
        rules = registry.get(match["ruleset"])
    except registry.UnknownRulesetError:
        return [Finding(None, "unknown ruleset", "a registered ruleset", match["ruleset"])]
    findings: list[Finding] = []
    previous: Mapping[str, Any] | None = None
    for index, turn in enumerate(dossier["turns"]):
        number = int(turn["turn"])
        if number != index:
            findings.append(Finding(number, "turn numbering", index, number))
        if turn["ruleset_version"] != rules.version:
            findings.append(
                Finding(
                    number, "cannot replay: ruleset version", turn["ruleset_version"], rules.version
                )
            )
            return findings
        findings += _check_turn(rules, match, turn, previous)
        previous = turn["state_after"]
    current = dossier.get("current")
    if current is not None and dossier["turns"]:
        expected_turn = int(dossier["turns"][-1]["turn"]) + 1
        if int(current["turn"]) != expected_turn:
            findings.append(Finding(None, "current turn number", expected_turn, current["turn"]))
    return findings


def _check_turn(
    rules: Ruleset[Any, Any, Any],
    match: Mapping[str, Any],
    turn: Mapping[str, Any],
    previous: Mapping[str, Any] | None,
) -> list[Finding]:
    number = int(turn["turn"])
    out: list[Finding] = []
    seed = bytes.fromhex(turn["seed"])
    digest = hashlib.sha256(seed).hexdigest()
    if digest != turn["commitment"]:
        out.append(
            Finding(number, "seed does not match its commitment", turn["commitment"], digest)
        )
    log = TurnLog(CommittedDice(seed, match["id"], number))
    config = rules.config(match["config"])
    if number == 0:
        entrants = [
            Entrant(
                s["pid"], s.get("side", ""), s.get("character") or {}, bool(s.get("npc")), s["name"]
            )
            for s in match["seats"]
        ]
        state = rules.setup(config, entrants, log)
    else:
        if previous is not None and canonical_json(turn["state_before"]) != canonical_json(
            previous
        ):
            out.append(
                Finding(number, "state before the turn differs from the previous turn's end")
            )
        before = rules.load_state(turn["state_before"])
        sealed: dict[str, Sealed[Any]] = {}
        for order in turn["orders"]:
            pid = order["pid"]
            if order.get("default"):
                expected = rules.dump_order(rules.default_order(before, pid))
                if canonical_json(expected) != canonical_json(order["order"]):
                    out.append(Finding(number, f"default order of {pid}", expected, order["order"]))
            else:
                fp = order_fingerprint(match["id"], number, pid, order["order"], order["salt"])
                if fp != order["fingerprint"]:
                    out.append(
                        Finding(number, f"fingerprint of {pid}'s order", order["fingerprint"], fp)
                    )
            parsed = rules.parse_order(before, pid, order["order"])
            sealed[pid] = Sealed(parsed, seq=int(order["seq"]), default=bool(order.get("default")))
        state = rules.resolve(before, sealed, log)
    out += _compare_events(number, [e.to_json() for e in log.events], turn["events"])
    after = rules.dump_state(state)
    if canonical_json(after) != canonical_json(turn["state_after"]):
        out.append(Finding(number, "state after the turn", after, turn["state_after"]))
    return out


def _compare_events(number: int, replayed: list[dict[str, Any]], recorded: Any) -> list[Finding]:
    recorded = [Event.from_json(e).to_json() for e in recorded]
    for i, (mine, theirs) in enumerate(zip(replayed, recorded, strict=False)):
        if canonical_json(mine) != canonical_json(theirs):
            what = f"event {i + 1} ({mine.get('kind')}"
            if mine.get("kind") == "roll":
                what += f" {mine.get('purpose')} for {mine.get('actor')}"
            return [Finding(number, what + ")", mine, theirs)]
    if len(replayed) != len(recorded):
        return [Finding(number, "number of events", len(replayed), len(recorded))]
    return []
