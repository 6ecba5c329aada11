"""The ruleset interface every ruleset implements, and the small types it speaks in.

A ruleset is pure and deterministic given its dice: it never sees Telegram, storage or the
clock. One module (or package) per ruleset, registered by id in :mod:`engine.rulesets`.

Shape, after open_spiel's simultaneous-move games and pgx's immutable states:
``setup`` -> state; each turn every participant in ``acting(state)`` seals an order
(``parse_order`` + ``validate``); ``resolve`` applies all orders at once and returns the new
state, writing events (every roll included) to the :class:`~engine.dice.TurnLog`;
``outcome`` says whether the match is over.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Literal, NamedTuple, TypeVar

from engine.dice import TurnLog
from engine.errors import Rejection, parse_model

if TYPE_CHECKING:
    from pydantic import BaseModel

C = TypeVar("C", bound="BaseModel")
S = TypeVar("S")
O = TypeVar("O")  # noqa: E741 - the order type, as in Ruleset[C, S, O]


@dataclass(frozen=True, slots=True)
class Entrant:
    """A participant as the match lifecycle hands it to ``setup``."""

    pid: str
    side: str
    character: Mapping[str, Any]
    npc: bool = False
    name: str = ""


class Sealed(NamedTuple, Generic[O]):
    """An order as resolution sees it. ``seq`` orders sealing within the turn (lower sealed
    earlier; D4, D27); ``default`` marks an order the bot filled in for a missing one.
    Immutable; a named tuple because the simulator builds one per participant per turn."""

    order: O
    seq: int = 0
    default: bool = False


# The ``seq`` of an order nobody sealed (a deadline's default): after every sealed one (D8).
UNSEALED_SEQ = 1 << 30


@dataclass(frozen=True, slots=True)
class Outcome:
    """Whether a match is over. ``winners`` lists participant ids."""

    status: Literal["running", "win", "draw", "mutual"]
    winners: tuple[str, ...] = ()
    reason: str = ""

    @property
    def finished(self) -> bool:
        return self.status != "running"


RUNNING = Outcome("running")


class Ruleset(ABC, Generic[C, S, O]):
    """Base class of a ruleset. Subclasses set the class attributes and the abstract methods."""

    id: ClassVar[str]
    version: ClassVar[str]
    config_model: ClassVar[type[BaseModel]]
    character_model: ClassVar[type[BaseModel]]
    min_participants: ClassVar[int] = 2
    max_participants: ClassVar[int] = 2
    # The simulator counts every event under its kind; for a kind listed here it also counts
    # it under ``kind:value`` of the named data field (e.g. {"hit": "part"} -> ``hit:head``).
    count_detail: ClassVar[Mapping[str, str]] = {}
    # Event keys the simulator reports even when they never happened (as 0).
    count_always: ClassVar[tuple[str, ...]] = ()

    # --- configuration and characters (data, validated at the edge of the core) ---

    def config(self, raw: Mapping[str, Any] | None = None) -> C:
        """The match configuration: the DEFAULTs of the rules doc, overridden by ``raw``."""
        return parse_model(self.config_model, dict(raw or {}), what="config")  # type: ignore[return-value]

    def check_character(self, config: C, raw: Mapping[str, Any]) -> BaseModel:
        """Validate a character sheet; raises :class:`Rejection` with a specific reason."""
        return parse_model(self.character_model, raw, what="character")

    def presets(self, config: C) -> Mapping[str, Mapping[str, Any]]:
        """Ready-made characters by id, so a player can start with one tap."""
        return {}

    # --- the turn ---

    @abstractmethod
    def setup(self, config: C, entrants: Sequence[Entrant], log: TurnLog) -> S:
        """The initial state (rolls made here, e.g. initiative, go to ``log``)."""

    @abstractmethod
    def acting(self, state: S) -> frozenset[str]:
        """Participants who must seal an order this turn (NPCs included: the GM seals)."""

    @abstractmethod
    def parse_order(self, state: S, pid: str, raw: Mapping[str, Any]) -> O:
        """Turn a JSON-like order into the ruleset's order type; raises :class:`Rejection`."""

    @abstractmethod
    def validate(self, state: S, pid: str, order: O) -> Rejection | None:
        """Why this order is illegal for ``pid`` now, or None when it is legal."""

    @abstractmethod
    def dump_order(self, order: O) -> dict[str, Any]:
        """The JSON form of an order (the inverse of ``parse_order``)."""

    @abstractmethod
    def default_order(self, state: S, pid: str) -> O:
        """The order used for a participant who sent none by the deadline."""

    @abstractmethod
    def random_order(self, state: S, pid: str, rng: random.Random) -> O:
        """A legal order drawn uniformly (or near it) — the simulator's ``"random"``."""

    @abstractmethod
    def resolve(self, state: S, orders: Mapping[str, Sealed[O]], log: TurnLog) -> S:
        """Apply every order of the turn at once; return the new state."""

    @abstractmethod
    def outcome(self, state: S) -> Outcome:
        """Winner, draw, mutual hit, or still running."""

    # --- views and serialization ---

    @abstractmethod
    def view(self, state: S, pid: str | None = None) -> dict[str, Any]:
        """What ``pid`` (None: everyone) may see of the state. Never holds a sealed order."""

    @abstractmethod
    def dump_state(self, state: S) -> dict[str, Any]:
        """JSON form of a state; ``load_state(dump_state(s)) == s``."""

    @abstractmethod
    def load_state(self, raw: Mapping[str, Any]) -> S:
        """Inverse of :meth:`dump_state`."""

    # --- GM rulings (optional) ---

    def editable(self, state: S, pid: str) -> Mapping[str, Any]:
        """Fields of ``pid``'s state a GM may set by ruling, with their current values."""
        return {}

    def edit(self, state: S, pid: str, field: str, value: Any) -> S:
        """Set one field of ``pid``'s state (a GM ruling the rules don't cover); raises
        :class:`Rejection` for an unknown field or a bad value."""
        raise Rejection("edit_unsupported", field=field)

    def controller(self, state: S, pid: str) -> Literal["gm", "player"]:
        """Who gives ``pid``'s orders now: its player, or the GM (e.g. a dragon that took over
        its pilot, D34). NPC seats are always the GM's; this only moves a player's seat."""
        return "player"

    def gm_reviews_orders(self, config: C) -> bool:
        """Whether the GM reads sealed orders before the reveal and may veto them (plans C22,
        a match option): the turn then waits for the GM's approval instead of resolving when
        the last order is sealed (a deadline still resolves it). Off by default: secrecy."""
        return False

    def turn_of(self, state: S) -> int:
        """The number of the turn about to be played (1-based)."""
        return int(self.dump_state(state).get("turn", 1))

    # --- shared helpers ---

    def check_order(self, state: S, pid: str, raw: Mapping[str, Any]) -> O:
        """Parse and validate; raises :class:`Rejection`."""
        order = self.parse_order(state, pid, raw)
        reason = self.validate(state, pid, order)
        if reason is not None:
            raise reason
        return order

    def default_sealed(self, state: S, pid: str) -> Sealed[O]:
        """What ``pid`` plays having sealed no order: the default order, sealed last and
        marked default (a deadline; the simulator's fixed order the state no longer allows)."""
        return Sealed(self.default_order(state, pid), UNSEALED_SEQ, True)

    def with_defaults(
        self, state: S, orders: Mapping[str, Sealed[O]], acting: Iterable[str] | None = None
    ) -> dict[str, Sealed[O]]:
        """``orders`` completed as at a deadline: :meth:`default_sealed` for each participant
        of ``acting`` (in its order; default: ``self.acting(state)`` sorted) who sealed none,
        after the sealed ones. Then ``resolve`` the result."""
        full = dict(orders)
        for pid in sorted(self.acting(state)) if acting is None else acting:
            if pid not in full:
                full[pid] = self.default_sealed(state, pid)
        return full
