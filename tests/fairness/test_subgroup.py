"""Subgroup-checked BLS (docs/fairness.md, "The beacon"): a real quicknet signature with a
small-order point of E(Fp) added still passes the bare pairing equation, but its randomness
differs, so an operator holding one real round could serve the variant whose dice it likes.
Every such variant is refused by the verifier and by the bot's drand adapter, and so is every
non-canonical encoding.

The torsion points are computed here, not taken from anywhere: E(Fp) has ``h1 * r`` points
(``h1`` the G1 cofactor), so ``[h1 * r / n] R`` for a random point R has order ``n`` or 1 for
each divisor ``n`` of ``h1``."""

from __future__ import annotations

import hashlib
import itertools
from typing import Any

import httpx
import pytest

from engine.beacon import (
    DST,
    QUICKNET,
    BeaconRound,
    message,
    verify_signature,
)
from engine.verify import check
from infra.beacon import DrandBeacon
from tests.fairness.reference_bls import import_py_ecc
from tests.fairness.test_beacon import ROUND, SIGNATURE

import_py_ecc()
from py_ecc.bls.hash_to_curve import hash_to_G1  # noqa: E402
from py_ecc.bls.point_compression import compress_G1, decompress_G1, decompress_G2  # noqa: E402
from py_ecc.fields import optimized_bls12_381_FQ as FQ  # noqa: E402
from py_ecc.fields import optimized_bls12_381_FQ12 as FQ12  # noqa: E402
from py_ecc.optimized_bls12_381 import (  # noqa: E402
    G2,
    add,
    curve_order,
    field_modulus,
    is_inf,
    multiply,
    neg,
)
from py_ecc.optimized_bls12_381.optimized_pairing import (  # noqa: E402
    final_exponentiate,
    miller_loop,
)

H1 = 0x396C8C005555E1568C00AAAB0000AAAB
"""The cofactor of G1 in E(Fp): #E(Fp) = H1 * r."""


def test_the_cofactor_has_small_factors() -> None:
    assert H1 == 3 * 11**2 * 10177**2 * 859267**2 * 52437899**2


