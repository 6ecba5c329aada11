"""Adversarial cases for the stores: DynamoDB errors a happy path never sees, and a SQLite
store path that points at something that is not (or not yet) a Sekundant store."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from botocore.exceptions import ClientError

from engine import usecases
from engine.errors import ConflictError, NotFoundError
from engine.ports import Owed
from infra.dynamodb import DynamoRepository
from infra.settings import Settings
from infra.sqlite import LAYOUT_VERSION, SqliteRepository, StoreOpenError
from infra.store import make_repository
from tests.storage.helpers import CHAT, GM, make_deps, started

# --------------------------------------------------------------------------- DynamoDB


def _cancelled(*codes: str) -> ClientError:
    return ClientError(
        {
            "Error": {
                "Code": "TransactionCanceledException",
                "Message": "Transaction cancelled, please refer cancellation reasons for"
                f" specific reasons [{', '.join(codes)}]",
            },
            "CancellationReasons": [{"Code": c} for c in codes],
        },
        "TransactWriteItems",
    )


class CancelWrites:
    """The repository's client, but every ``transact_write_items`` is cancelled with ``codes``
    (the first item is the match)."""

    def __init__(self, inner: Any, *codes: str) -> None:
        self.inner = inner
        self.codes = codes

    def transact_write_items(self, **kwargs: Any) -> Any:
        raise _cancelled(*self.codes)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


@pytest.mark.parametrize(
    "codes",
    [
        ("ThrottlingError", "None"),
        ("ProvisionedThroughputExceeded", "None"),
        ("TransactionConflict", "None"),
    ],
)
def test_a_throttled_create_is_not_reported_as_an_existing_match(
    dynamo_repo: DynamoRepository, codes: tuple[str, ...]
) -> None:
    """Found by reading ``create``: any cancelled transaction became ``ConflictError``, which
    means "this id exists" (the bot then tells the GM the duel exists, answers 200, and no
    retry ever creates it). Only a failed condition on the match item means that."""
    deps = make_deps(dynamo_repo)
    real = dynamo_repo.client
    dynamo_repo.client = CancelWrites(real, *codes)
    with pytest.raises(ClientError):
        usecases.create_match(deps, CHAT, GM, "coin", match_id="dup1")
    dynamo_repo.client = real
    assert dynamo_repo.active_in_chat(CHAT) == []
    created = usecases.create_match(deps, CHAT, GM, "coin", match_id="dup1")  # the retry
    with pytest.raises(ConflictError):  # and now it does exist
        usecases.create_match(deps, CHAT, GM, "coin", match_id="dup1")
    assert dynamo_repo.load("dup1").match == created


def test_a_throttled_save_writes_nothing_and_is_not_a_conflict(
    dynamo_repo: DynamoRepository,
) -> None:
    """A save with what goes with it (here a membership: the match has a new GM) is a
    transaction."""
    deps = make_deps(dynamo_repo)
    match = started(deps)
    real = dynamo_repo.client
    dynamo_repo.client = CancelWrites(real, "None", "ThrottlingError")
    handed = replace(match, gm_user_id=GM + 100)
    owed = Owed(match.id, "status:1", "status", CHAT, 1, 1, 0.0)
    with pytest.raises(ClientError):  # not ConflictError (not a ClientError)
        dynamo_repo.save(handed, expected_version=match.version, withdraw="p1", owe=[owed])
    dynamo_repo.client = real
    assert dynamo_repo.load(match.id).match == match


class ThrottleUpdates:
    """The repository's client, but every ``update_item`` is throttled."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def update_item(self, **kwargs: Any) -> Any:
        error = {"Error": {"Code": "ThrottlingException", "Message": "Rate exceeded"}}
        raise ClientError(error, "UpdateItem")  # type: ignore[arg-type]

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def test_a_match_saved_alone_is_one_conditional_update(dynamo_repo: DynamoRepository) -> None:
    """A save of the match item alone (nothing goes with it: a seal too, the orders being in
    the item) is one UpdateItem, not a transaction (half the write units); it keeps the
    conditions: a stale version is a conflict, a missing match is not found, a throttled one
    writes nothing and is neither."""
    deps = make_deps(dynamo_repo)
    match = started(deps)
    real = dynamo_repo.client
    calls: list[str] = []

    class Spy:
        def __getattr__(self, name: str) -> Any:
            calls.append(name)
            return getattr(real, name)

    dynamo_repo.client = Spy()
    saved = dynamo_repo.save(replace(match, ui={"status": 7}), expected_version=match.version)
    assert "update_item" in calls and "transact_write_items" not in calls
    assert saved.version == match.version + 1
    with pytest.raises(ConflictError):
        dynamo_repo.save(replace(match, ui={"status": 8}), expected_version=match.version)
    with pytest.raises(NotFoundError):
        dynamo_repo.save(replace(match, id="nope"), expected_version=1)
    dynamo_repo.client = ThrottleUpdates(real)
    with pytest.raises(ClientError):  # neither ConflictError nor NotFoundError
        dynamo_repo.save(replace(match, ui={"status": 9}), expected_version=saved.version)
    dynamo_repo.client = real
    assert dynamo_repo.load(match.id).match.ui == {"status": 7}


# --------------------------------------------------------------------------- SQLite


def _settings(path: Path) -> Settings:
    return Settings(store="sqlite", db_path=path)


