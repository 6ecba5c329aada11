"""The moto table, created from ``template.yaml``'s own ``Table`` definition (so the code and
the deployed key schema, indexes and TTL cannot drift). Shared by tests and the benchmark."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

TEMPLATE = Path(__file__).resolve().parents[2] / "template.yaml"

FAKE_ENV = {
    "AWS_DEFAULT_REGION": "eu-west-1",
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_SECURITY_TOKEN": "testing",
    "AWS_SESSION_TOKEN": "testing",
}


def use_fake_aws_env() -> None:
    """Fake credentials and region, and no custom endpoint, so nothing can reach AWS."""
    os.environ.update(FAKE_ENV)
    os.environ.pop("AWS_ENDPOINT_URL_DYNAMODB", None)
    os.environ.pop("AWS_ENDPOINT_URL", None)
    os.environ.pop("AWS_PROFILE", None)


def load_template() -> dict[str, Any]:
    from cfnlint.decode import decode

    template, errors = decode(str(TEMPLATE))
    if errors or template is None:
        raise RuntimeError(f"template.yaml does not parse: {errors}")
    plain: dict[str, Any] = json.loads(json.dumps(template))  # no cfn-lint node types
    return plain


def table_properties() -> dict[str, Any]:
    """The table's properties as a stack deployed with the parameters' defaults has them
    (the billing mode a parameter, provisioned throughput only under its condition)."""
    template = load_template()
    params = {k: v.get("Default") for k, v in template.get("Parameters", {}).items()}
    resolved = _resolve(template["Resources"]["Table"]["Properties"], params, template)
    return dict(resolved)


_GONE = object()  # AWS::NoValue: the property is left out


def _resolve(node: Any, params: dict[str, Any], template: dict[str, Any]) -> Any:
    """``node`` with the ``Ref``s of parameters and the ``Fn::If``/``Fn::Equals`` it uses
    evaluated (other intrinsics are kept as they are)."""
    if isinstance(node, list):
        items = [_resolve(n, params, template) for n in node]
        return [n for n in items if n is not _GONE]
    if not isinstance(node, dict):
        return node
    if set(node) == {"Ref"} and node["Ref"] == "AWS::NoValue":
        return _GONE
    if set(node) == {"Ref"} and node["Ref"] in params:
        return params[node["Ref"]]
    if set(node) == {"Fn::If"}:
        name, then, otherwise = node["Fn::If"]
        held = _resolve(template["Conditions"][name], params, template)
        return _resolve(then if held is True else otherwise, params, template)
    if set(node) == {"Fn::Equals"}:
        left, right = (_resolve(n, params, template) for n in node["Fn::Equals"])
        return str(left) == str(right)
    out = {k: _resolve(v, params, template) for k, v in node.items()}
    return {k: v for k, v in out.items() if v is not _GONE}


def create_table(client: Any, name: str) -> None:
    """``create_table`` with the template's properties; TTL applied separately (moto, like
    CloudFormation, takes it as its own call)."""
    props = table_properties()
    ttl = props.pop("TimeToLiveSpecification")
    props.pop("PointInTimeRecoverySpecification", None)
    props.pop("DeletionProtectionEnabled", None)  # not a create_table argument
    client.create_table(TableName=name, **props)
    client.update_time_to_live(
        TableName=name,
        TimeToLiveSpecification={"AttributeName": ttl["AttributeName"], "Enabled": True},
    )


class ClientSpy:
    """Wraps a boto3 DynamoDB client: records every API call by name, and runs each request
    atomically. Real DynamoDB executes a request (a conditional write, a transaction)
    atomically; moto does not lock its in-memory tables, so two threads could both pass one
    condition. Serializing whole requests models the server while still letting the threads'
    requests interleave (both loads before either save) — the race under test."""

    _PLAIN = frozenset({"meta", "exceptions", "get_paginator", "get_waiter", "can_paginate"})

    def __init__(self, client: Any) -> None:
        import threading

        self._client = client
        self._lock = threading.Lock()
        self.calls: list[str] = []

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._client, name)
        if name in self._PLAIN or name.startswith("_") or not callable(attr):
            return attr

        def call(*args: Any, **kwargs: Any) -> Any:
            with self._lock:
                self.calls.append(name)
                return attr(*args, **kwargs)

        return call