def _torsion(order: int) -> Any:
    """A point of E(Fp) of exactly ``order`` (a prime dividing H1): the ``order``-primary part
    of a random point (``[#E / order^v] R``), multiplied by ``order`` while that stays finite
    (the 11- and 10177-parts are not cyclic, so one division is not enough)."""
    q, v = field_modulus, 1 if order == 3 else 2
    for x in itertools.count(1):
        rhs = (x**3 + 4) % q
        y = pow(rhs, (q + 1) // 4, q)
        if y * y % q != rhs:
            continue
        point = multiply((FQ(x), FQ(y), FQ(1)), H1 * curve_order // order**v)
        if is_inf(point):
            continue
        while not is_inf(multiply(point, order)):
            point = multiply(point, order)
        return point
    raise AssertionError("unreachable")


def _hex(point: Any) -> str:
    return int(compress_G1(point)).to_bytes(48, "big").hex()


def _variants() -> list[tuple[str, str]]:
    sigma = decompress_G1(int(SIGNATURE, 16))  # type: ignore[arg-type]
    out = []
    for order in (3, 11, 10177):
        t = _torsion(order)
        assert not is_inf(t) and is_inf(multiply(t, order))
        for k in range(1, min(order, 4)):
            out.append((f"sigma+{k}T (T of order {order})", _hex(add(sigma, multiply(t, k)))))
    return out


VARIANTS = _variants()


def _pairing_only(signature_hex: str) -> bool:
    """The check before this fix: decompress (on the curve) and the pairing equation."""
    key = bytes.fromhex(QUICKNET.public_key)
    pk = decompress_G2((int.from_bytes(key[:48], "big"), int.from_bytes(key[48:], "big")))  # type: ignore[arg-type]
    sigma = decompress_G1(int(signature_hex, 16))  # type: ignore[arg-type]
    hashed = hash_to_G1(message(ROUND), DST, hashlib.sha256)  # type: ignore[arg-type]
    product = miller_loop(G2, neg(sigma), False) * miller_loop(pk, hashed, False)
    return bool(final_exponentiate(product) == FQ12.one())


def test_the_attack_a_torsion_variant_passes_the_bare_pairing_with_other_dice() -> None:
    """Why the subgroup check is needed: the order-3 variants satisfy the pairing equation
    alone, and each gives other randomness (other dice)."""
    assert _pairing_only(SIGNATURE)
    for name, variant in VARIANTS[:2]:
        assert _pairing_only(variant), name
        assert (
            hashlib.sha256(bytes.fromhex(variant)).digest()
            != hashlib.sha256(bytes.fromhex(SIGNATURE)).digest()
        )


@pytest.mark.parametrize(("name", "variant"), VARIANTS, ids=[n for n, _ in VARIANTS])
def test_every_torsion_variant_of_a_real_round_is_refused(name: str, variant: str) -> None:
    assert verify_signature(QUICKNET, ROUND, SIGNATURE)
    assert not verify_signature(QUICKNET, ROUND, variant), name


def _flip(signature: str, mask: int) -> str:
    z = int(signature, 16) ^ (mask << 376)
    return z.to_bytes(48, "big").hex()


def test_non_canonical_encodings_and_infinity_are_refused() -> None:
    z = int(SIGNATURE, 16)
    infinity = (0xC0 << 376).to_bytes(48, "big").hex()
    x_beyond_p = ((z & ~((1 << 381) - 1)) | ((z % (1 << 381)) + field_modulus)) % (1 << 384)
    bad = {
        "compression flag cleared": _flip(SIGNATURE, 0x80),
        "infinity flag set": _flip(SIGNATURE, 0x40),
        "sign flag flipped (the negated point)": _flip(SIGNATURE, 0x20),
        "the point at infinity": infinity,
        "infinity with its sign flag": (0xE0 << 376).to_bytes(48, "big").hex(),
        "x not reduced": x_beyond_p.to_bytes(48, "big").hex(),
        "47 bytes": SIGNATURE[:-2],
        "49 bytes": SIGNATURE + "00",
        "not hex": "zz" * 48,
    }
    for name, sig in bad.items():
        assert not verify_signature(QUICKNET, ROUND, sig), name


def _dossier_turn(signature: str) -> dict[str, Any]:
    return {
        "beacon": BeaconRound(
            "quicknet", ROUND, signature, hashlib.sha256(bytes.fromhex(signature)).hexdigest()
        ).to_json()
    }


def test_verify_reports_a_torsion_variant_as_not_the_networks_signature() -> None:
    """``sekundant verify`` runs the same check on every turn's beacon."""
    from engine import verify as verifier

    v = verifier._Verifier({"beacon_networks": {}})
    name, variant = VARIANTS[0]
    v._beacon({"turn": 1, **_dossier_turn(variant)})
    assert [f.what for f in v.findings] == [f"beacon signature of round {ROUND}"], name
    honest = verifier._Verifier({"beacon_networks": {}})
    honest._beacon({"turn": 1, **_dossier_turn(SIGNATURE)})
    assert honest.findings == []
    assert check  # the public entry point runs _beacon for every turn (test_tampering)


def test_the_bot_refuses_a_relay_serving_a_torsion_variant() -> None:
    """The drand adapter takes a round only when it verifies: a relay serving sigma + T is
    passed over for the next relay's real signature."""
    _, variant = VARIANTS[0]
    replies = [variant, SIGNATURE]

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"round": ROUND, "signature": replies.pop(0)})

    client = httpx.Client(transport=httpx.MockTransport(handler))
    beacon = DrandBeacon(urls=("https://a.example", "https://b.example"), get=client.get)
    got = beacon.fetch(ROUND)
    assert got is not None and got.signature == SIGNATURE
    lone = DrandBeacon(
        urls=("https://a.example",),
        get=httpx.Client(
            transport=httpx.MockTransport(
                lambda r: httpx.Response(200, json={"round": ROUND, "signature": variant})
            )
        ).get,
    )
    assert lone.fetch(ROUND) is None
