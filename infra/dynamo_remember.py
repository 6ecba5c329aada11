"""Remembered message ids on DynamoDB: attributes of the match item beside its document.

``MatchRepository.remember_messages`` (docs/storage.md, "Remembered message ids"): the ids of
``key`` are two attributes of the match item, its turn (N) and its pairs (NS, each
``chat * 2**31 + message``: a number is ~1 byte per two digits, and every byte of the item is
billed on each of its writes), named ``lt`` and ``lv`` for ``"live"``, else ``rt_<key>`` and
``ri_<key>``. A remember is one conditional ``UpdateItem`` of those two alone:
``ADD`` to the set while the stored turn is the same (two players' receipts at once are both
kept: a set's ``ADD`` merges), or ``SET`` both when the stored turn is older (or there is
none). It never reads or changes ``version``, so it never conflicts with a save, and a save
(which sets only the attributes it lists, ``infra.dynamodb``) never overwrites it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from botocore.exceptions import ClientError

from engine.errors import NotFoundError

# Short names for the keys of every turn (each byte of the item is billed on every write).
_SHORT = {"live": ("lt", "lv")}
_BY_TURN_ATTR = {t: (key, i) for key, (t, i) in _SHORT.items()}
# The keys the listings read too (``refuse_if_before_turn`` needs a typed command's turn's
# messages): a projection names its attributes.
LISTED_KEYS = ("live",)
_KEY = re.compile(r"[a-z][a-z_]{0,15}")
_SHIFT = 2**31  # message ids are below it (Bot API: 32-bit signed)


def attrs(key: str) -> tuple[str, str]:
    """The attributes (turn, pairs) of ``key``."""
    return _SHORT.get(key) or ("rt_" + key, "ri_" + key)


def listed_names() -> dict[str, str]:
    """Projection names (``#...`` -> attribute) of the listed keys' attributes."""
    out: dict[str, str] = {}
    for i, key in enumerate(LISTED_KEYS):
        out[f"#rt{i}"], out[f"#ri{i}"] = attrs(key)
    return out


def packed(chat: int, message: int) -> int:
    return int(chat) * _SHIFT + int(message)


def numbers(items: Sequence[Sequence[int]]) -> list[str]:
    """``items`` (``[chat, message]`` pairs) as the set's numbers, each once."""
    return sorted({str(packed(c, m)) for c, m in items})


def write_clauses(
    key: str, turn: int, pairs: list[str], *, add: bool
) -> tuple[list[str], list[str], str, dict[str, str], dict[str, Any]]:
    """The clauses of a conditional ``UpdateItem`` that remembers ``pairs`` (:func:`numbers`)
    of ``turn`` under ``key``: SET ones, ADD ones, the condition on the stored turn, names,
    values. ``add``: to the stored turn's (the same turn), else replacing an older turn's (or
    none)."""
    turn_attr, pairs_attr = attrs(key)
    names = {"#rt": turn_attr, "#ri": pairs_attr}
    values = {":rt": {"N": str(turn)}, ":ri": {"NS": pairs}}
    if add:
        return [], ["#ri :ri"], "#rt = :rt", names, values
    return ["#ri = :ri", "#rt = :rt"], [], "(attribute_not_exists(#rt) OR #rt < :rt)", names, values


def stored_turn(item: Mapping[str, Any], key: str) -> int:
    """The turn of ``key``'s remembered ids in a match item (-1: none)."""
    turn_attr = attrs(key)[0]
    return int(item[turn_attr]["N"]) if turn_attr in item else -1


def remembered_of(item: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The remembered ids of a match item: key -> ``{"turn", "items"}`` (``Match.remembered``)."""
    out: dict[str, dict[str, Any]] = {}
    for attr, value in item.items():
        if attr in _BY_TURN_ATTR:
            key, pairs_attr = _BY_TURN_ATTR[attr]
        elif attr.startswith("rt_"):
            key = attr.removeprefix("rt_")
            pairs_attr = "ri_" + key
        else:
            continue
        numbers = sorted(int(n) for n in item.get(pairs_attr, {}).get("NS", ()))
        items = [[n // _SHIFT, n % _SHIFT] for n in numbers]
        out[key] = {"turn": int(value["N"]), "items": items}
    return out


class InlineRemembered:
    """``remember_messages`` for :class:`infra.dynamodb.DynamoRepository` (a mixin: it uses
    ``client``, ``table`` and ``_match_key``)."""

    client: Any
    table: str

    def _init_remembered(self) -> None:
        # (match id, key) -> the stored turn as this instance last saw it: which of the two
        # writes to try first (the same turn: ADD; a newer one: SET), so one request is usual.
        self._remembered_turns: dict[tuple[str, str], int] = {}

    def saw_remembered(self, match_id: str, item: Mapping[str, Any]) -> None:
        if len(self._remembered_turns) > 4096:
            self._remembered_turns.clear()
        for key, kept in remembered_of(item).items():
            self._remembered_turns[match_id, key] = int(kept["turn"])

    def remember_messages(
        self, match_id: str, key: str, turn: int, items: Sequence[Sequence[int]]
    ) -> None:
        if not _KEY.fullmatch(key):
            raise ValueError(f"bad remembered key {key!r}")
        pairs = numbers(items)
        if not pairs:
            return
        add = self._remembered_turns.get((match_id, key)) == turn
        for _ in range(4):
            stored = self._remember_once(match_id, key, turn, pairs, add=add)
            if stored is None:  # written
                self._remembered_turns[match_id, key] = turn
                return
            if stored > turn:  # a later turn's are there: ``turn`` is over
                return
            add = stored == turn  # the other write (someone wrote meanwhile)

    def _remember_once(
        self, match_id: str, key: str, turn: int, pairs: list[str], *, add: bool
    ) -> int | None:
        """One write; None when it was made, else the stored turn that refused it (-1: none)."""
        sets, adds, condition, names, values = write_clauses(key, turn, pairs, add=add)
        request: dict[str, Any] = {
            "TableName": self.table,
            "Key": self._match_key(match_id),  # type: ignore[attr-defined]
            "UpdateExpression": f"ADD {adds[0]}" if add else "SET " + ", ".join(sets),
            # (ADD's condition on the stored turn fails for a missing item too)
            "ConditionExpression": condition if add else f"attribute_exists(PK) AND {condition}",
            "ExpressionAttributeNames": names,
            "ExpressionAttributeValues": values,
            "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
        }
        try:
            self.client.update_item(**request)
            return None
        except ClientError as exc:
            if exc.response["Error"]["Code"] != "ConditionalCheckFailedException":
                raise
            old = exc.response.get("Item")
            if old is None:
                if add:  # gone, or ADD's condition on a missing turn: SET decides
                    return -1
                raise NotFoundError(match_id) from None
            return stored_turn(old, key)
