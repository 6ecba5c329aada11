"""Callback data: short, versioned, bound to a match and turn, and signed.

Layout: ``v1:<kind>:<match>:<turn>:<arg>:<arg>...:<mac>`` where ``mac`` is 6 base64url
characters of HMAC-SHA256(secret, everything before it). Telegram caps callback data at 64
bytes; :func:`encode` refuses longer data so a too-long button is a bug found in tests, not a
400 from Telegram in production.

The MAC makes forged presses (a modified client sending arbitrary data) recognisable before
anything is parsed; binding to the turn makes stale presses (a button from turn 2 pressed in
turn 3) recognisable by the handler. Authorization (GM only, own seat) is still checked by the
core on every press: the MAC is not a permission.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

VERSION = "v1"
MAX_BYTES = 64
_MAC_LEN = 6
_MAC_BYTES = 6  # enough digest bytes for _MAC_LEN base64 characters (6 bits each)


@dataclass(frozen=True, slots=True)
class Callback:
    """A decoded button press: what (``kind``), for which match and turn, with which args."""

    kind: str
    match: str = ""
    turn: int = 0
    args: tuple[str, ...] = ()

    def arg(self, i: int, default: str = "") -> str:
        return self.args[i] if i < len(self.args) else default

    def int_arg(self, i: int) -> int:
        """Integer argument ``i``; a malformed one raises ``ValueError`` (treated as forged)."""
        return int(self.args[i])


_BLOCK = 64  # SHA-256's block size
_IPAD = bytes(x ^ 0x36 for x in range(256))
_OPAD = bytes(x ^ 0x5C for x in range(256))


@lru_cache(maxsize=8)
def _keyed(secret: bytes) -> tuple[Any, Any]:
    """HMAC-SHA256's inner and outer hashes with the key already absorbed (RFC 2104), made
    once per key: a keyboard signs dozens of buttons with one key, and ``hmac.new`` redoes
    this (and builds Python objects) for each."""
    key = hashlib.sha256(secret).digest() if len(secret) > _BLOCK else secret
    key = key.ljust(_BLOCK, b"\0")
    return hashlib.sha256(key.translate(_IPAD)), hashlib.sha256(key.translate(_OPAD))


def _mac(secret: bytes, body: bytes) -> str:
    """The first characters of base64url(HMAC-SHA256(secret, body)), as ``hmac.new`` gives."""
    inner, outer = _keyed(secret)
    ih = inner.copy()
    ih.update(body)
    oh = outer.copy()
    oh.update(ih.digest())
    return base64.urlsafe_b64encode(oh.digest()[:_MAC_BYTES]).decode()[:_MAC_LEN]


def encode(cb: Callback, secret: bytes) -> str:
    """The callback data string for ``cb``. Raises ``ValueError`` when a field contains ``:``
    or the result exceeds 64 bytes."""
    parts = [VERSION, cb.kind, cb.match, str(cb.turn), *cb.args]
    body = ":".join(parts)
    if body.count(":") != len(parts) - 1:  # one field at least contains ":"
        raise ValueError(f"callback field contains ':': {parts!r}")
    raw = body.encode()
    data = f"{body}:{_mac(secret, raw)}"
    if len(raw) + 1 + _MAC_LEN > MAX_BYTES:  # the MAC is ASCII
        raise ValueError(f"callback data over {MAX_BYTES} bytes: {data!r}")
    return data


def decode(data: str | None, secret: bytes) -> Callback | None:
    """The press encoded in ``data``, or None when it is not ours: unknown version, malformed,
    or a MAC that does not match (forged or from another deployment)."""
    if not data or len(data.encode()) > MAX_BYTES:
        return None
    body, _, mac = data.rpartition(":")
    if not body or not hmac.compare_digest(mac, _mac(secret, body.encode())):
        return None
    parts = body.split(":")
    if len(parts) < 4 or parts[0] != VERSION:
        return None
    try:
        turn = int(parts[3])
    except ValueError:
        return None
    return Callback(parts[1], parts[2], turn, tuple(parts[4:]))
