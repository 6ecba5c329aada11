"""Choose the repository adapter from the settings (``SEKUNDANT_STORE``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine.ports import MatchRepository
from infra.settings import Settings, default_db_path


def make_repository(settings: Settings, **overrides: Any) -> MatchRepository:
    """The repository ``settings.store`` names. ``overrides`` replace settings for tests and
    tools: ``store``, ``path`` (SQLite file), ``client`` (a boto3 DynamoDB client), ``table``.

    The DynamoDB client is botocore's (:mod:`infra.aws`), so region, credentials and the
    endpoint (``AWS_ENDPOINT_URL_DYNAMODB``, e.g. for DynamoDB Local) come from the
    environment."""
    store = overrides.pop("store", settings.store)
    if store == "memory":
        from infra.memory import MemoryRepository

        return MemoryRepository()
    if store == "sqlite":
        from infra.sqlite import SqliteRepository

        path = overrides.pop("path", None) or settings.db_path or default_db_path()
        return SqliteRepository(Path(path))
    if store == "dynamodb":
        from infra.dynamodb import DynamoRepository

        if settings.pack_version is not None:
            from infra import docpack

            docpack.write_with(settings.pack_version)
        client = overrides.pop("client", None)
        if client is None:
            from infra import aws

            client = aws.client("dynamodb")
        return DynamoRepository(client, str(overrides.pop("table", settings.table)))
    raise ValueError(f"SEKUNDANT_STORE: unknown store {store!r} (sqlite, dynamodb or memory)")
