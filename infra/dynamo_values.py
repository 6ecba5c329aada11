"""DynamoDB attribute values as the adapter writes them (``infra.dynamodb`` and its mixins
``infra.dynamo_outbox``, ``infra.dynamo_remember`` share these, so the match item's attributes
and its index keys are spelled one way)."""

from __future__ import annotations

import json
from typing import Any

Item = dict[str, dict[str, Any]]


def s(value: str) -> dict[str, str]:
    """A string attribute."""
    return {"S": value}


def n(value: float) -> dict[str, str]:
    """A number attribute (a float's shortest exact text)."""
    return {"N": repr(value) if isinstance(value, float) else str(value)}


def dumps(doc: Any) -> str:
    """A document as compact JSON (UTF-8 kept: every byte of an item is billed)."""
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":"))


def sortable(value: float) -> str:
    """A non-negative epoch as a fixed-width string that sorts like the number."""
    return f"{max(value, 0.0):017.6f}"
