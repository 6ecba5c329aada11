"""A simulation split into chunks (every core, a mirror of every seed) and its honest report.

Pure: the caller brings the way chunks are run (one after another here, or a process pool in
the CLI); chunk seeds come from the run's seed and the chunk's index only, so the figures do
not depend on how many jobs play them, and the merged result is the sum of the chunks.

``--mirror`` (default for a two-sided setup): every seed is played twice, the second time with
the two sides' characters exchanged between the seats, so each character sits in each seat and
plays each seat's orders (fixed or random) once per seed. Format: ``docs/simulator.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from math import sqrt
from typing import Any

from engine.errors import Rejection
from engine.simulate import Participant, Prepared, Result, Setup, SetupError, prepare, simulate

CHUNK = 100
"""Seeds per chunk: small enough to spread over cores and move a progress bar, large enough
that a chunk's fixed cost (a setup, a fresh log) is noise."""

Z95 = 1.959964
"""The normal quantile of a two-sided 95% interval."""


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a share ``k / n`` (95% by default); (0, 1) for n = 0.
    Unlike ``p +- z*se`` it stays inside 0..1 and is honest near 0% and 100%."""
    if n <= 0:
        return 0.0, 1.0
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


# --------------------------------------------------------------------------- sides, mirror


def sides_of(setup: Setup) -> dict[str, list[Participant]]:
    """Participants by side (a participant without a side is a side of its own), in seat
    order."""
    out: dict[str, list[Participant]] = {}
    for p in setup.participants:
        out.setdefault(p.side or p.pid, []).append(p)
    return out


def mirror_setup(setup: Setup) -> Setup | None:
    """The setup with the two sides' characters exchanged between the seats (member k of one
    side with member k of the other): seats keep their orders (fixed or random) and GM-run
    flags, characters keep their ids, names and sides. None when the setup is not two sides
    of equal size."""
    groups = list(sides_of(setup).values())
    if len(groups) != 2 or len(groups[0]) != len(groups[1]):
        return None
    swap: dict[str, Participant] = {}
    for x, y in zip(*groups, strict=True):
        swap[x.pid], swap[y.pid] = y, x
    seats = []
    for seat in setup.participants:
        who = swap[seat.pid]
        seats.append(
            replace(seat, pid=who.pid, character=who.character, side=who.side, name=who.name)
        )
    return replace(setup, participants=tuple(seats))


@dataclass(frozen=True, slots=True)
class Plan:
    """What a batch plays: a checked setup, its mirror (None: no mirror) and the chunks, as
    (index, seeds) pairs."""

    prepared: Prepared
    mirrored: Prepared | None
    seed: int | str
    chunks: tuple[tuple[int, int], ...]

    @property
    def n(self) -> int:
        """Matches played: every seed once, or twice with the mirror."""
        seeds = sum(count for _, count in self.chunks)
        return seeds * 2 if self.mirrored is not None else seeds


def plan(prepared: Prepared, n: int, seed: int | str, mirror: bool | None = None) -> Plan:
    """Split ``n`` matches into chunks. ``mirror`` None: on for a two-sided setup. With the
    mirror, ``n`` is rounded up to an even number (each seed is played twice). Raises
    :class:`SetupError` when the mirror was asked for and cannot be played."""
    if n < 1:
        raise SetupError(
            "n",
            Rejection("invalid_field", what="simulation", field="n", expected="an integer >= 1"),
        )
    mirrored = None
    if mirror is not False:
        flipped = mirror_setup(prepared.setup)
        if flipped is None and mirror:
            raise SetupError(
                "mirror",
                Rejection(
                    "invalid_field",
                    what="simulation",
                    field="mirror",
                    expected="two sides of equal size (or --no-mirror)",
                ),
            )
        if flipped is not None:
            try:
                mirrored = prepare(flipped)
            except SetupError as exc:  # e.g. a fixed order the other character cannot give
                if mirror:
                    raise SetupError(f"mirror: {exc.where}", exc.reason) from None
                raise SetupError(
                    f"{exc.where} (in the mirror; or --no-mirror)", exc.reason
                ) from None
    seeds = (n + 1) // 2 if mirrored is not None else n
    chunks = tuple((i, min(CHUNK, seeds - start)) for i, start in enumerate(range(0, seeds, CHUNK)))
    return Plan(prepared, mirrored, seed, chunks)


def chunk_seed(seed: int | str, index: int) -> str:
    """The seed of chunk ``index`` of a run seeded ``seed`` (dice and orders streams are
    derived from it by :func:`~engine.simulate.simulate`)."""
    return f"{seed}/{index}"


def play_chunk(batch: Plan, index: int, seeds: int) -> Result:
    """One chunk: its seeds, then (mirror) the same seeds with the characters exchanged."""
    seed = chunk_seed(batch.seed, index)
    result = simulate(batch.prepared, seeds, seed)
    if batch.mirrored is not None:
        result = merge([result, simulate(batch.mirrored, seeds, seed)], batch.seed)
    return result


def merge(results: Iterable[Result], seed: int | str) -> Result:
    """The sum of chunk results (``turns_max`` the largest; ``seconds`` the sum of theirs)."""
    out: Result | None = None
    for r in results:
        if out is None:
            out = Result(r.ruleset, 0, seed)
        out.n += r.n
        for mine, theirs in (
            (out.outcomes, r.outcomes),
            (out.reasons, r.reasons),
            (out.events, r.events),
            (out.sides, r.sides),
        ):
            for key, count in theirs.items():
                mine[key] = mine.get(key, 0) + count
        out.turns_total += r.turns_total
        out.turns_max = max(out.turns_max, r.turns_max)
        out.seconds += r.seconds
    if out is None:
        raise ValueError("no chunks to merge")
    return out


def run(
    batch: Plan,
    *,
    map_chunks: Callable[[Plan, list[tuple[int, int]]], Iterable[Result]] | None = None,
    progress: Callable[[int], None] | None = None,
) -> Result:
    """Play every chunk (in order here; ``map_chunks`` may play them elsewhere, yielding the
    results as they come) and merge them; ``progress`` hears the matches of each chunk."""
    chunks = list(batch.chunks)
    results = (
        map_chunks(batch, chunks)
        if map_chunks is not None
        else (play_chunk(batch, i, count) for i, count in chunks)
    )
    done = []
    for result in results:
        done.append(result)
        if progress is not None:
            progress(result.n)
    return merge(done, batch.seed)


# --------------------------------------------------------------------------- the report


def label(p: Participant) -> str:
    """A participant as the report names it: its name and what it fights with (a pistol
    duelist's weapon, a sheet's name), e.g. ``a (rifle)``."""
    c = p.character
    what = c.get("weapon") if isinstance(c.get("weapon"), str) else c.get("name")
    return f"{p.name} ({what})" if what and str(what) != p.name else p.name


def orders_mode(setup: Setup) -> str:
    """``random`` (every seat plays random orders), ``fixed`` (every seat a fixed order) or
    ``mixed``."""
    fixed = [p.orders is not None for p in setup.participants]
    return "fixed" if all(fixed) else "random" if not any(fixed) else "mixed"


def share(k: int, n: int) -> dict[str, Any]:
    lo, hi = wilson(k, n)
    return {
        "count": k,
        "share": round(k / n, 4) if n else 0.0,
        "interval": [round(lo, 4), round(hi, 4)],
    }


def report(batch: Plan, result: Result) -> dict[str, Any]:
    """The fields a batch adds to :meth:`Result.to_json`: sides with their members, win
    shares with 95% intervals, draw and mutual shares, the orders played, the mirror."""
    setup = batch.prepared.setup
    n = result.n
    sides = []
    for side, members in sides_of(setup).items():
        sides.append(
            {
                "side": side,
                "label": label(members[0])
                if len(members) == 1 and side == members[0].pid
                else f"{side}: " + ", ".join(label(m) for m in members),
                "members": [m.pid for m in members],
                "orders": ["random" if m.orders is None else "fixed" for m in members],
                **share(result.sides.get(side, 0), n),
            }
        )
    return {
        "sides": sides,
        "draw": share(result.outcomes.get("draw", 0), n),
        "mutual": share(result.outcomes.get("mutual", 0), n),
        "orders_mode": orders_mode(setup),
        "mirror": batch.mirrored is not None,
        "chunks": len(batch.chunks),
    }


def commonest(counts: Mapping[str, int]) -> tuple[str, int]:
    """The most frequent key (ties: the first in name order) and its count."""
    key = min(counts, key=lambda k: (-counts[k], k))
    return key, counts[key]
