"""Verify a match dossier: it binds everything it says, not only the dice.

Checked (``docs/fairness.md`` lists each check with its message):
- identification: format, format version, engine and ruleset versions (match and every turn);
- every turn, kept or undone: numbering, reason, ``sha256(seed) == commitment``, the beacon
  round (BLS signature against the network's key, randomness, the round the lock fixed), who
  had to act and who did, every fingerprint, default orders only where the reason allows them
  and equal to the ruleset's default, who sealed and when (inside the turn's window), the
  state chain (with the GM's rulings applied), the replay (every event and the final state);
- the GM's interventions against the turns they touched (undo, forced resolution, resolution
  without the beacon, rulings, pauses, replacements, the GM's end);
- the match: phase, outcome and winners recomputed from the replayed final state (or the
  GM's recorded ruling, or the forfeits), the open turn's number.

Every mismatch is a :class:`Finding` in one convention: "dossier says X, replay gives Y". A
document that is not a dossier raises :class:`NotADossierError` (the CLI's exit 2).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine import ENGINE_VERSION, lock_checks
from engine import rulesets as registry
from engine.beacon import PUBLIC_NETWORKS, BeaconRound, Network, mix, round_after
from engine.beacon import verify_signature as beacon_signature_ok
from engine.dice import CommittedDice, TurnLog
from engine.dossier import FORMAT, SUPPORTED_VERSIONS
from engine.errors import Rejection
from engine.events import Event
from engine.match import canonical_json, order_fingerprint
from engine.ruleset import Entrant, Sealed

_UNSET: Any = object()
REASONS = ("all_sealed", "deadline", "forced")
DEFAULT_SEQ = 1 << 30
KNOWN_ENGINE_VERSIONS = ("1", ENGINE_VERSION)


class NotADossierError(ValueError):
    """The document is not a Sekundant dossier at all."""


@dataclass(frozen=True, slots=True)
class Finding:
    """One mismatch: where, what, what the dossier says and what the replay gives."""

    turn: int | None
    what: str
    says: Any = _UNSET
    gives: Any = _UNSET
    undone: bool = False

    @property
    def compares(self) -> bool:
        """Whether the finding compares what the dossier says with what the replay gives."""
        return self.says is not _UNSET or self.gives is not _UNSET

    def __str__(self) -> str:
        if self.turn is None:
            where = "dossier"
        else:
            where = f"undone turn {self.turn}" if self.undone else f"turn {self.turn}"
        if self.says is _UNSET and self.gives is _UNSET:
            return f"{where}: {self.what}"
        says, gives = _pair(self.says, self.gives)
        return f"{where}: {self.what}: dossier says {says}, replay gives {gives}"


@dataclass(frozen=True, slots=True)
class Note:
    """Something a reader should know that is not a mismatch (e.g. a local test beacon)."""

    turn: int | None
    what: str
    undone: bool = False

    def __str__(self) -> str:
        if self.turn is None:
            return f"dossier: {self.what}"
        return f"{'undone turn' if self.undone else 'turn'} {self.turn}: {self.what}"


def _text(value: Any) -> str:
    if value is _UNSET:
        return "nothing"
    return value if isinstance(value, str) else canonical_json(value)


def _pair(says: Any, gives: Any, limit: int = 160) -> tuple[str, str]:
    """Both values as text; long ones cut to a window around their first difference, so the
    two shown parts always differ (never the same prefix twice)."""
    a, b = _text(says), _text(gives)
    if len(a) <= limit and len(b) <= limit:
        return a, b
    at = next(
        (i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b))
    )
    start = max(0, at - 40)

    def cut(t: str) -> str:
        part = t[start : start + limit]
        return ("…" if start else "") + part + ("…" if start + limit < len(t) else "")

    return f"{cut(a)} (from character {start + 1})", f"{cut(b)} (from character {start + 1})"


@dataclass
class Report:
    findings: list[Finding]
    notes: list[Note]
    turns: int
    undone: int


def verify(dossier: Mapping[str, Any]) -> list[Finding]:
    """Every inconsistency in ``dossier`` (empty when it verifies)."""
    return check(dossier).findings


def check(dossier: Mapping[str, Any]) -> Report:
    """The full verdict: findings, notes, how many turns were checked. Raises
    :class:`NotADossierError` when ``dossier`` is not a dossier."""
    if not isinstance(dossier, Mapping) or dossier.get("format") != FORMAT:
        raise NotADossierError('not a Sekundant dossier (its "format" is not sekundant-dossier)')
    verifier = _Verifier(dossier)
    try:
        verifier.run()
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        detail = f"{type(exc).__name__}: {exc}"
        verifier.findings.append(Finding(None, f"malformed dossier, cannot go on ({detail})"))
    turns = dossier.get("turns")
    undone = dossier.get("undone")
    return Report(
        verifier.findings,
        verifier.notes,
        len(turns) if isinstance(turns, list) else 0,
        len(undone) if isinstance(undone, list) else 0,
    )


def _played_on(
    record: Mapping[str, Any], records: Sequence[Mapping[str, Any]]
) -> Mapping[str, Any] | None:
    """The record of the turn before that ``record`` (an undone one) was played after: the
    latest of that turn's records (kept, or undone later) resolved by then and not yet undone
    when ``record`` resolved."""
    number, resolved = int(record["turn"]), float(record["resolved_at"])
    live = [
        r
        for r in records
        if r is not record
        and int(r["turn"]) == number - 1
        and float(r["resolved_at"]) <= resolved
        and (r.get("undone_at") is None or float(r["undone_at"]) >= resolved)
    ]
    return max(live, key=lambda r: float(r["resolved_at"]), default=None)


class _Verifier:
    def __init__(self, dossier: Mapping[str, Any]) -> None:
        self.d = dossier
        self.findings: list[Finding] = []
        self.notes: list[Note] = []

    def add(self, turn: int | None, what: str, says: Any = _UNSET, gives: Any = _UNSET) -> None:
        self.findings.append(Finding(turn, what, says, gives, self._undone))

    _undone = False

    # ----------------------------------------------------------------- the whole dossier

    def run(self) -> None:
        d = self.d
        if d.get("format_version") not in SUPPORTED_VERSIONS:
            self.add(None, "format version", d.get("format_version"), list(SUPPORTED_VERSIONS))
            return
        if d.get("engine_version") not in KNOWN_ENGINE_VERSIONS:
            self.add(None, "engine version", d.get("engine_version"), ENGINE_VERSION)
        match = d["match"]
        try:
            rules = registry.get(match["ruleset"])
        except registry.UnknownRulesetError:
            self.add(None, "ruleset", match["ruleset"], "no such ruleset in this verifier")
            return
        self.rules = rules
        self.match = match
        if str(match["ruleset_version"]) != rules.version:
            self.add(None, "match ruleset version", match["ruleset_version"], rules.version)
            return
        try:
            rules.config(match["config"])
        except Rejection:
            self.add(None, "configuration", match["config"], "one the rules accept")
            return
        self.interventions: list[Mapping[str, Any]] = list(d.get("interventions") or [])
        self.seats = {s["pid"]: s for s in match["seats"]}
        turns: list[Mapping[str, Any]] = list(d["turns"])
        undone: list[Mapping[str, Any]] = list(d.get("undone") or [])
        if d.get("format_version") != 1:  # version 1 did not keep undone records
            self._check_undos(undone)
        previous: Mapping[str, Any] | None = None
        for index, turn in enumerate(turns):
            number = int(turn["turn"])
            if number != index:
                self.add(number, "turn numbering", number, index)
            self._turn(turn, previous, index)
            previous = turn
        self._undone = True
        for turn in undone:
            number = int(turn["turn"])
            self._turn(turn, _played_on(turn, [*turns, *undone]), number)
            if turn.get("undone_at") is not None and float(turn["undone_at"]) < float(
                turn["resolved_at"]
            ):
                self.add(
                    number,
                    "undone before it resolved",
                    turn["undone_at"],
                    f">= {turn['resolved_at']}",
                )
        self._undone = False
        self._note_undos()
        self._check_binding()
        self._check_forced(turns, undone)
        self._check_pauses([*turns, *undone])
        self._check_locks(turns, undone)
        self._check_match(turns)

    def _check_binding(self) -> None:
        """The bookkeeping fields bound against each other (``engine/verify_binding.py``)."""
        from engine.verify_binding import check_binding
        from engine.verify_fields import check_fields

        for turn, what, says, gives, undone in [*check_binding(self.d), *check_fields(self.d)]:
            self.findings.append(Finding(turn, what, says, gives, undone))

    def _check_locks(
        self, turns: Sequence[Mapping[str, Any]], undone: Sequence[Mapping[str, Any]]
    ) -> None:
        """The lock messages of the kept and undone records (``engine.lock_checks``,
        ``docs/fairness.md``)."""
        for f in lock_checks.check(turns, self._network_quiet, undone=undone):
            self.findings.append(Finding(f.turn, f.what, f.says, f.gives, f.undone))

    def _network_quiet(self, name: str) -> Network | None:
        listed = (self.d.get("beacon_networks") or {}).get(name)
        found = PUBLIC_NETWORKS.get(name)
        if found is None and isinstance(listed, Mapping):
            try:
                found = Network(
                    **{k: listed[k] for k in ("name", "public_key", "genesis_time", "period")}
                )
            except (KeyError, TypeError):
                return None
        return found

    def _check_undos(self, undone: Sequence[Mapping[str, Any]]) -> None:
        undos = [a for a in self.interventions if a.get("action") == "undo"]
        said = [int(a["undone_turn"]) for a in undos]
        have = [int(t["turn"]) for t in undone]
        if said != have:
            self.add(None, "undone turns (GM undo entries vs undone records)", have, said)
        for a, t in zip(undos, undone, strict=False):
            if t.get("undone_at") != a.get("at"):
                self.add(int(t["turn"]), "time of the undo", t.get("undone_at"), a.get("at"))

    def _check_forced(
        self, turns: Sequence[Mapping[str, Any]], undone: Sequence[Mapping[str, Any]]
    ) -> None:
        forced = {int(t["turn"]) for t in [*turns, *undone] if t.get("reason") == "forced"}
        entries = {int(a["turn"]) for a in self.interventions if a.get("action") == "force_resolve"}
        for number in sorted(forced - entries):
            self.add(number, "forced resolution without a GM's force entry", "forced", "no entry")
        for number in sorted(entries - forced):
            self.add(
                number,
                "GM's force entry for a turn not resolved as forced",
                "no such turn",
                "forced",
            )

    def _check_pauses(self, turns: Sequence[Mapping[str, Any]]) -> None:
        """A paused match's deadline is frozen: no turn resolves "at the deadline" while paused
        (between a ``pause`` entry and the next ``resume``)."""
        spans: list[tuple[float, float]] = []
        start: float | None = None
        for a in sorted(self.interventions, key=lambda a: float(a["at"])):
            if a.get("action") == "pause" and start is None:
                start = float(a["at"])
            elif a.get("action") == "resume" and start is not None:
                spans.append((start, float(a["at"])))
                start = None
        if start is not None:
            spans.append((start, float("inf")))
        for t in turns:
            if t.get("reason") != "deadline":
                continue
            at = float(t.get("locked_at") or t["resolved_at"])
            for begin, end in spans:
                if begin < at < end:
                    self.add(
                        int(t["turn"]),
                        "resolved at the deadline while the match was paused",
                        at,
                        f"not between {begin} and {end}",
                    )

    # ----------------------------------------------------------------- one turn

    def _turn(
        self, turn: Mapping[str, Any], previous: Mapping[str, Any] | None, index: int
    ) -> None:
        rules = self.rules
        number = int(turn["turn"])
        if str(turn.get("match_id", self.match["id"])) != str(self.match["id"]):
            self.add(number, "match of the turn", turn.get("match_id"), self.match["id"])
        if str(turn["ruleset_version"]) != str(self.match["ruleset_version"]):
            self.add(
                number,
                "ruleset version of the turn",
                turn["ruleset_version"],
                self.match["ruleset_version"],
            )
            return
        if str(turn.get("engine_version", "1")) != str(self.d.get("engine_version")):
            self.add(
                number,
                "engine version of the turn",
                turn.get("engine_version"),
                self.d.get("engine_version"),
            )
        reason = turn["reason"]
        expected_reason = ("setup",) if number == 0 else REASONS
        if reason not in expected_reason:
            self.add(number, "reason of the turn", reason, " or ".join(expected_reason))
        seed = bytes.fromhex(turn["seed"])
        digest = hashlib.sha256(seed).hexdigest()
        if digest != turn["commitment"]:
            self.add(number, "seed does not match its commitment", turn["commitment"], digest)
        self._window(turn, previous)
        beacon = self._beacon(turn)
        log = TurnLog(CommittedDice(mix(seed, beacon), self.match["id"], number))
        config = rules.config(self.match["config"])
        if number == 0:
            if turn["orders"]:
                self.add(0, "orders in the setup", len(turn["orders"]), 0)
            entrants = [
                Entrant(
                    s["pid"],
                    s.get("side", ""),
                    s.get("character") or {},
                    bool(s.get("npc")),
                    self._name_at_start(s, float(turn["resolved_at"])),
                )
                for s in self.match["seats"]
            ]
            try:
                state = rules.setup(config, entrants, log)
            except Rejection:
                characters = {e.pid: e.character for e in entrants}
                self.add(0, "characters of the seats", characters, "ones the rules accept")
                return
            if turn.get("state_before") not in ({}, None):
                self.add(0, "state before the setup", turn["state_before"], {})
        else:
            if previous is not None:
                self._chain(number, previous, turn)
            before = rules.load_state(turn["state_before"])
            sealed = self._orders(number, turn, before)
            if sealed is None:
                return  # who acted is wrong: the turn cannot be replayed
            state = rules.resolve(before, sealed, log)
        self._events(number, [e.to_json() for e in log.events], turn["events"])
        after = rules.dump_state(state)
        if canonical_json(after) != canonical_json(turn["state_after"]):
            self.add(number, "state after the turn", turn["state_after"], after)

    def _name_at_start(self, seat: Mapping[str, Any], started: float) -> str:
        """The seat's name when the match started (the setup reads it): the dossier lists the
        seats as they are now, so a replacement after the start is walked back to the name
        it replaced (its entry's ``old``)."""
        later = [
            a
            for a in self.interventions
            if a.get("action") == "replace"
            and a.get("pid") == seat["pid"]
            and float(a["at"]) > started
        ]
        return str(later[0]["old"]) if later else str(seat["name"])

    def _window(self, turn: Mapping[str, Any], previous: Mapping[str, Any] | None) -> None:
        number = int(turn["turn"])
        resolved = float(turn["resolved_at"])
        opened = turn.get("opened_at")
        locked = turn.get("locked_at")
        if previous is not None and float(previous["resolved_at"]) > resolved:
            self.add(
                number,
                "resolved before the previous turn",
                resolved,
                f">= {previous['resolved_at']}",
            )
        if (
            previous is not None
            and opened is not None
            and float(opened) < float(previous["resolved_at"])
        ):
            self.add(
                number,
                "opened before the previous turn resolved",
                opened,
                f">= {previous['resolved_at']}",
            )
        if locked is not None and not (
            opened is None or math.floor(float(opened)) <= float(locked) <= resolved
        ):
            self.add(
                number, "lock time outside the turn", locked, f"between {opened} and {resolved}"
            )
        posted = turn.get("commitment_posted_at")
        if posted is not None and opened is not None and float(posted) < float(opened):
            self.add(number, "commitment posted before the turn opened", posted, f">= {opened}")
        if posted is not None and float(posted) > resolved:
            self.add(number, "commitment posted after the turn resolved", posted, f"<= {resolved}")
        frozen = turn.get("frozen_at")
        sealed_times = [float(o["sealed_at"]) for o in turn["orders"] if not o.get("default")]
        earliest = max(
            [*sealed_times, *([float(opened)] if opened is not None else [])], default=None
        )
        if frozen is not None and (
            float(frozen) > resolved or (earliest is not None and float(frozen) < earliest)
        ):
            self.add(
                number,
                "time the turn stopped taking orders",
                frozen,
                f"between {earliest} and {resolved}",
            )
        end = resolved if locked is None else lock_checks.window_end(turn)
        start = (
            opened
            if opened is not None
            else (None if previous is None else previous["resolved_at"])
        )
        for order in turn["orders"]:
            if order.get("default"):
                continue
            at = float(order["sealed_at"])
            if posted is not None and at < float(posted):
                self.add(
                    number,
                    f"{order['pid']}'s order sealed before the turn's commitment was posted",
                    at,
                    f">= {posted}",
                )
            elif at > end or (start is not None and at < float(start)):
                self.add(
                    number,
                    f"{order['pid']}'s order sealed outside the turn's open/lock window",
                    at,
                    f"between {start} and {end}",
                )

    def _beacon(self, turn: Mapping[str, Any]) -> BeaconRound | None:
        number = int(turn["turn"])
        raw = turn.get("beacon")
        target = turn.get("beacon_round")
        if raw is None:
            self._note_seed_only(number, target)
            if (
                target is not None
                and not self._undone
                and not any(
                    a.get("action") == "seed_only" and int(a.get("turn", -1)) == number
                    for a in self.interventions
                )
            ):
                self.add(
                    number,
                    "resolved without its beacon round but no GM entry says so",
                    "no beacon",
                    f"round {target}",
                )
            return None
        beacon = BeaconRound.from_json(raw)
        network = self._network(number, beacon.network)
        if target is not None and int(target) != beacon.round:
            self.add(number, "beacon round the lock fixed", beacon.round, int(target))
        if network is not None:
            locked = turn.get("locked_at")
            if locked is not None and round_after(network, float(locked)) != beacon.round:
                self.add(
                    number,
                    "beacon round after the lock",
                    beacon.round,
                    round_after(network, float(locked)),
                )
            if not beacon_signature_ok(network, beacon.round, beacon.signature):
                self.add(
                    number,
                    f"beacon signature of round {beacon.round}",
                    beacon.signature,
                    "not the network's signature",
                )
        randomness = hashlib.sha256(bytes.fromhex(beacon.signature)).hexdigest()
        if randomness != beacon.randomness:
            self.add(number, "beacon randomness", beacon.randomness, randomness)
        return beacon

    def _note_seed_only(self, number: int, target: Any) -> None:
        """Every turn without a public beacon gets a note: its dice came from the server's
        seed alone, which the operator could have ground until it liked them."""
        why = (
            f"the beacon round {target} was not had and the GM resolved without it"
            if target is not None
            else "no public beacon was used"
        )
        self.notes.append(
            Note(
                number,
                f"server seed only ({why}): dice from the server's seed only — the operator "
                "could choose them",
                self._undone,
            )
        )

    def _note_undos(self) -> None:
        """Each undo gave the GM one more roll of that turn's dice: a note per undo."""
        for a in self.interventions:
            if a.get("action") == "undo":
                self.notes.append(
                    Note(
                        a.get("undone_turn"),
                        "undone by the GM and played again: the GM got one more roll of this "
                        "turn's dice (both records are in the dossier)",
                    )
                )

    def _network(self, number: int, name: str) -> Network | None:
        public = PUBLIC_NETWORKS.get(name)
        listed = (self.d.get("beacon_networks") or {}).get(name)
        if public is not None:
            if listed is not None and listed.get("public_key") != public.public_key:
                self.add(
                    number,
                    f"public key of beacon network {name}",
                    listed.get("public_key"),
                    public.public_key,
                )
            return public
        if listed is None:
            self.add(number, f"beacon network {name}", "unknown", "a listed network")
            return None
        self.notes.append(Note(number, f"beacon {name} is not a public beacon (a local test key)"))
        return Network(
            name, str(listed["public_key"]), int(listed["genesis_time"]), int(listed["period"])
        )

    def _chain(self, number: int, previous: Mapping[str, Any], turn: Mapping[str, Any]) -> None:
        """The turn starts from the previous turn's end, with the GM's rulings (``edit``) made
        in between applied."""
        rules = self.rules
        state = rules.load_state(previous["state_after"])
        t0, t1 = float(previous["resolved_at"]), float(turn["resolved_at"])
        rulings = [
            a
            for a in self.interventions
            if a.get("action") == "edit"
            and a.get("pid") in self.seats
            and int(a.get("turn", -1)) == number
            and t0 <= float(a["at"]) <= t1
        ]
        for a in rulings:
            pid, field = a["pid"], a["field"]
            try:
                old = rules.editable(state, pid).get(field, _UNSET)
                state = rules.edit(state, pid, field, a["new"])
            except Rejection:
                self.add(
                    number, f"GM ruling on {pid}'s {field}", a["new"], "a value the rules allow"
                )
                return
            if old is _UNSET or canonical_json(old) != canonical_json(a.get("old")):
                self.add(
                    number,
                    f"value before the GM's ruling on {pid}'s {field}",
                    a.get("old"),
                    None if old is _UNSET else old,
                )
        expected = rules.dump_state(state)
        if canonical_json(turn["state_before"]) != canonical_json(expected):
            what = "state before the turn differs from the previous turn's end"
            if rulings:
                what += f" with {len(rulings)} GM ruling(s) applied"
            self.add(number, what, turn["state_before"], expected)

    def _orders(
        self, number: int, turn: Mapping[str, Any], before: Any
    ) -> dict[str, Sealed[Any]] | None:
        rules = self.rules
        reason = turn["reason"]
        resolved = float(turn["resolved_at"])
        gone = {  # forfeits before this record resolved (an undone record may predate one)
            a["pid"]
            for a in self.interventions
            if a.get("action") == "forfeit"
            and int(a["turn"]) <= number
            and float(a["at"]) <= resolved
        }
        must = sorted(rules.acting(before) - gone)
        pids = [o["pid"] for o in turn["orders"]]
        if sorted(pids) != must:
            self.add(number, "seats with an order", sorted(pids), must)
            return None
        defaults = sorted(o["pid"] for o in turn["orders"] if o.get("default"))
        if defaults and reason == "all_sealed":
            self.add(number, "default orders in a turn every order was sealed", defaults, [])
        if reason == "forced" and not self._undone:
            told = [
                sorted(a.get("missing") or [])
                for a in self.interventions
                if a.get("action") == "force_resolve" and int(a["turn"]) == number
            ]
            if told and defaults not in told:
                self.add(
                    number,
                    "default orders vs the seats the GM's force found missing",
                    defaults,
                    told[-1],
                )
        seqs = [int(o["seq"]) for o in turn["orders"] if not o.get("default")]
        if len(set(seqs)) != len(seqs) or any(s < 1 or s >= DEFAULT_SEQ for s in seqs):
            self.add(
                number, "sealing order (seq) of the sealed orders", seqs, "distinct numbers from 1"
            )
        by_seq = sorted(
            (int(o["seq"]), float(o["sealed_at"])) for o in turn["orders"] if not o.get("default")
        )
        times = [at for _, at in by_seq]
        if times != sorted(times):
            self.add(number, "sealing order (seq) vs the sealing times", by_seq, "numbered in time")
        sealed: dict[str, Sealed[Any]] = {}
        for order in turn["orders"]:
            pid = order["pid"]
            if int(order.get("turn", number)) != number:
                self.add(number, f"turn of {pid}'s order", order.get("turn"), number)
            if order.get("default"):
                expected = rules.dump_order(rules.default_order(before, pid))
                if canonical_json(expected) != canonical_json(order["order"]):
                    self.add(number, f"default order of {pid}", order["order"], expected)
                if (
                    order.get("salt")
                    or order.get("fingerprint")
                    or order.get("by_user") is not None
                ):
                    self.add(
                        number,
                        f"default order of {pid} carries a sealer, salt or fingerprint",
                        {k: order.get(k) for k in ("by_user", "salt", "fingerprint")},
                        "none",
                    )
                if int(order["seq"]) != DEFAULT_SEQ:
                    self.add(
                        number,
                        f"sealing order (seq) of {pid}'s default order",
                        order["seq"],
                        DEFAULT_SEQ,
                    )
            else:
                fp = order_fingerprint(self.match["id"], number, pid, order["order"], order["salt"])
                if fp != order["fingerprint"]:
                    self.add(number, f"fingerprint of {pid}'s order", order["fingerprint"], fp)
                self._sealer(number, order)
            try:
                parsed = rules.parse_order(before, pid, order["order"])
            except Rejection:
                self.add(number, f"{pid}'s order", order["order"], "an order the rules accept")
                return None
            sealed[pid] = Sealed(parsed, seq=int(order["seq"]), default=bool(order.get("default")))
        return sealed

    def _sealer(self, number: int, order: Mapping[str, Any]) -> None:
        """The order was sealed by its seat's player, or by the GM (NPCs, GM-run seats), as
        they were when it was sealed (replacements and GM hand-overs followed in time)."""
        pid, at = order["pid"], float(order["sealed_at"])
        seat = self.seats.get(pid)
        if seat is None:
            self.add(number, f"seat of {pid}'s order", pid, "no such seat")
            return
        if any(
            a.get("action") == "replace" and a.get("pid") == pid and "old_user" not in a
            for a in self.interventions
        ):
            return  # a replacement written before user ids were logged: the holder is unknown
        gm = int(self.match["gm_user_id"])
        user = seat.get("user_id")
        allowed: set[int] = set()
        # Walk back from the final holders through the entries after the sealing time. An
        # entry at the very sealing time may have come before or after it: both holders.
        for a in sorted(self.interventions, key=lambda a: float(a["at"]), reverse=True):
            if float(a["at"]) < at:
                break
            if float(a["at"]) == at:
                allowed |= {gm} if user is None else {gm, int(user)}
            if a.get("action") == "hand_gm":
                gm = int(a["old"])
            if a.get("action") == "replace" and a.get("pid") == pid and "old_user" in a:
                user = a["old_user"]
        allowed |= {gm} if user is None else {gm, int(user)}
        if order.get("by_user") not in allowed:
            self.add(number, f"who sealed {pid}'s order", order.get("by_user"), sorted(allowed))

    def _events(self, number: int, replayed: list[dict[str, Any]], recorded: Any) -> None:
        recorded = [Event.from_json(e).to_json() for e in recorded]
        for i, (mine, theirs) in enumerate(zip(replayed, recorded, strict=False)):
            if canonical_json(mine) != canonical_json(theirs):
                what = f"event {i + 1} ({mine.get('kind')}"
                if mine.get("kind") == "roll":
                    what += f" {mine.get('purpose')} for {mine.get('actor')}"
                self.add(number, what + ")", theirs, mine)
                return
        if len(replayed) != len(recorded):
            self.add(number, "number of events", len(recorded), len(replayed))

    # ----------------------------------------------------------------- the match's result

    def _check_match(self, turns: Sequence[Mapping[str, Any]]) -> None:
        match = self.match
        phase, outcome = match["phase"], match.get("outcome")
        current = self.d.get("current")
        if not turns:
            if phase != "lobby" and not (phase == "finished" and self._gm_end()):
                self.add(None, "phase", phase, "lobby (no turn was played)")
            return
        rules = self.rules
        final = rules.load_state(turns[-1]["state_after"])
        result = rules.outcome(final)
        replayed = {
            "status": result.status,
            "winners": list(result.winners),
            "reason": result.reason,
        }
        gm_end = self._gm_end()
        forfeit = [a for a in self.interventions if a.get("action") == "forfeit"]
        if gm_end is not None:
            expected: Any = {"status": gm_end.get("result"), "by_gm": True}
            if "winners" in gm_end:
                expected["winners"] = list(gm_end["winners"])
            shown = {k: (outcome or {}).get(k) for k in expected}
            if phase != "finished":
                self.add(None, "phase after the GM ended the match", phase, "finished")
            elif shown != expected:
                self.add(None, "outcome (the GM's recorded ruling)", shown, expected)
        elif result.finished:
            if phase != "finished":
                self.add(None, "phase", phase, f"finished ({result.status})")
            elif canonical_json(outcome) != canonical_json(replayed):
                self.add(None, "outcome (from the replayed final state)", outcome, replayed)
        elif outcome is not None and outcome.get("reason") == "forfeit" and forfeit:
            gone = {a["pid"] for a in forfeit}
            active = sorted(p for p in self.seats if p not in gone)
            if phase != "finished":
                self.add(None, "phase after the forfeits", phase, "finished")
            if sorted(outcome.get("winners") or []) != active:
                self.add(None, "winners after the forfeits", outcome.get("winners"), active)
        else:
            if phase != "running":
                self.add(None, "phase", phase, "running (the replayed final state is not over)")
            if outcome is not None:
                self.add(None, "outcome", outcome, None)
        last = int(turns[-1]["turn"])
        if phase == "running":
            if current is None:
                self.add(None, "open turn of a running match", None, last + 1)
            elif int(current["turn"]) != last + 1:
                self.add(None, "current turn number", current["turn"], last + 1)
        elif current is not None:
            self.add(None, "open turn of a match that is not running", current.get("turn"), None)

    def _gm_end(self) -> Mapping[str, Any] | None:
        ends = [a for a in self.interventions if a.get("action") == "end"]
        return ends[-1] if ends else None
