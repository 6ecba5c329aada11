"""The balance simulator: play N whole matches of any ruleset and count what happened.

It drives the same :class:`~engine.ruleset.Ruleset` code as live play (``setup``,
``acting``, ``random_order``/fixed orders, ``resolve``, ``outcome``) with dice from a seeded
:class:`~engine.dice.RandomDice`, so its figures describe the real rules. Pure apart from the
injected clock used for the matches-per-second figure. Format: ``docs/simulator.md``.
"""

from __future__ import annotations

import gc
import random
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from engine import rulesets as registry
from engine.dice import CountingLog, RandomDice, TurnLog
from engine.errors import Rejection, parse_model
from engine.events import Event
from engine.ruleset import Entrant, Outcome, Ruleset, Sealed

RANDOM = "random"


class SetupError(Exception):
    """Bad simulator input. ``where`` is the path of the offending field in the setup
    document (e.g. ``participants[1].orders``); ``reason`` the specific :class:`Rejection`."""

    def __init__(self, where: str, reason: Rejection) -> None:
        super().__init__(where, reason)
        self.where = where
        self.reason = reason


class _ParticipantDoc(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1)
    character: dict[str, Any]
    orders: Any = RANDOM  # "random" or one fixed order object (checked against the ruleset)
    side: str = ""
    npc: bool = False
    name: str = ""


class _SetupDoc(BaseModel):
    model_config = ConfigDict(extra="forbid")

    ruleset: str
    config: dict[str, Any] = Field(default_factory=dict)
    participants: list[_ParticipantDoc] = Field(min_length=1)
    turns: int | None = Field(default=None, ge=1)


@dataclass(frozen=True, slots=True)
class Participant:
    pid: str
    character: Mapping[str, Any]
    orders: Mapping[str, Any] | None  # None: a random legal order every turn
    side: str = ""
    npc: bool = False
    name: str = ""


@dataclass(frozen=True, slots=True)
class Setup:
    """A parsed setup document."""

    ruleset: str
    config: Mapping[str, Any]
    participants: tuple[Participant, ...]
    turns: int | None = None


@dataclass(frozen=True, slots=True)
class Prepared:
    """A setup checked against its ruleset: config parsed, characters and fixed orders
    validated on the initial state."""

    rules: Ruleset[Any, Any, Any]
    config: Any
    entrants: tuple[Entrant, ...]
    fixed: Mapping[str, Any]  # pid -> parsed order
    setup: Setup


@dataclass(slots=True)
class Result:
    """What N matches gave. ``outcomes`` counts wins by participant id (every winner of a
    multi-winner match counts), plus ``draw`` and ``mutual``."""

    ruleset: str
    n: int
    seed: int | str
    outcomes: dict[str, int] = field(default_factory=dict)
    reasons: dict[str, int] = field(default_factory=dict)
    events: dict[str, int] = field(default_factory=dict)
    turns_total: int = 0
    turns_max: int = 0
    seconds: float = 0.0
    # Matches won by each side (once per match, whatever the number of winners): with
    # ``draw`` and ``mutual`` these sum to ``n``.
    sides: dict[str, int] = field(default_factory=dict)

    @property
    def turns_mean(self) -> float:
        return self.turns_total / self.n if self.n else 0.0

    @property
    def matches_per_second(self) -> float:
        return self.n / self.seconds if self.seconds > 0 else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "ruleset": self.ruleset,
            "n": self.n,
            "seed": self.seed,
            "outcomes": dict(sorted(self.outcomes.items())),
            "reasons": dict(sorted(self.reasons.items())),
            "events": dict(sorted(self.events.items())),
            "turns_mean": round(self.turns_mean, 4),
            "turns_max": self.turns_max,
            "seconds": round(self.seconds, 4),
            "matches_per_second": round(self.matches_per_second, 1),
        }


# --------------------------------------------------------------------------- input


def parse_setup(raw: Any) -> Setup:
    """Check the shape of a setup document; raises :class:`SetupError`."""
    if not isinstance(raw, Mapping):
        raise SetupError(
            "setup",
            Rejection("invalid_field", what="setup", field="setup", expected="a JSON object"),
        )
    try:
        doc = parse_model(_SetupDoc, raw, what="setup")
    except Rejection as exc:
        where = _path(str(exc.params.get("field", "setup")))
        raise SetupError(where, Rejection(exc.code, **{**exc.params, "field": where})) from None
    seen: set[str] = set()
    participants = []
    for i, p in enumerate(doc.participants):
        if p.id in seen:
            where = f"participants[{i}].id"
            raise SetupError(
                where,
                Rejection(
                    "invalid_field",
                    what="setup",
                    field=where,
                    expected=f"an id not used before ({p.id!r} is)",
                ),
            )
        seen.add(p.id)
        orders = p.orders
        if orders == RANDOM:
            fixed = None
        elif isinstance(orders, Mapping):
            fixed = dict(orders)
        else:
            raise SetupError(
                f"participants[{i}].orders",
                Rejection(
                    "invalid_field",
                    what="setup",
                    field="orders",
                    expected='"random" or an order object',
                ),
            )
        participants.append(
            Participant(p.id, dict(p.character), fixed, p.side, p.npc, p.name or p.id)
        )
    return Setup(doc.ruleset, dict(doc.config), tuple(participants), doc.turns)


