"""The committed dice construction: uniform, and identical in any process (docs/fairness.md)."""

from __future__ import annotations

import hashlib
import hmac
import subprocess
import sys
from pathlib import Path

import pytest

from engine.dice import CommittedDice, seed_commitment

SEED = bytes(range(32))


def independent_faces(seed: bytes, match_id: str, turn: int, sides: int, n: int) -> list[int]:
    """A second implementation written from the documentation alone."""
    faces, counter = [], 0
    limit = 2**256 - (2**256 % sides)
    while len(faces) < n:
        msg = f"{match_id}|{turn}|{counter}".encode()
        counter += 1
        value = int.from_bytes(hmac.new(seed, msg, hashlib.sha256).digest(), "big")
        if value < limit:
            faces.append(value % sides + 1)
    return faces


@pytest.mark.parametrize("sides", [2, 4, 6, 8, 10, 12, 20, 100])
def test_faces_follow_the_documented_construction(sides: int) -> None:
    dice = CommittedDice(SEED, "m1", 3)
    assert [dice.face(sides) for _ in range(200)] == independent_faces(SEED, "m1", 3, sides, 200)


def test_match_and_turn_separate_the_streams() -> None:
    def first_faces(match_id: str, turn: int) -> tuple[int, ...]:
        dice = CommittedDice(SEED, match_id, turn)
        return tuple(dice.face(1000) for _ in range(4))

    streams = {first_faces(m, t) for m in ("m1", "m2") for t in (1, 2)}
    assert len(streams) == 4


@pytest.mark.parametrize("sides", [4, 6, 10, 20])
def test_faces_are_uniform_chi_square(sides: int) -> None:
    dice = CommittedDice(b"chi-square" * 4, "uniform", 1)
    n = 600 * sides
    counts = [0] * sides
    for _ in range(n):
        counts[dice.face(sides) - 1] += 1
    expected = n / sides
    chi2 = sum((c - expected) ** 2 / expected for c in counts)
    # 99.9th percentile of chi-square with (sides - 1) degrees of freedom, sides <= 20: < 45.4
    critical = {3: 16.27, 5: 20.52, 9: 27.88, 19: 43.82}[sides - 1]
    assert chi2 < critical, (counts, chi2)


def test_identical_across_processes() -> None:
    dice = CommittedDice(SEED, "m1", 7)
    here = [dice.face(20) for _ in range(50)]
    code = (
        "from engine.dice import CommittedDice; d = CommittedDice(bytes(range(32)), 'm1', 7); "
        "print(','.join(str(d.face(20)) for _ in range(50)))"
    )
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True
    )
    assert [int(x) for x in out.stdout.strip().split(",")] == here


def test_commitment_is_sha256_of_the_seed() -> None:
    assert seed_commitment(SEED) == hashlib.sha256(SEED).hexdigest()
