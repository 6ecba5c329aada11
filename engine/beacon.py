"""The public randomness beacon: a port, the round schedule, offline verification, the mixing.

Each turn's dice derive from the server's committed seed AND the randomness of a public beacon
round published only after the turn locked (no order can be sealed, changed or withdrawn after
the lock). The server cannot choose the beacon's randomness, and the beacon cannot know the
server's seed: neither alone can choose or foresee a die. See ``docs/fairness.md``.

The beacon is drand's League of Entropy network ``quicknet`` (a round every 3 s, scheme
``bls-unchained-g1-rfc9380``): round ``r`` is a BLS12-381 signature on G1, by the network's
key on G2, of ``sha256(r as 8 big-endian bytes)`` hashed to G1 with the RFC 9380 suite and the
DST below; its randomness is ``sha256(signature)``. Tests and the sandbox use a local network
with its own test key (``infra/beacon.py``) so the same verification runs everywhere.

Pure computation only (no I/O): fetching a round is the :class:`Beacon` port's job.
"""

from __future__ import annotations

import functools
import hashlib
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

DST = b"BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_NUL_"
SCHEME = "bls-unchained-g1-rfc9380"


@dataclass(frozen=True, slots=True)
class Network:
    """A beacon network's public parameters (``public_key``: compressed G2 point, hex)."""

    name: str
    public_key: str
    genesis_time: int
    period: int
    scheme: str = SCHEME

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "public_key": self.public_key,
            "genesis_time": self.genesis_time,
            "period": self.period,
            "scheme": self.scheme,
        }


QUICKNET = Network(
    name="quicknet",
    # https://api.drand.sh/52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971/info
    public_key=(
        "83cf0f2896adee7eb8b5f01fcad3912212c437e0073e911fb90022d3e760183c"
        "8c4b450b6a0a6c3ac6a5776a2d1064510d1fec758c921cc22b0e17e63aaf4bcb"
        "5ed66304de9cf809bd274ca73bab4af5a6e9c76a4bc09e76eae8991ef5ece45a"
    ),
    genesis_time=1692803367,
    period=3,
)
"""drand quicknet, pinned: a dossier naming it is verified against these values, never
against a key the dossier carries."""

PUBLIC_NETWORKS: Mapping[str, Network] = {QUICKNET.name: QUICKNET}

_networks: dict[str, Network] = {QUICKNET.name: QUICKNET}


def register_network(network: Network) -> None:
    """Make a (local, test) network's parameters known to the dossier builder."""
    _networks[network.name] = network


def known_network(name: str) -> Network | None:
    return _networks.get(name)


@dataclass(frozen=True, slots=True)
class BeaconRound:
    """One published round: its number, the network's signature and its randomness (hex)."""

    network: str
    round: int
    signature: str
    randomness: str

    def to_json(self) -> dict[str, Any]:
        return {
            "network": self.network,
            "round": self.round,
            "signature": self.signature,
            "randomness": self.randomness,
        }

    @staticmethod
    def from_json(doc: Mapping[str, Any]) -> BeaconRound:
        return BeaconRound(
            str(doc["network"]), int(doc["round"]), str(doc["signature"]), str(doc["randomness"])
        )


class Beacon(Protocol):
    """Where published rounds come from (production: drand over HTTPS; tests: a local key)."""

    @property
    def network(self) -> Network: ...

    def fetch(self, round_number: int) -> BeaconRound | None:
        """The round, once published (an adapter may wait briefly for it); None when it is not
        out yet or the beacon cannot be reached."""
        ...


def round_time(network: Network, round_number: int) -> float:
    """When ``round_number`` is published (round 1 at genesis)."""
    return float(network.genesis_time + (round_number - 1) * network.period)


def round_after(network: Network, locked_at: float) -> int:
    """The first round published strictly after ``locked_at``: the round a turn locked at that
    moment waits for. Fixed by the lock, which nobody can move once it happened."""
    if locked_at < network.genesis_time:
        return 1
    return math.floor((locked_at - network.genesis_time) / network.period) + 2


def message(round_number: int) -> bytes:
    """What the network signs for an unchained round: sha256 of the round, 8 bytes big-endian."""
    return hashlib.sha256(round_number.to_bytes(8, "big")).digest()


def randomness_of(signature_hex: str) -> str:
    return hashlib.sha256(bytes.fromhex(signature_hex)).hexdigest()


