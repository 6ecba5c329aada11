"""Exact success-pool probabilities (fractions, not sampling).

A success pool rolls ``n`` dice with ``sides`` faces; a die succeeds on ``target`` or more, so
the raw successes follow Binomial(n, p) with ``p = (sides - target + 1) / sides``. Rulesets
then transform the raw count with a short pipeline of steps (``("add", k)`` adds ``k`` automatic
successes, ``("mul", k)`` multiplies the count); the distribution of the final count is exact.
Used by the order builder's confirmation screen ("60% to score at least 2 successes").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from fractions import Fraction
from math import comb
from typing import Literal

Step = tuple[Literal["add", "mul"], int]


def success_chance(target: int, sides: int = 10) -> Fraction:
    """The chance that one die shows ``target`` or more (0 when impossible, 1 when certain)."""
    good = sides - max(target, 1) + 1
    return Fraction(min(max(good, 0), sides), sides)


def binomial(n: int, p: Fraction) -> list[Fraction]:
    """``P(X = k)`` for ``k = 0..n``, X ~ Binomial(n, p), exactly."""
    n = max(n, 0)
    q = 1 - p
    return [comb(n, k) * p**k * q ** (n - k) for k in range(n + 1)]


def apply_steps(count: int, steps: Iterable[Step]) -> int:
    """The final success count after the pipeline of steps, in order."""
    for op, value in steps:
        count = count + value if op == "add" else count * value
    return count


def distribution(
    pool: int, target: int = 8, sides: int = 10, steps: Iterable[Step] = ()
) -> dict[int, Fraction]:
    """Exact distribution of the final successes: ``{count: probability}`` (sums to 1)."""
    pipeline = tuple(steps)
    out: dict[int, Fraction] = {}
    for raw, prob in enumerate(binomial(pool, success_chance(target, sides))):
        if prob == 0:
            continue
        final = apply_steps(raw, pipeline)
        out[final] = out.get(final, Fraction(0)) + prob
    return out


def at_least(dist: Mapping[int, Fraction]) -> tuple[Fraction, ...]:
    """``P(final >= k)`` for ``k = 1..max``: element ``k - 1`` is the chance of at least ``k``."""
    top = max((k for k, p in dist.items() if p > 0), default=0)
    tail = Fraction(0)
    out: list[Fraction] = []
    for k in range(top, 0, -1):
        tail += dist.get(k, Fraction(0))
        out.append(tail)
    return tuple(reversed(out))
