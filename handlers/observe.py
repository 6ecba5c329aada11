"""Structured logs of the Lambda functions (issue 28 point 8; docs/deploy.md, "Logs and
metrics"): each log line one JSON object with the invocation's ``update_id``, ``match_id``
and, on its closing line, ``outcome``; CloudWatch Logs Insights queries them by field.

The fields live in a per-invocation dict (a context variable holding it, so the worker
threads of ``asyncio.to_thread`` and the event loop's task write to the same one):
:func:`begin` starts it, :func:`note` adds to it (the match a handler looked up), and
:class:`JsonFormatter` puts it on every line. No import cost beyond the standard library."""

from __future__ import annotations

import contextvars
import json
import logging
import os
import time
from typing import Any

_INVOCATION: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar(
    "sekundant_invocation", default=None
)
FIELDS = ("update_id", "match_id", "outcome")


def begin(**fields: Any) -> dict[str, Any]:
    """A new invocation's fields (``update_id``...); returned for the caller to read back."""
    current = {k: v for k, v in fields.items() if v is not None}
    _INVOCATION.set(current)
    return current


def note(**fields: Any) -> None:
    """Add fields to the running invocation (the first ``match_id`` noted stays: the match
    the update was about)."""
    current = _INVOCATION.get()
    if current is None:
        return
    for key, value in fields.items():
        if value is not None and not (key == "match_id" and "match_id" in current):
            current[key] = value


def fields() -> dict[str, Any]:
    return dict(_INVOCATION.get() or {})


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time, level, logger, message, the invocation's fields, the
    record's own ``update_id``/``match_id``/``outcome`` (``extra=``), the exception."""

    def format(self, record: logging.LogRecord) -> str:
        doc: dict[str, Any] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        doc.update(fields())
        for key in FIELDS:
            value = getattr(record, key, None)
            if value is not None:
                doc[key] = value
        request = os.environ.get("_X_AMZN_TRACE_ID")
        if request:
            doc["trace"] = request
        if record.exc_info:
            doc["exception"] = self.formatException(record.exc_info)
        return json.dumps(doc, ensure_ascii=False, default=str)


def use_json_logs() -> None:
    """In Lambda: every handler of the root logger writes :class:`JsonFormatter` lines
    (Lambda's own ``LogFormat: JSON`` would not carry the invocation's fields)."""
    root = logging.getLogger()
    if not root.handlers:
        root.addHandler(logging.StreamHandler())
    for handler in root.handlers:
        handler.setFormatter(JsonFormatter())
    if root.level == logging.NOTSET or root.level > logging.INFO:
        root.setLevel(logging.INFO)
