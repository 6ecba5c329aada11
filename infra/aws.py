"""AWS clients for the Lambda functions, made cheaper to create than ``boto3.client``.

A client's creation is a large share of a cold start, and most of it is spent on things we do
not need (measured in ``docs/deploy.md``):

- botocore checks a service name by listing every service directory it ships (~450) and every
  API version in them, twice per client (the model and its endpoint rules);
- it reads the whole service model (DynamoDB: 62 operations and their documentation, ~0.5 MB
  of JSON) though we call a handful of operations;
- it reads every service's legacy endpoint data (``endpoints.json``, 1.2 MB) for the
  partition and signing defaults of the one it creates.

So the clients come from one botocore session (shared by the SSM, Secrets Manager and DynamoDB
clients, like boto3's default session) whose loader knows the services we use instead of
scanning for them, and finds first a trimmed copy of their models in ``infra/aws_models``:
only the operations in :data:`OPERATIONS` and the shapes they reach, documentation removed,
otherwise the installed botocore's model verbatim; and the endpoint data with only our
services (every partition and region kept), still treated as botocore's own (with a custom
``endpoints.json`` botocore would hand the legacy URL to the endpoint rules as a custom
endpoint). Endpoint rules, partitions, retry and default configuration still come from the
runtime's botocore. ``python -m infra.aws`` regenerates the copies; a test checks they equal
what the installed botocore gives.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

MODELS = Path(__file__).resolve().parent / "aws_models"
ENDPOINTS = MODELS / "endpoints.json"

# The operations our code calls, per service (``infra.dynamodb``, ``infra.secrets``,
# ``infra.later``).
# ``DescribeEndpoints`` is DynamoDB's endpoint-discovery operation: kept so botocore sets up
# discovery exactly as with the full model.
OPERATIONS: Mapping[str, tuple[str, ...]] = {
    "dynamodb": (
        "BatchGetItem",
        "DeleteItem",
        "DescribeEndpoints",
        "GetItem",
        "PutItem",
        "Query",
        "TransactWriteItems",
        "UpdateItem",
    ),
    "ssm": ("GetParameter",),
    "secretsmanager": ("GetSecretValue",),
    "sqs": ("SendMessage",),  # infra.later: the resolve queue
}


# Every client's retries and timeouts, explicit so they do not depend on the botocore the
# Lambda runtime ships (older ones default to the ``legacy`` mode: 5-10 attempts and ~25 s of
# backoff, longer than the webhook's Timeout). Worst case per call: 3 attempts of 1 s connect
# or 2 s read, plus standard mode's backoff (<= 1 s, then <= 2 s): ~9 s, so a failing table
# answers 500 well inside the 25 s Timeout even after a second failing call (the release).
RETRY_MODE = "standard"
MAX_ATTEMPTS = 3  # the first try included
CONNECT_TIMEOUT = 1.0
READ_TIMEOUT = 2.0


def config() -> Any:
    """The botocore ``Config`` every client gets (:data:`RETRY_MODE` and friends)."""
    from botocore.config import Config

    return Config(
        retries={"mode": RETRY_MODE, "total_max_attempts": MAX_ATTEMPTS},
        connect_timeout=CONNECT_TIMEOUT,
        read_timeout=READ_TIMEOUT,
    )


def client(service: str, **kwargs: Any) -> Any:
    """A low-level client for ``service`` (one of :data:`OPERATIONS`), as
    ``boto3.client(service, **kwargs)`` would make it but with fewer operations, and with
    :func:`config` unless ``config`` is given."""
    if service not in OPERATIONS:
        raise ValueError(f"no trimmed model for {service!r}; add it to infra.aws.OPERATIONS")
    kwargs.setdefault("config", config())
    return _session().create_client(service, **kwargs)


@cache
def _session() -> Any:
    import botocore.session
    from botocore.loaders import Loader

    class KnownServicesLoader(Loader):  # type: ignore[misc]
        """Our models first; the service list is ours instead of a scan of botocore's data
        directory (only this session uses the loader, and only for :data:`OPERATIONS`)."""

        def list_available_services(self, type_name: str) -> list[str]:
            return sorted(OPERATIONS)

        def is_builtin_path(self, path: str) -> bool:
            return Path(path) == ENDPOINTS.with_suffix("") or bool(super().is_builtin_path(path))

    session = botocore.session.Session()
    session.register_component("data_loader", KnownServicesLoader([str(MODELS)]))
    return session


def trimmed_model(full: Mapping[str, Any], operations: tuple[str, ...]) -> dict[str, Any]:
    """``full`` (a botocore ``service-2`` model) with only ``operations`` and the shapes they
    reach, without documentation."""
    shapes: Mapping[str, Any] = full["shapes"]
    keep: set[str] = set()

    def reach(name: str) -> None:
        if name in keep:
            return
        keep.add(name)
        shape = shapes[name]
        for ref in ("member", "key", "value"):
            if ref in shape:
                reach(shape[ref]["shape"])
        for member in shape.get("members", {}).values():
            reach(member["shape"])

    ops: dict[str, Any] = {}
    for name in operations:
        op = _undocumented(full["operations"][name])
        for ref in ("input", "output"):
            if ref in op:
                reach(op[ref]["shape"])
        for err in op.get("errors", ()):
            reach(err["shape"])
        ops[name] = op
    kept: dict[str, Any] = {}
    for name in sorted(keep):
        shape = _undocumented(shapes[name])
        if "members" in shape:
            shape["members"] = {k: _undocumented(v) for k, v in shape["members"].items()}
        kept[name] = shape
    return {
        "version": full["version"],
        "metadata": full["metadata"],
        "operations": ops,
        "shapes": kept,
    }


def trimmed_endpoints(full: Mapping[str, Any]) -> dict[str, Any]:
    """botocore's ``endpoints`` data (``full``) with only our services in each partition."""
    partitions = [
        {**p, "services": {k: v for k, v in p["services"].items() if k in OPERATIONS}}
        for p in full["partitions"]
    ]
    return {**full, "partitions": partitions}


def installed_endpoints() -> dict[str, Any]:
    """The installed botocore's own ``endpoints`` data."""
    import botocore.loaders

    path = Path(botocore.loaders.Loader.BUILTIN_DATA_PATH) / "endpoints.json"
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _undocumented(node: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in node.items() if k not in ("documentation", "documentationUrl")}


def installed_model(service: str) -> tuple[str, dict[str, Any]]:
    """The installed botocore's latest ``service-2`` model of ``service`` and its API version."""
    from botocore.loaders import Loader

    loader = Loader()
    version = loader.determine_latest_version(service, "service-2")
    return version, loader.load_service_model(service, "service-2", version)


def model_path(service: str, version: str) -> Path:
    return MODELS / service / version / "service-2.json"


def generate() -> list[Path]:
    """Write the trimmed models from the installed botocore (``python -m infra.aws``)."""
    written = []
    for service, operations in OPERATIONS.items():
        version, full = installed_model(service)
        path = model_path(service, version)
        path.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps(trimmed_model(full, operations), indent=1)
        path.write_text(text + "\n", encoding="utf-8")
        written.append(path)
    text = json.dumps(trimmed_endpoints(installed_endpoints()), indent=1)
    ENDPOINTS.write_text(text + "\n", encoding="utf-8")
    written.append(ENDPOINTS)
    return written


if __name__ == "__main__":
    for written in generate():
        print(written)