def test_a_store_file_that_is_not_sqlite_is_refused_clearly_and_left_alone(
    tmp_path: Path,
) -> None:
    """Found by pointing SEKUNDANT_DB at a text file: ``sekundant run`` died with a
    sqlite3.DatabaseError traceback (exit 1) instead of a one-line usage error."""
    path = tmp_path / "notes.txt"
    path.write_text("my notes, not a database\n")
    with pytest.raises(StoreOpenError, match="SEKUNDANT_DB") as err:
        make_repository(_settings(path))
    assert str(path) in str(err.value) and "not an SQLite database" in str(err.value)
    assert isinstance(err.value, ValueError)  # what ``sekundant run`` reports as usage
    assert path.read_text() == "my notes, not a database\n"


def test_a_store_path_that_is_a_directory_is_refused_clearly(tmp_path: Path) -> None:
    with pytest.raises(StoreOpenError, match="SEKUNDANT_DB"):
        make_repository(_settings(tmp_path))


def test_an_sqlite_file_of_another_program_is_refused_and_left_alone(tmp_path: Path) -> None:
    """Opening it used to switch it to WAL, add our tables to it and stamp its
    ``user_version``: the wrong path in SEKUNDANT_DB changed another program's data."""
    path = tmp_path / "other.db"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE contacts (name TEXT)")
    db.execute("INSERT INTO contacts VALUES ('Ada')")
    db.commit()
    db.close()
    before = path.read_bytes()
    with pytest.raises(StoreOpenError, match="not a Sekundant store"):
        SqliteRepository(path)
    assert path.read_bytes() == before


def test_a_store_of_a_newer_layout_is_refused_and_not_downgraded(tmp_path: Path) -> None:
    path = tmp_path / "sekundant.sqlite3"
    SqliteRepository(path).close()
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {LAYOUT_VERSION + 1}")
    db.close()
    with pytest.raises(StoreOpenError, match="newer"):
        SqliteRepository(path)
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == LAYOUT_VERSION + 1
    db.close()


def test_an_existing_store_and_an_empty_file_open(tmp_path: Path) -> None:
    path = tmp_path / "sekundant.sqlite3"
    repo = SqliteRepository(path)
    match = started(make_deps(repo))
    repo.close()
    again = SqliteRepository(path)
    assert again.load(match.id).match == match
    again.close()
    empty = tmp_path / "empty.sqlite3"
    empty.touch()  # e.g. made by a deploy script: an empty file is a new database
    SqliteRepository(empty).close()


class FailingCommit:
    """A connection whose next COMMIT fails the way an I/O error can leave it: the statement
    fails and the transaction stays open (SQLite's docs: roll back explicitly then)."""

    def __init__(self, inner: sqlite3.Connection) -> None:
        self.inner = inner
        self.armed = True

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:
        if self.armed and sql == "COMMIT":
            self.armed = False
            raise sqlite3.OperationalError("disk I/O error")
        return self.inner.execute(sql, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def test_a_failed_commit_is_rolled_back_and_the_connection_stays_usable(
    sqlite_repo: SqliteRepository,
) -> None:
    """Found by reading ``_write``: a COMMIT that raised left the thread's connection inside
    the transaction, holding the write lock. Every later write of that thread failed ("cannot
    start a transaction within a transaction") and other processes waited on the lock."""
    deps = make_deps(sqlite_repo)
    match = started(deps)
    sqlite_repo._local.db = FailingCommit(sqlite_repo._db())
    with pytest.raises(sqlite3.OperationalError, match="disk I/O"):
        sqlite_repo.save(match, expected_version=match.version)
    assert sqlite_repo.load(match.id).match == match  # nothing half-written
    saved = sqlite_repo.save(match, expected_version=match.version)  # the same thread again
    other = SqliteRepository(sqlite_repo.path)  # another process's view
    assert other.load(match.id).match == saved
    other.close()


# --------------------------------------------------------------------------- settings

GOOD_TOKEN = "123456:AAH-not-a-real-token-0123456789"


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("SEKUNDANT_LANG", "de"),
        ("SEKUNDANT_STORE", "mysql"),
        ("TELEGRAM_BOT_TOKEN", "123456-AAH-not-a-real-token-0123456789"),
        ("TELEGRAM_API_BASE_URL", "ftp://api.example"),
    ],
)
def test_a_bad_setting_is_one_line_naming_it_with_exit_2(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    name: str,
    value: str,
) -> None:
    from handlers import cli

    monkeypatch.chdir(tmp_path)  # no .env of the developer's
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", GOOD_TOKEN)
    monkeypatch.setenv(name, value)
    assert cli.main(["run"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("sekundant run: ") and name in err
    assert "Traceback" not in err and "not-a-real-token" not in err


def test_a_store_file_that_is_not_sqlite_stops_run_with_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from handlers import cli

    path = tmp_path / "notes.txt"
    path.write_text("not a database")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", GOOD_TOKEN)
    monkeypatch.setenv("TELEGRAM_API_BASE_URL", "http://127.0.0.1:9")  # never reached
    monkeypatch.setenv("SEKUNDANT_STORE", "sqlite")
    monkeypatch.setenv("SEKUNDANT_DB", str(path))
    assert cli.main(["run"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "SEKUNDANT_DB" in err and str(path) in err
