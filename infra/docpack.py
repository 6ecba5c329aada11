"""Small JSON documents packed for DynamoDB: zlib with a preset dictionary.

DynamoDB bills a write per started KB of the item, and a match document is mostly the same
text in every match (its ruleset's configuration, field names, the seats' shape): plain zlib
got a pistol match to about 1.05 KB (two write units a save), zlib primed with a dictionary of
typical documents gets it to about 0.2-0.4 KB (one, with the sealed orders beside it).

A dictionary is data, frozen: every packed stream names its dictionary (v1: in its zlib
header, the dictionary's Adler-32, RFC 1950 ``DICTID``; later ones: its first byte,
:data:`RAW_FROM`), so a dictionary once used can never change; a better one is added beside
it, and :func:`unpack` reads any of them, and plain zlib as written before (docs/storage.md,
"Item sizes"):

- ``docpack_v1.txt`` (11 KB): match documents of the three rulesets at turn 1, with preset
  characters and the default configuration, and a sealed default order of each;
- ``docpack_v2.txt`` (19 KB, :data:`CURRENT`): what the bot stores in a played turn - turn
  records in their stored form (events, record keys, the beacon's fields), match documents
  while every order is sealed, sealed orders - the most written last (zlib codes a near match
  in fewer bits). Made by ``python -m tests.support.docpack_dictionary``. In the load run a
  resolved turn's record item went from 0.8-1.6 KB to 0.4-0.93 KB (with the fields its
  other fields make left out: ``codec.record_to_stored``).
"""

from __future__ import annotations

import hashlib
import zlib
from functools import cache
from pathlib import Path

CURRENT = 2  # the newest dictionary: what new items are packed with unless told otherwise
LEVEL = 9  # small documents: the best level costs well under a millisecond
_FILES = {1: "docpack_v1.txt", 2: "docpack_v2.txt"}
# A dictionary's bytes may never change once items use it: pinned here and tested.
SHA256 = {
    1: "7170183de9800449f5adba175301a67fa49d947e8fda064753fa55831593f607",
    2: "5e242fa6ab0860424b00d25f7910ea6d4164c2d98e178aa2a65af4b74714f9bb",
}


@cache
def dictionary(version: int) -> bytes:
    """The preset dictionary ``version`` (KeyError for an unknown one; ValueError if its file
    is not the pinned one)."""
    data = (Path(__file__).with_name(_FILES[version])).read_bytes()
    if hashlib.sha256(data).hexdigest() != SHA256[version]:
        raise ValueError(f"docpack dictionary v{version} is not the one items were packed with")
    return data


RAW_FROM = 2
"""Streams packed with dictionary v2 or later are one byte, the dictionary's version, then
raw deflate (RFC 1951): no zlib header with its 4-byte DICTID, no Adler-32 trailer - 9 bytes
less on every packed document and order, of items billed by the started KB. The version byte
can never be read as a zlib header (its low four bits would have to be 8, deflate), so one
:func:`unpack` tells the forms apart. A truncated stream (no final block) or bytes after
its end are refused; a flipped bit inside is left to the JSON and the codec's checks that
follow (DynamoDB keeps its own checksums)."""


_WRITING = {"version": CURRENT}  # what pack() uses unless told: :func:`write_with`


def write_with(version: int) -> None:
    """Pack new items with dictionary ``version`` from now on (this process): an older one
    while containers that cannot read the newest may still run (``SEKUNDANT_PACK_VERSION``;
    docs/deploy.md, "Upgrading a stack that packs with v1"). Every version is always read.
    ValueError for a version there is no dictionary for."""
    if version not in _FILES:
        raise ValueError(f"no docpack dictionary v{version}")
    _WRITING["version"] = version


def pack(text: str, version: int | None = None) -> bytes:
    """``text`` compressed with dictionary ``version`` (None: the one :func:`write_with`
    set, else :data:`CURRENT`; v1: a zlib stream naming it by its DICTID, as every item
    packed before v2; later ones: :data:`RAW_FROM`)."""
    version = _WRITING["version"] if version is None else version
    raw = version >= RAW_FROM
    packer = zlib.compressobj(LEVEL, zlib.DEFLATED, -zlib.MAX_WBITS if raw else zlib.MAX_WBITS,
                              9, zlib.Z_DEFAULT_STRATEGY, dictionary(version))  # fmt: skip
    body = packer.compress(text.encode()) + packer.flush()
    return bytes([version]) + body if raw else body


def _is_zlib(data: bytes) -> bool:
    """Whether ``data`` starts with a zlib header (RFC 1950: CM = 8, the check bits)."""
    return len(data) >= 2 and data[0] & 0x0F == 8 and (data[0] << 8 | data[1]) % 31 == 0


def unpack(data: bytes) -> str:
    """What :func:`pack` packed with any dictionary (or plain ``zlib.compress`` made): the
    dictionary is the one the stream names. ``zlib.error`` when the data is none of them."""
    if not _is_zlib(data):
        first = data[0] if data else 0
        if first < RAW_FROM or first not in _FILES:
            raise zlib.error(f"not a packed document (first byte {first:#04x})")
        return _inflate(data[1:], -zlib.MAX_WBITS, dictionary(first))
    fdict = len(data) >= 6 and data[1] & 0x20  # RFC 1950: FLG.FDICT, then DICTID
    if not fdict:
        return zlib.decompress(data).decode()
    wanted = int.from_bytes(data[2:6], "big")
    version = next((v for v in _FILES if zlib.adler32(dictionary(v)) == wanted), None)
    if version is None:
        raise zlib.error(f"packed with an unknown dictionary (DICTID {wanted:08x})")
    return _inflate(data, zlib.MAX_WBITS, dictionary(version))


def _inflate(data: bytes, wbits: int, zdict: bytes) -> str:
    unpacker = zlib.decompressobj(wbits, zdict)
    out = unpacker.decompress(data) + unpacker.flush()
    if not unpacker.eof:
        raise zlib.error("packed document is truncated")
    if unpacker.unused_data:
        raise zlib.error("bytes after the packed document")
    return out.decode()
