"""How ``infra/docpack_v2.txt`` is made: ``python -m tests.support.docpack_dictionary >
infra/docpack_v2.txt`` prints it, the same bytes on every run (docs/storage.md, "Item sizes").

It is what the DynamoDB adapter packs, taken from a scripted play (:func:`played`, also the
item-size tests' source): a pistol duel, a plans duel and a dragons battle, preset characters,
the default configuration, every turn sealed by every player with the order the bot itself
proposes (as the load run does), locked by its lock message and resolved with a beacon round.
Of the second turn (the shapes after the first), as packed while every order is sealed: the
turn record in its stored form (``codec.record_to_stored``, its ``state_before`` left out: the
match document has it, and of its orders one), each sealed order as the match item's ``ord``
keeps it, and the match document. Random hex (seeds, salts, signatures) matches nothing in
another document, so it is emptied, and the local test beacon's network is named as
production's (``quicknet``).

zlib finds a match anywhere in its 32 KB window but codes a near one in fewer bits, so the
documents go in from the least written to the most (records, then match documents, then
sealed orders: those are in every write of the match item), each top-level value (and each
element or member of one over 2,000 bytes) only the first time from the end it appears. The
result is ~16 KB: a 10 KB document (a 4-rider battle's record) still reaches all of it.
Measured on the load run's records and match items (docs/storage.md): 3- and 4-rider
documents add nothing a 2-rider battle's do not (the same keys and events, repeated).

``infra/docpack_v1.txt`` (frozen, pinned in ``infra.docpack``) was made by an earlier version
of this script from match documents at turn 1 and a sealed default order of each ruleset; its
ids, seeds and salts were random, so it cannot be made again. v2 is frozen the same way (its
SHA-256 pinned): a change here makes a v3 beside it, never new bytes for v2."""

from __future__ import annotations

import itertools
import json
import math
import random
import re
import string
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

from engine import codec
from engine import usecases as uc
from engine.errors import Rejection
from engine.match import Match, Phase, SealedOrder, TurnRecord, acting
from engine.ports import MatchRepository
from engine.rulesets import get as get_ruleset
from infra.beacon import LocalBeacon
from infra.dynamodb import _match_stored, _order_stored
from infra.memory import MemoryRepository
from tests.support.clock import FakeClock

NETWORK = "quicknet"  # production's beacon network (engine.beacon.QUICKNET)
_HEX = re.compile(r"[0-9a-f]{16,}")
_GM = 100


class SeededEntropy:
    """Random-looking secrets (as incompressible as the system's), the same on every run."""

    def __init__(self, seed: str) -> None:
        self._random = random.Random(seed)

    def seed(self) -> bytes:
        return self._random.randbytes(32)

    def salt(self) -> str:
        return self._random.randbytes(8).hex()

    def new_id(self) -> str:
        alphabet = string.ascii_letters + string.digits
        return "".join(self._random.choice(alphabet) for _ in range(8))


@dataclass(frozen=True)
class Turn:
    """One played turn: the match as stored while every order is sealed (locked, its lock
    message posted), those orders, and the turn's record."""

    match: Match
    orders: tuple[SealedOrder, ...]
    record: TurnRecord


def played(
    ruleset: str,
    players: int = 2,
    turns: int = 3,
    *,
    repo: MatchRepository | None = None,
    at_lock: Callable[[str], object] = lambda match_id: None,
) -> list[Turn]:
    """A match of ``ruleset`` with ``players`` players (dragons: on two sides), played for
    ``turns`` turns (fewer if it ends) the way the bot plays it: each commitment posted,
    the order of every player still acting sealed, the turn locked by a group message dated
    to the whole second, resolved with the (local test) beacon's round; times with a
    server's microseconds. In ``repo`` (default: in memory); ``at_lock(match_id)`` is called at each
    lock, every order sealed."""
    from handlers.telegram.hints import order_words
    from handlers.telegram.i18n import Tr
    from handlers.telegram.ui import get_ui

    clock = FakeClock(1_796_200_000.0)
    entropy = SeededEntropy(f"{ruleset}/{players}")
    deps = uc.Deps(
        repo or MemoryRepository(), clock, entropy, beacon=LocalBeacon(), lock_by_message=True
    )
    messages = itertools.count(1001)
    mid = uc.create_match(deps, chat_id=-1_009_000_000, gm_user_id=_GM, ruleset_id=ruleset).id
    rules = get_ruleset(ruleset)
    preset = next(iter(rules.presets(rules.config()).values()))
    for k in range(players):
        uc.join(deps, mid, _GM + k, f"P{k}")
        pid = deps.repo.load(mid).match.seats[k].pid
        if ruleset == "dragons":
            uc.set_side(deps, mid, _GM + k, pid, "AB"[k % 2])
        uc.set_character(deps, mid, _GM + k, pid, dict(preset))
    uc.start(deps, mid, _GM)
    out: list[Turn] = []
    while len(out) < turns and (match := deps.repo.load(mid).match).phase is Phase.RUNNING:
        clock.advance(1 + entropy.seed()[0] / 256)
        uc.commitment_posted(deps, mid, match.turn, str(match.commitment), next(messages))
        _deliver(deps.repo, mid, clock())
        for seat in (s for s in match.seats if s.pid in acting(match)):
            clock.advance(0.5 + entropy.seed()[0] / 100)
            now = deps.repo.load(mid).match
            raw = get_ui(ruleset).parse_typed_in(now, [order_words(Tr("en"), now, seat.pid)])
            try:
                uc.seal_order(deps, mid, seat.user_id or _GM, seat.pid, raw)
            except Rejection as exc:  # the last seal locks the turn: its round is not out
                assert exc.code == "beacon_pending", exc.code
        uc.lock_posted(deps, mid, match.turn, next(messages), float(math.ceil(clock())))
        loaded = deps.repo.load(mid)
        at_lock(mid)
        clock.advance(3 + entropy.seed()[0] / 256)
        uc.resolve_locked(deps, mid, match.turn)
        record = deps.repo.history(mid, since=match.turn)[0]
        out.append(Turn(loaded.match, tuple(loaded.orders.values()), record))
    return out