def _arkworks() -> Any:
    """The BLS12-381 library (py-arkworks-bls12381: arkworks' Rust curves, ~1.5 ms a check
    where pure-Python py_ecc took ~200 ms), imported on first use: the cold start never
    loads it."""
    import py_arkworks_bls12381

    return py_arkworks_bls12381


def _decoded(kind: Any, raw: bytes, size: int) -> Any | None:
    """``raw`` as a point of ``kind`` (``G1Point`` or ``G2Point``), or None unless it passes
    every point check of docs/fairness.md, "The beacon", each made here explicitly:

    1. exactly ``size`` bytes in the canonical compressed encoding: the compression flag set,
       the infinity flag clear, ``x`` below the field modulus, the sign flag the one the
       point's ``y`` gives, so compressing the decoded point gives back the same bytes
       (arkworks decodes an "infinity" whose other bits are not zero, e.g. ``0xe0...``, as the
       point at infinity: this comparison refuses it);
    2. on the curve (decompression finds ``y`` with ``y^2 = x^3 + b``, else it raises);
    3. not the point at infinity;
    4. in the prime-order subgroup (``is_in_subgroup``; ``from_compressed_bytes`` is the
       validating decoder and checks it too, but its documentation does not say so).

    Without check 4, a real signature ``sigma`` plus a small-order point ``T`` of E(Fp) still
    satisfies the pairing equation while its randomness (its SHA-256) differs: an operator
    holding one real round could serve ``sigma``, ``sigma + T``, ``sigma + 2T`` ... and keep
    the dice it likes (``tests/fairness/test_subgroup.py``)."""
    if len(raw) != size or not raw[0] & 0x80 or raw[0] & 0x40:
        return None
    try:
        point = kind.from_compressed_bytes(raw)
    except ValueError:
        return None
    if point == kind.identity() or point.to_compressed_bytes() != raw:
        return None
    return point if point.is_in_subgroup() else None


def _checked_g1(signature_hex: str) -> Any | None:
    """The signature as a G1 point (48 bytes), or None unless it passes every point check
    (:func:`_decoded`)."""
    try:
        raw = bytes.fromhex(signature_hex)
    except (ValueError, TypeError):
        return None
    return _decoded(_arkworks().G1Point, raw, 48)


@functools.lru_cache(maxsize=16)
def _checked_key(public_key_hex: str) -> Any | None:
    """A network's key as a G2 point (96 bytes), or None unless it passes the same checks on
    G2 (:func:`_decoded`: canonical, on the twist, not infinity, in the subgroup)."""
    try:
        raw = bytes.fromhex(public_key_hex)
    except (ValueError, TypeError):
        return None
    return _decoded(_arkworks().G2Point, raw, 96)


@functools.lru_cache(maxsize=4096)
def verify_signature(network: Network, round_number: int, signature_hex: str) -> bool:
    """Whether ``signature_hex`` is the network's BLS signature of ``round_number`` (offline):
    the signature and the key pass the point checks (:func:`_decoded`), then
    ``e(sigma, g2) == e(H(m), pk)`` with ``H`` the RFC 9380 hash to G1 (``hash_to_curve``,
    SSWU, random oracle) under :data:`DST`.

    The curve work is py-arkworks-bls12381's (arkworks' BLS12-381 in Rust): ~1.5 ms a check.
    The tests cross-check it against py_ecc, the Ethereum Foundation's pure-Python BLS12-381
    (``tests/fairness/test_bls_cross_check.py``), and the web verifier checks with its own
    library (noble-curves). A pure function of its arguments, so each (network, round,
    signature) is checked once per process."""
    pk = _checked_key(network.public_key)
    sigma = _checked_g1(signature_hex)
    if pk is None or sigma is None:
        return False
    bls = _arkworks()
    hashed = bls.G1Point.hash_to_curve(message(round_number), DST)
    # e(sigma, g2) == e(H(m), pk)  <=>  e(-sigma, g2) * e(H(m), pk) == 1
    return bool(bls.GT.pairing_check([-sigma, hashed], [bls.G2Point(), pk]))


def mix(seed: bytes, beacon: BeaconRound | None) -> bytes:
    """The dice key of a turn: ``sha256(seed || randomness)`` with a beacon round, else the
    server seed alone ("server seed only", and every turn recorded before the beacon)."""
    if beacon is None:
        return seed
    return hashlib.sha256(seed + bytes.fromhex(beacon.randomness)).digest()