def _malformed(where: str, what: str, exc: Exception) -> Rejection:
    detail = f"{type(exc).__name__}: {exc}"
    return Rejection("invalid_field", what="setup", field=where, expected=f"{what} ({detail})")


def _path(dotted: str) -> str:
    """``participants.0.id`` -> ``participants[0].id``."""
    out = ""
    for part in dotted.split("."):
        out += f"[{part}]" if part.isdigit() else (f".{part}" if out else part)
    return out


def prepare(setup: Setup) -> Prepared:
    """Check a setup against its ruleset: ruleset id, config, participant count, characters
    and fixed orders (on the initial state). Raises :class:`SetupError`."""
    try:
        rules = registry.get(setup.ruleset)
    except registry.UnknownRulesetError:
        raise SetupError(
            "ruleset",
            Rejection(
                "unknown_ruleset", ruleset=setup.ruleset, allowed=", ".join(registry.available())
            ),
        ) from None
    try:
        config = rules.config(setup.config)
    except Rejection as exc:
        raise SetupError(f"config.{exc.params.get('field', '')}".rstrip("."), exc) from None
    count = len(setup.participants)
    if not rules.min_participants <= count <= rules.max_participants:
        raise SetupError(
            "participants",
            Rejection(
                "wrong_participant_count",
                min=rules.min_participants,
                max=rules.max_participants,
                got=count,
            ),
        )
    for i, p in enumerate(setup.participants):
        where = f"participants[{i}].character"
        try:
            rules.check_character(config, p.character)
        except Rejection as exc:
            raise SetupError(where, exc) from None
        except (KeyError, TypeError, ValueError) as exc:
            raise SetupError(where, _malformed(where, "a character sheet", exc)) from None
    entrants = tuple(
        Entrant(p.pid, p.side or p.pid, p.character, npc=p.npc, name=p.name)
        for p in setup.participants
    )
    try:
        state = rules.setup(config, entrants, TurnLog(RandomDice(0)))
    except Rejection as exc:
        raise SetupError("participants", exc) from None
    fixed: dict[str, Any] = {}
    for i, p in enumerate(setup.participants):
        if p.orders is None:
            continue
        where = f"participants[{i}].orders"
        try:
            fixed[p.pid] = rules.check_order(state, p.pid, p.orders)
        except Rejection as exc:
            raise SetupError(where, exc) from None
        except (KeyError, TypeError, ValueError) as exc:  # a ruleset's parser less careful
            raise SetupError(where, _malformed(where, "an order", exc)) from None
    return Prepared(rules, config, entrants, fixed, setup)


# --------------------------------------------------------------------------- the run