def _deliver(repo: MatchRepository, match_id: str, now: float) -> None:
    """Every message the match owes sent (the outbox's end of each: the entry leaves the
    match item), as the bot has done by the time the next turn's orders come in."""
    for owed in repo.owed(match_id):
        claimed = repo.claim_owed(match_id, owed.key, now, 60.0)
        assert claimed is not None
        assert repo.update_owed(replace(claimed, done=True))


def _scrubbed(value: Any) -> Any:
    """``value`` without random hex, the beacon network named as production's."""
    if isinstance(value, dict):
        out = {k: _scrubbed(v) for k, v in value.items()}
        if "network" in out and "signature" in out:
            out["network"] = NETWORK
        return out
    if isinstance(value, list):
        return [_scrubbed(v) for v in value]
    if isinstance(value, str):
        return _HEX.sub("", value)
    return value


def _dumps(doc: Any) -> str:
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":"))


def documents(turn: int = 2) -> list[str]:
    """What the dictionary is made of, least written first: the stored documents of each
    ruleset's two-player ``turn`` (or the last one played), scrubbed (:func:`_scrubbed`)."""
    records, orders, matches = [], [], []
    for ruleset in ("dragons", "plans", "pistol"):
        played_turn = played(ruleset, 2, turn)[-1]  # (its last if the match ended before)
        match = played_turn.match
        stored = codec.record_to_stored(played_turn.record)[0]
        del stored["state_before"]
        stored["orders"] = stored["orders"][:1]
        records.append(stored)
        orders.append(_order_stored(match.id, played_turn.orders[0]))
        matches.append(_match_stored(codec.match_to_doc(match) | {"version": match.version}))
    return [_dumps(_scrubbed(doc)) for doc in (*records, *matches, *orders)]


BIG = 2000  # a value longer than this goes in by its elements or members


def _units(value: Any, head: str = "") -> Iterator[str]:
    """``value``'s JSON text in pieces that concatenate to it: each member of an object (or
    element of a list) with its value, a value over :data:`BIG` bytes in pieces itself."""
    if isinstance(value, dict):
        opening = "{"
        for key, sub in value.items():
            yield from _member(f"{head}{opening}{_dumps(key)}:", sub)
            head, opening = "", ","
        yield head + "{}" if opening == "{" else "}"
    elif isinstance(value, list):
        opening = "["
        for sub in value:
            yield from _member(f"{head}{opening}", sub)
            head, opening = "", ","
        yield head + "[]" if opening == "[" else "]"
    else:
        yield head + _dumps(value)


def _member(head: str, value: Any) -> Iterator[str]:
    text = _dumps(value)
    if len(text.encode()) > BIG and isinstance(value, (dict, list)):
        yield from _units(value, head)
    else:
        yield head + text


def dictionary_text(docs: list[str]) -> str:
    """``docs`` (least written first) one after the other, each piece (:func:`_units`) that
    a later document has too left to the later one, so the most written are nearest."""
    seen: set[str] = set()
    kept: list[str] = []
    for doc in reversed(docs):
        for piece in reversed(list(_units(json.loads(doc)))):
            if len(piece) > 8 and piece in seen:
                continue
            seen.add(piece)
            kept.append(piece)
    return "".join(reversed(kept))


if __name__ == "__main__":
    print(dictionary_text(documents()), end="")
