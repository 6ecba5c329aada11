"""Dice: an injected source of faces, and a log that records every roll in order.

A :class:`DiceSource` only knows how to produce one uniformly random face of an n-sided die.
Rulesets never call a source directly: they roll through a :class:`TurnLog`, which records
every roll (die size, every face including explosions, purpose, for whom) as an event, so any
turn can be audited and replayed exactly.

Sources:
- :class:`RandomDice` — a seeded ``random.Random`` (simulator, tests); never the global RNG.
- :class:`CommittedDice` — faces derived from a secret per-turn seed with HMAC-SHA256 and
  rejection sampling (live play; see ``docs/fairness.md``).
- :class:`ScriptedDice` — faces from a list (rule tests).
"""

from __future__ import annotations

import hashlib
import hmac
import random
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from math import floor
from typing import Any, Protocol

from engine.events import Event


class DiceSource(Protocol):
    """Produces faces of fair dice."""

    def face(self, sides: int) -> int:
        """Return one face in ``1..sides``, each equally likely."""
        ...


class RandomDice:
    """A seeded pseudo-random source (simulations and property tests)."""

    __slots__ = ("_rand",)

    def __init__(self, seed: int | str | None = None) -> None:
        self._rand = random.Random(seed)

    def face(self, sides: int) -> int:
        return floor(self._rand.random() * sides) + 1


class ScriptedDice:
    """Faces taken in order from a script; running out is a test bug, so it raises."""

    def __init__(self, faces: Iterable[int]) -> None:
        self._faces = list(faces)
        self._next = 0

    def face(self, sides: int) -> int:
        if self._next >= len(self._faces):
            raise ScriptExhaustedError(f"dice script exhausted after {self._next} faces")
        value = self._faces[self._next]
        self._next += 1
        if not 1 <= value <= sides:
            raise ScriptExhaustedError(f"scripted face {value} is not a face of a d{sides}")
        return value

    @property
    def remaining(self) -> int:
        """Faces not used yet (a rule test usually asserts this is 0)."""
        return len(self._faces) - self._next


class ScriptExhaustedError(RuntimeError):
    """A scripted dice source ran out of faces or got an impossible face."""


class CommittedDice:
    """Faces derived from a secret seed: HMAC-SHA256(seed, "match|turn|counter").

    Each 32-byte digest is read as a big-endian integer ``v``; with ``limit`` the largest
    multiple of ``sides`` not above 2**256, a ``v >= limit`` is rejected and the counter moves
    on, so every face is exactly equally likely. See ``docs/fairness.md``.
    """

    def __init__(self, seed: bytes, match_id: str, turn: int) -> None:
        self._seed = seed
        self._prefix = f"{match_id}|{turn}|".encode()
        self.counter = 0

    def face(self, sides: int) -> int:
        return derive_face(self, sides)

    def _digest(self) -> int:
        msg = self._prefix + str(self.counter).encode()
        self.counter += 1
        return int.from_bytes(hmac.new(self._seed, msg, hashlib.sha256).digest(), "big")


_SPACE = 1 << 256


def derive_face(source: CommittedDice, sides: int) -> int:
    """Rejection-sample one face of a d``sides`` from the source's digest stream."""
    limit = _SPACE - (_SPACE % sides)
    while True:
        value = source._digest()
        if value < limit:
            return value % sides + 1


def seed_commitment(seed: bytes) -> str:
    """The public commitment to a turn seed: hex SHA-256 of the seed bytes."""
    return hashlib.sha256(seed).hexdigest()


_new_event = tuple.__new__

EXPLOSION_CAP = 20
"""Safety cap on how many times one die may ace in a row (Savage Worlds aces)."""

MEMO_MAX = 1 << 16
"""How many shared events a :class:`TurnLog` keeps before starting over (memory bound)."""


@dataclass(frozen=True, slots=True)
class Roll:
    """One recorded roll: a die (or pool of dice) with every face."""

    sides: int
    faces: tuple[int, ...]
    purpose: str
    actor: str | None
    mode: str = "plain"  # "plain" | "ace" (exploding) | "pool"

    @property
    def total(self) -> int:
        return sum(self.faces)

    def successes(self, target: int) -> int:
        """Faces at or above ``target`` (d10 pools)."""
        return sum(1 for f in self.faces if f >= target)


