"""The beacon's signature check as it was before py-arkworks-bls12381, on py_ecc (the Ethereum
Foundation's pure-Python BLS12-381, ~0.2 s a check): a second, independent implementation the
tests compare ``engine.beacon.verify_signature`` with (``test_bls_cross_check.py``), and the
curve arithmetic the torsion tests build their points with (``test_subgroup.py``).

The same checks as docs/fairness.md, "The beacon", composed from py_ecc's own primitives
(its ciphersuites run them only for signatures on G2, and quicknet signs on G1):
``decompress_G1`` (flags, range, curve equation), ``subgroup_check`` (``[r]P == O``) and a
re-compression that must give back the same bytes."""

from __future__ import annotations

import functools
import hashlib
import sys
from typing import Any

from engine.beacon import DST, Network, message


def import_py_ecc() -> None:
    """Import py_ecc without its side effect: on import it raises the interpreter's recursion
    limit to 100000, which turns a deeply nested JSON body (the webhook's RecursionError
    guard) into a crash. The limit this process had is put back."""
    limit = sys.getrecursionlimit()
    import py_ecc  # noqa: F401

    sys.setrecursionlimit(limit)


def checked_g1(signature_hex: str) -> Any | None:
    """The signature as a G1 point, or None unless it passes every point check: 48 bytes,
    canonical compressed encoding, on the curve, not infinity, in the subgroup."""
    import_py_ecc()
    from py_ecc.bls.g2_primitives import subgroup_check
    from py_ecc.bls.point_compression import compress_G1, decompress_G1
    from py_ecc.bls.typing import G1Compressed
    from py_ecc.optimized_bls12_381.optimized_curve import is_inf

    try:
        raw = bytes.fromhex(signature_hex)
        if len(raw) != 48:
            return None
        z = int.from_bytes(raw, "big")
        point = decompress_G1(G1Compressed(z))
    except (ValueError, TypeError):
        return None
    if is_inf(point) or int(compress_G1(point)) != z or not subgroup_check(point):
        return None
    return point


@functools.lru_cache(maxsize=16)
def checked_key(public_key_hex: str) -> Any | None:
    """A network's key as a G2 point: canonical 96 bytes, on the twist, in the subgroup, not
    infinity (py_ecc's ``KeyValidate`` checks, for a key on G2)."""
    import_py_ecc()
    from py_ecc.bls.g2_primitives import subgroup_check
    from py_ecc.bls.point_compression import compress_G2, decompress_G2
    from py_ecc.bls.typing import G2Compressed
    from py_ecc.optimized_bls12_381.optimized_curve import is_inf

    try:
        key = bytes.fromhex(public_key_hex)
        if len(key) != 96:
            return None
        z = (int.from_bytes(key[:48], "big"), int.from_bytes(key[48:], "big"))
        point = decompress_G2(G2Compressed(z))
    except (ValueError, TypeError):
        return None
    if is_inf(point) or tuple(int(c) for c in compress_G2(point)) != z:
        return None
    return point if subgroup_check(point) else None


def verify_signature(network: Network, round_number: int, signature_hex: str) -> bool:
    """py_ecc's verdict: the point checks, then ``e(sigma, g2) == e(H(m), pk)``."""
    pk = checked_key(network.public_key)
    sigma = checked_g1(signature_hex)
    if pk is None or sigma is None:
        return False
    from py_ecc.bls.hash_to_curve import hash_to_G1
    from py_ecc.fields import optimized_bls12_381_FQ12 as FQ12
    from py_ecc.optimized_bls12_381.optimized_curve import G2, neg
    from py_ecc.optimized_bls12_381.optimized_pairing import final_exponentiate, miller_loop

    hashed = hash_to_G1(message(round_number), DST, hashlib.sha256)  # type: ignore[arg-type]
    product = miller_loop(G2, neg(sigma), False) * miller_loop(pk, hashed, False)
    return bool(final_exponentiate(product) == FQ12.one())
