"""Small JSON documents packed for DynamoDB: zlib with a preset dictionary.

DynamoDB bills a write per started KB of the item, and a match document is mostly the same
text in every match (its ruleset's configuration, field names, the seats' shape): plain zlib
got a pistol match to about 1.05 KB (two write units a save), zlib primed with a dictionary of
typical documents gets it to about 0.2-0.4 KB (one, with the sealed orders beside it).

A dictionary is data, frozen: every packed stream names its dictionary in its own zlib header
(the dictionary's Adler-32, RFC 1950 ``DICTID``), so a dictionary once used can never change; a
better one is added beside it, and :func:`unpack` reads any of them, and plain zlib as written
before (docs/storage.md, "Item sizes"):

- ``docpack_v1.txt`` (11 KB): match documents of the three rulesets at turn 1, with preset
  characters and the default configuration, and a sealed default order of each;
- ``docpack_v2.txt`` (19 KB, :data:`CURRENT`): what the bot stores in a played turn - turn
  records in their stored form (events, record keys, the beacon's fields), match documents
  while every order is sealed, sealed orders - the most written last (zlib codes a near match
  in fewer bits). Made by ``python -m tests.support.docpack_dictionary``: a resolved turn's
  record packs to about half its v1 size (a 4-rider battle's from 1.2-1.4 KB to 0.7-0.85 KB),
  a sealed order to 55-70 bytes from 70-120.
"""

from __future__ import annotations

import hashlib
import zlib
from functools import cache
from pathlib import Path

CURRENT = 2  # the dictionary new items are packed with
LEVEL = 9  # small documents: the best level costs well under a millisecond
_FILES = {1: "docpack_v1.txt", 2: "docpack_v2.txt"}
# A dictionary's bytes may never change once items use it: pinned here and tested.
SHA256 = {
    1: "7170183de9800449f5adba175301a67fa49d947e8fda064753fa55831593f607",
    2: "be7ad4372abb80d83a900dacc606137315ace316217b5fd8cb9347c923d27960",
}


@cache
def dictionary(version: int) -> bytes:
    """The preset dictionary ``version`` (KeyError for an unknown one; ValueError if its file
    is not the pinned one)."""
    data = (Path(__file__).with_name(_FILES[version])).read_bytes()
    if hashlib.sha256(data).hexdigest() != SHA256[version]:
        raise ValueError(f"docpack dictionary v{version} is not the one items were packed with")
    return data


def pack(text: str, version: int = CURRENT) -> bytes:
    """``text`` compressed with dictionary ``version``."""
    packer = zlib.compressobj(LEVEL, zlib.DEFLATED, zlib.MAX_WBITS, 9, zlib.Z_DEFAULT_STRATEGY,
                              dictionary(version))  # fmt: skip
    return packer.compress(text.encode()) + packer.flush()


def unpack(data: bytes) -> str:
    """What :func:`pack` packed (or plain ``zlib.compress`` made): the dictionary is the one
    the stream's header names. ``zlib.error`` when the data is neither."""
    fdict = len(data) >= 6 and data[1] & 0x20  # RFC 1950: FLG.FDICT, then DICTID
    if not fdict:
        return zlib.decompress(data).decode()
    wanted = int.from_bytes(data[2:6], "big")
    version = next((v for v in _FILES if zlib.adler32(dictionary(v)) == wanted), None)
    if version is None:
        raise zlib.error(f"packed with an unknown dictionary (DICTID {wanted:08x})")
    unpacker = zlib.decompressobj(zlib.MAX_WBITS, dictionary(version))
    out = unpacker.decompress(data) + unpacker.flush()
    if not unpacker.eof:
        raise zlib.error("packed document is truncated")
    return out.decode()
