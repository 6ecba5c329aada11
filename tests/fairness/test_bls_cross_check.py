"""The beacon's signature check (``engine.beacon.verify_signature``, py-arkworks-bls12381)
gives py_ecc's verdict (``tests/fairness/reference_bls.py``, the check before it) on valid
and invalid signatures and keys: every check of docs/fairness.md, "The beacon", is made by
both (canonical 48/96-byte encoding with its flags, on the curve, not infinity, in the
subgroup, then the pairing), and the hash to G1 is the same RFC 9380 map."""

from __future__ import annotations

import hashlib
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import beacon as native
from engine.beacon import DST, QUICKNET, Network, message
from infra.beacon import TEST_SECRET, LocalBeacon
from tests.fairness import reference_bls as reference
from tests.fairness.test_beacon import ROUND, SIGNATURE
from tests.fairness.test_subgroup import VARIANTS

reference.import_py_ecc()
from py_ecc.bls.hash_to_curve import hash_to_G1  # noqa: E402
from py_ecc.bls.point_compression import compress_G1, compress_G2  # noqa: E402
from py_ecc.optimized_bls12_381 import G2, multiply, neg  # noqa: E402

LOCAL = LocalBeacon().network


def _g1_hex(point: Any) -> str:
    return int(compress_G1(point)).to_bytes(48, "big").hex()


def _py_ecc_sign(round_number: int) -> str:
    """A local-test signature made by py_ecc, not by the library under test."""
    hashed = hash_to_G1(message(round_number), DST, hashlib.sha256)  # type: ignore[arg-type]
    return _g1_hex(multiply(hashed, TEST_SECRET))


def _both(network: Network, round_number: int, signature: str) -> bool:
    ours = native.verify_signature.__wrapped__(network, round_number, signature)
    theirs = reference.verify_signature(network, round_number, signature)
    assert ours == theirs, (network.name, round_number, signature)
    return bool(ours)


def test_the_hash_to_g1_is_py_eccs() -> None:
    from py_arkworks_bls12381 import G1Point

    for r in (0, 1, ROUND, 2**63):
        ours = G1Point.hash_to_curve(message(r), DST).to_compressed_bytes().hex()
        assert ours == _g1_hex(hash_to_G1(message(r), DST, hashlib.sha256)), r  # type: ignore[arg-type]


def test_valid_signatures_verify_with_both() -> None:
    assert _both(QUICKNET, ROUND, SIGNATURE)
    for r in (1, 2, 42, 63_000_000):
        signature = _py_ecc_sign(r)
        assert signature == LocalBeacon().sign(r)  # the local beacon signs as py_ecc does
        assert _both(LOCAL, r, signature)


def test_invalid_signatures_fail_with_both() -> None:
    sigma_local = _py_ecc_sign(42)
    negated = _g1_hex(neg(hash_to_G1(message(42), DST, hashlib.sha256)))  # type: ignore[arg-type]
    cases = [
        (QUICKNET, ROUND + 1, SIGNATURE),  # another round
        (LOCAL, ROUND, SIGNATURE),  # another key
        (QUICKNET, 42, sigma_local),
        (LOCAL, 43, sigma_local),
        (LOCAL, 42, negated),
        (LOCAL, 42, _py_ecc_sign(43)),
        *((QUICKNET, ROUND, variant) for _name, variant in VARIANTS),  # sigma + T
        (QUICKNET, ROUND, "c0" + "00" * 47),  # infinity
        (QUICKNET, ROUND, "e0" + "00" * 47),  # infinity with its sign flag
        (QUICKNET, ROUND, "c0" + "00" * 46 + "01"),  # "infinity" with x bits set
        (QUICKNET, ROUND, SIGNATURE[:-2]),
        (QUICKNET, ROUND, SIGNATURE + "00"),
        (QUICKNET, ROUND, "zz" * 48),
        (QUICKNET, ROUND, ""),
    ]
    for network, r, signature in cases:
        assert not _both(network, r, signature), signature


def _key_hex(z: tuple[int, int]) -> str:
    return (z[0].to_bytes(48, "big") + z[1].to_bytes(48, "big")).hex()


def test_keys_are_checked_alike() -> None:
    good = _key_hex(tuple(int(c) for c in compress_G2(multiply(G2, TEST_SECRET))))  # type: ignore[arg-type]
    raw = bytes.fromhex(QUICKNET.public_key)
    flipped = [(bytes([raw[0] ^ bit]) + raw[1:]).hex() for bit in (0x20, 0x80, 0x40)]
    keys = [
        QUICKNET.public_key,
        good,
        flipped[0],  # the sign flag flipped: -pk, a valid key too (not quicknet's)
        *flipped[1:],  # compression flag cleared, infinity flag set
        "c0" + "00" * 95,  # infinity
        "e0" + "00" * 95,
        "c0" + "00" * 94 + "01",
        QUICKNET.public_key[:-2],
        QUICKNET.public_key + "00",
        "zz" * 96,
        *_twist_points_outside_g2(2),
    ]
    verdicts = []
    for key in keys:
        ours = native._checked_key(key) is not None
        assert ours == (reference.checked_key(key) is not None), key
        verdicts.append(ours)
    assert verdicts[:3] == [True, True, True] and not any(verdicts[3:])


def _twist_points_outside_g2(n: int) -> list[str]:
    """Encodings of points on the twist E'(Fp2) that are not in G2 (the cofactor is huge,
    so a point found from a small x is almost surely outside): py_ecc decompresses them."""
    from py_ecc.bls.point_compression import decompress_G2
    from py_ecc.bls.typing import G2Compressed

    found = []
    for x in range(1, 200):
        z = ((0x80 << 376) | 0, x)  # c1 = 0 with the compression flag, c0 = x
        try:
            point = decompress_G2(G2Compressed(z))
        except ValueError:
            continue
        if tuple(int(c) for c in compress_G2(point)) != z:
            continue
        found.append(_key_hex(z))
        if len(found) == n:
            break
    assert len(found) == n
    return found


@settings(max_examples=60, deadline=None)
@given(st.binary(min_size=48, max_size=48), st.integers(0, 7))
def test_any_48_bytes_are_judged_alike(raw: bytes, flags: int) -> None:
    """Random x-coordinates under every combination of the three flag bits: most are off
    the curve or outside the subgroup; both implementations agree on each."""
    candidate = bytes([(raw[0] & 0x1F) | (flags << 5)]) + raw[1:]
    ours = native._checked_g1(candidate.hex()) is not None
    assert ours == (reference.checked_g1(candidate.hex()) is not None)
    assert not _both(QUICKNET, ROUND, candidate.hex())


def test_curve_points_outside_g1_are_refused_by_both() -> None:
    """Points of E(Fp) found from small x: on the curve, canonical, outside G1."""
    from py_ecc.bls.point_compression import decompress_G1
    from py_ecc.bls.typing import G1Compressed

    tried = 0
    for x in range(1, 100):
        z = (0x80 << 376) | x
        try:
            decompress_G1(G1Compressed(z))
        except ValueError:
            continue
        signature = z.to_bytes(48, "big").hex()
        assert native._checked_g1(signature) is None
        assert reference.checked_g1(signature) is None
        tried += 1
    assert tried >= 5
