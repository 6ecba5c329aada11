"""Logs and metrics the ecosystem's way (issue 28 point 8; docs/deploy.md): every log line of
an invocation is one JSON object carrying its ``update_id``, the ``match_id`` it was about
and, on the closing line, its ``outcome``; the metrics are CloudWatch embedded metric format
lines (``Updates`` by ``Outcome``)."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest

from handlers import lambda_webhook
from handlers.observe import JsonFormatter
from tests.serverless.conftest import WebhookHarness, api_event
from tests.serverless.duel import ORDER, open_duel


@pytest.fixture
def json_logs() -> Iterator[io.StringIO]:
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.addHandler(handler)
    level = root.level
    root.setLevel(logging.INFO)
    yield out
    root.removeHandler(handler)
    root.setLevel(level)


def _lines(out: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.getvalue().splitlines() if line.strip()]


def test_each_invocation_logs_json_with_its_update_match_and_outcome(
    harness: WebhookHarness, json_logs: io.StringIO
) -> None:
    h = harness
    match_id, alice, _bob = open_duel(h)
    json_logs.truncate(0)
    json_logs.seek(0)
    h.say(alice, int(alice["id"]), ORDER)
    update_id = h.fed[-1]["update_id"]
    lines = _lines(json_logs)
    closing = [x for x in lines if x.get("outcome")]
    assert closing, lines
    last = closing[-1]
    assert last["update_id"] == update_id and last["match_id"] == match_id
    assert last["outcome"] == "handled" and last["level"] == "INFO"
    assert {"time", "logger", "message"} <= set(last)
    junk = {"update_id": update_id + 1, "message": {"message_id": 1, "date": 1}}
    assert lambda_webhook.handle(api_event(junk), h.rt)["statusCode"] == 200
    outcomes = [x for x in _lines(json_logs) if x.get("update_id") == update_id + 1]
    assert outcomes[-1]["outcome"] == "junk"
    assert all("match_id" not in x for x in outcomes)  # no match leaks from the last one


def test_metrics_are_embedded_metric_format_lines(
    harness: WebhookHarness, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("AWS_LAMBDA_FUNCTION_NAME", "sekundant-webhook")
    update = {"update_id": 900_000_999, "message": {"message_id": 1, "date": 1}}
    lambda_webhook.handle(api_event(update), harness.rt)
    docs = [json.loads(x) for x in capsys.readouterr().out.splitlines() if x.startswith("{")]
    updates = [d for d in docs if "Updates" in d]
    assert updates, docs
    (emf,) = updates
    spec = emf["_aws"]["CloudWatchMetrics"][0]
    assert spec["Namespace"] == "Sekundant" and spec["Metrics"] == [
        {"Name": "Updates", "Unit": "Count"}
    ]
    assert ["Outcome"] in spec["Dimensions"] and [] in spec["Dimensions"]
    assert emf["Outcome"] == "junk" and emf["Updates"] == 1
    assert isinstance(emf["_aws"]["Timestamp"], int)