def simulate(
    prepared: Prepared,
    n: int,
    seed: int | str = 0,
    *,
    clock: Callable[[], float] = time.perf_counter,
    counting: bool = True,
) -> Result:
    """Play ``n`` matches. Deterministic for a given setup and seed (timing aside).

    ``counting`` (the default) resolves turns with a :class:`~engine.dice.CountingLog`: the
    same rules code and dice, without building the full event records; False records them
    as live play does. Both give the same figures (``tests/test_sim_counting.py``)."""
    if n < 1:
        raise SetupError(
            "n",
            Rejection("invalid_field", what="simulation", field="n", expected="an integer >= 1"),
        )
    rules = prepared.rules
    config = prepared.config
    entrants = prepared.entrants
    fixed = prepared.fixed
    cap = prepared.setup.turns
    order_pids = [p.pid for p in prepared.setup.participants]
    result = Result(rules.id, n, seed)
    outcomes = result.outcomes
    reasons = result.reasons
    sides = result.sides
    side_of = {e.pid: e.side for e in entrants}
    defaulted = 0

    dice = RandomDice(seed)
    # A separate stream for random orders, so orders and dice are not correlated.
    rng = random.Random(f"orders:{seed}")
    acting_of = rules.acting
    random_order = rules.random_order
    validate = rules.validate
    resolve = rules.resolve
    outcome_of = rules.outcome
    turns_total = 0
    turns_max = 0
    plan = [(pid, fixed.get(pid)) for pid in order_pids]  # None: a random order each turn
    kinds: Counter[str] = Counter()
    sealed_of: dict[int, Sealed[Any]] = {}  # id(order) -> Sealed(order), see below
    # One log for every turn of the run: rulesets only append to ``log.events``, so the turns'
    # events land straight in the list counted below (no TurnLog and no copy per turn).
    turn_log = CountingLog(dice) if counting else TurnLog(dice)
    events: list[Event] = turn_log.events  # counted per match (C-speed Counter over kinds)

    # No automatic garbage collection while the run lasts: a match's events stay alive until
    # it is counted, so every young collection would walk them (and full ones every object
    # alive before the run: modules, models, tables). Cycles made during the run are still
    # collected, every 64 matches between two matches, where little of the run is alive.
    collect = gc.isenabled()
    if collect:
        gc.disable()
    young = gc.get_threshold()[0]
    started = clock()
    try:
        reusable: Any = None
        setup_events: list[Event] = []
        for m in range(n):
            if reusable is None:
                log = TurnLog(dice)
                state = rules.setup(config, entrants, log)
                # A setup that rolled no dice is the same for every match: build it once.
                if "roll" not in map(_kind, log.events):
                    reusable, setup_events = state, log.events
                events.extend(log.events)
            else:
                state = reusable
                events.extend(setup_events)
            turns = 0
            while True:
                out = outcome_of(state)
                if out.status != "running":  # = out.finished, minus a property call
                    break
                if cap is not None and turns >= cap:
                    out = Outcome("draw", (), "turn_cap")
                    break
                acting = acting_of(state)
                orders: dict[str, Sealed[Any]] = {}
                for pid, fixed_order in plan:  # setup order: deterministic whatever the hash seed
                    if pid not in acting:
                        continue
                    if fixed_order is None:
                        order = random_order(state, pid, rng)
                    elif validate(state, pid, fixed_order) is None:
                        order = fixed_order
                    else:  # a fixed order the state no longer allows: the deadline default
                        orders[pid] = rules.default_sealed(state, pid)
                        defaulted += 1
                        continue
                    # Sealed(order) is immutable, so one per order object serves every turn:
                    # random orders are mostly picks from a ruleset's table of legal orders.
                    # Keyed by id (hashing an order can be a Python call); the entry keeps the
                    # order alive, so a hit on the same id is the same object.
                    hit = sealed_of.get(id(order))
                    if hit is None or hit[0] is not order:
                        if len(sealed_of) >= _SEALED_MAX:  # orders built afresh each turn
                            sealed_of.clear()
                        hit = sealed_of[id(order)] = _new(Sealed, (order, 0, False))
                    orders[pid] = hit
                state = resolve(state, orders, turn_log)
                turns += 1
            if events:  # count each match: keeping events alive longer costs more (memory)
                _count(rules, events, kinds)
            if collect and not m & 63 and gc.get_count()[0] > young:
                gc.collect(0)
            turns_total += turns
            turns_max = max(turns_max, turns)
            if out.status == "win":
                for w in out.winners:
                    outcomes[w] = outcomes.get(w, 0) + 1
                side = side_of[out.winners[0]]  # a side wins together (one side per match)
                sides[side] = sides.get(side, 0) + 1
            else:
                outcomes[out.status] = outcomes.get(out.status, 0) + 1
            reasons[out.reason] = reasons.get(out.reason, 0) + 1
        _count(rules, events, kinds)
    finally:
        if collect:
            gc.enable()
    result.seconds = clock() - started
    result.turns_total = turns_total
    result.turns_max = turns_max
    for key in (*order_pids, "draw", "mutual"):
        outcomes.setdefault(key, 0)
    for e in entrants:
        sides.setdefault(e.side, 0)
    if defaulted:
        kinds["order_defaulted"] += defaulted
    for key in rules.count_always:
        kinds.setdefault(key, 0)
    result.events.update(kinds)
    return result


def _count(rules: Ruleset[Any, Any, Any], events: list[Event], kinds: Counter[str]) -> None:
    """Add ``events`` to ``kinds`` (by kind, plus ``kind:value`` per ``count_detail``) and
    empty the list."""
    detail = rules.count_detail
    before = [kinds[kind] for kind in detail] if detail else []
    kinds.update(map(_kind, events))
    for (kind, key), seen in zip(detail.items(), before, strict=True):
        if kinds[kind] == seen:  # none of this kind in the batch: no need to scan it
            continue
        # e[0] is e.kind and e[2] e.data: a named tuple's field by name is a generic
        # attribute lookup (not specialised by Python 3.11), by index a plain subscript.
        for value in [e[2].get(key) for e in events if e[0] == kind]:
            kinds[f"{kind}:{value}"] += 1
    events.clear()


_kind = itemgetter(0)  # Event.kind, without the attribute lookup of attrgetter("kind")
_new = tuple.__new__
_SEALED_MAX = 4096


def run(raw_setup: Any, n: int, seed: int | str = 0) -> Result:
    """Parse, check and simulate in one call (raises :class:`SetupError`)."""
    return simulate(prepare(parse_setup(raw_setup)), n, seed)