class TurnLog:
    """Rolls dice from a source and keeps the ordered events of one resolution.

    ``counting`` is False here: every event is recorded in full (live play, ``turn``, the
    dossier). :class:`CountingLog` sets it for the simulator, which only counts events."""

    __slots__ = ("_face", "_random", "events", "memo", "source")
    counting = False

    def __init__(self, source: DiceSource) -> None:
        self.source = source
        self._face = source.face  # bound once: ``die`` is the hottest call of a simulation
        # A plain RandomDice is inlined in ``die`` (same formula, same faces): one Python call
        # less per roll in the simulator.
        self._random = source._rand.random if type(source) is RandomDice else None
        self.events: list[Event] = []
        # Events are immutable values, so equal events may be one object: ``memo`` maps a key
        # that determines an event (all of its fields) to the event built the first time, so
        # a log that lives long (the simulator's: one per run) allocates and frees far fewer
        # objects per turn. See :meth:`shared`. Bounded: cleared when it grows past MEMO_MAX.
        self.memo: dict[Hashable, Event] = {}

    def emit(self, kind: str, actor: str | None = None, **data: Any) -> Event:
        """Record a (non-roll) event and return it."""
        event = Event(kind, actor, data)
        self.events.append(event)
        return event

    def die(self, sides: int, purpose: str, actor: str | None = None) -> int:
        """Roll one plain die and return its face."""
        rand = self._random
        face = floor(rand() * sides) + 1 if rand is not None else self._face(sides)
        key = (sides, face, purpose, actor)
        try:  # a subscript, not memo.get(): no method call, and the key is nearly always there
            event = self.memo[key]
        except KeyError:
            data = {"sides": sides, "faces": [face], "purpose": purpose, "mode": "plain"}
            # Event(...) minus the named tuple's Python-level __new__: twice as fast, same value.
            event = self.shared(key, _new_event(Event, ("roll", actor, data)))
        self.events.append(event)
        return face

    def shared(self, key: Hashable, event: Event) -> Event:
        """Remember ``event`` as the value for ``key`` and return it; a ruleset looks ``memo``
        up first and builds the event only on a miss. A key must hold every value the event is
        computed from, starting with the event's kind (the roll keys of :meth:`die` start with
        the die size, an int, so they never meet a ruleset's). Worth it only for events whose
        keys recur often (initiative, single dice); a key that rarely recurs costs more than it
        saves."""
        memo = self.memo
        if len(memo) >= MEMO_MAX:  # a bound, not an eviction policy: a run's keys recur
            memo.clear()
        memo[key] = event
        return event

    def ace(self, sides: int, purpose: str, actor: str | None = None) -> Roll:
        """Roll one exploding die: a maximum face is rolled again and added (capped)."""
        return Roll(sides, tuple(self.ace_faces(sides, purpose, actor)), purpose, actor, "ace")

    def ace_faces(self, sides: int, purpose: str, actor: str | None = None) -> list[int]:
        """:meth:`ace` recording the same event but returning only the faces (no
        :class:`Roll` record): the hot path of Savage Worlds trait and damage rolls. The list
        may be the recorded event's own: read it, never change it."""
        rand = self._random
        face = self._face
        first = floor(rand() * sides) + 1 if rand is not None else face(sides)
        if first != sides:  # no ace, the usual case: a shared event, as in :meth:`die`
            key = (sides, first, purpose, actor, "ace")
            try:
                event = self.memo[key]
            except KeyError:
                data = {"sides": sides, "faces": [first], "purpose": purpose, "mode": "ace"}
                event = self.shared(key, _new_event(Event, ("roll", actor, data)))
            self.events.append(event)
            shared_faces: list[int] = event[2]["faces"]  # the event's own list: read-only
            return shared_faces
        faces = [first]
        while faces[-1] == sides and len(faces) <= EXPLOSION_CAP:
            faces.append(floor(rand() * sides) + 1 if rand is not None else face(sides))
        data = {"sides": sides, "faces": faces, "purpose": purpose, "mode": "ace"}
        self.events.append(_new_event(Event, ("roll", actor, data)))
        return faces

    def pool(self, count: int, sides: int, purpose: str, actor: str | None = None) -> Roll:
        """Roll ``count`` dice at once (success pools); ``count`` may be 0."""
        faces = tuple(self.pool_faces(count, sides, purpose, actor))
        return Roll(sides, faces, purpose, actor, "pool")

    def pool_faces(
        self, count: int, sides: int, purpose: str, actor: str | None = None
    ) -> list[int]:
        """:meth:`pool` recording the same event but returning only the faces (no
        :class:`Roll` record): the hot path of d10 pools. The list is the recorded event's
        own: read it, never change it."""
        faces = self._faces(count, sides)
        data = {"sides": sides, "faces": faces, "purpose": purpose, "mode": "pool"}
        self.events.append(_new_event(Event, ("roll", actor, data)))
        return faces

    def _faces(self, count: int, sides: int) -> list[int]:
        """``count`` faces of a d``sides``, in order (the pools of both logs)."""
        rand = self._random
        if rand is not None:
            return [floor(rand() * sides) + 1 for _ in range(count)]
        face = self._face
        return [face(sides) for _ in range(count)]

    @property
    def rolls(self) -> list[Event]:
        """Only the roll events, in order."""
        return [e for e in self.events if e.kind == "roll"]


ROLL_MARK = Event("roll")
"""What a :class:`CountingLog` records for a roll: the kind only."""


class CountingLog(TurnLog):
    """A log for the simulator: the same dice, drawn in the same order with the same formula,
    but no full event records. A roll is recorded as :data:`ROLL_MARK`; a ruleset that reads
    ``log.counting`` records a *marker* for each of its events instead of the full event: an
    event of the same kind whose data holds only the fields the simulator counts by
    (``Ruleset.count_detail``). Counts by kind and detail are therefore exactly those of a
    recording run (tested over every example setup: ``tests/test_sim_counting.py``)."""

    __slots__ = ()
    counting = True

    def die(self, sides: int, purpose: str, actor: str | None = None) -> int:
        rand = self._random
        face = floor(rand() * sides) + 1 if rand is not None else self._face(sides)
        self.events.append(ROLL_MARK)
        return face

    def ace_faces(self, sides: int, purpose: str, actor: str | None = None) -> list[int]:
        rand = self._random
        face = self._face
        faces = [floor(rand() * sides) + 1 if rand is not None else face(sides)]
        while faces[-1] == sides and len(faces) <= EXPLOSION_CAP:
            faces.append(floor(rand() * sides) + 1 if rand is not None else face(sides))
        self.events.append(ROLL_MARK)
        return faces

    def pool_faces(
        self, count: int, sides: int, purpose: str, actor: str | None = None
    ) -> list[int]:
        faces = self._faces(count, sides)
        self.events.append(ROLL_MARK)
        return faces


def faces_of(events: Sequence[Event]) -> list[int]:
    """Every die face in a list of events, in the order rolled (replay/audit helper)."""
    return [f for e in events if e.kind == "roll" for f in e.data["faces"]]
