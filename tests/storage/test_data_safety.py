"""Data safety: old documents migrate on load, a corrupt record is reported, flagged and
left as it is (and hides no other match), and no sealed order leaks into public paths."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from engine import codec, usecases
from engine.errors import CorruptRecordError
from engine.match import Phase, public_view
from engine.ports import MatchRepository
from tests.storage.conftest import Backdoor
from tests.storage.helpers import CHAT, P1, P2, make_deps, started

FIXTURE = Path(__file__).parent / "fixtures" / "match_v1.json"


def v1_doc() -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(FIXTURE.read_text(encoding="utf-8"))
    return doc


# --------------------------------------------------------------------------- migration


def test_the_oldest_schema_fixture_loads_through_every_store(
    repo: MatchRepository, backdoor: Backdoor
) -> None:
    doc = v1_doc()
    assert doc["schema"] == 1  # the oldest layout ever stored
    backdoor.put_raw_match(doc)
    m = repo.load("v1match").match
    assert (m.id, m.chat_id, m.gm_user_id, m.ruleset, m.phase) == (
        "v1match",
        -1009876543210,
        501,
        "pistol",
        Phase.LOBBY,
    )
    assert [s.name for s in m.seats] == ["Онегин", "Ленский"]
    assert m.seats[1].reachable is False
    assert m.ui == {"lobby_message_id": 77}
    assert m.version == 3
    # Fields added after schema 1 take their defaults, and a save writes the current schema.
    assert m.audit == ()
    saved = repo.save(m, expected_version=3)
    assert codec.match_to_doc(saved)["schema"] == codec.SCHEMA_VERSION
    assert repo.load("v1match").match == saved


def test_loading_an_old_document_goes_through_the_migration_step(
    repo: MatchRepository, backdoor: Backdoor, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With a (hypothetical) schema 2 that renames the lobby message key, the v1 fixture is
    upgraded by ``MIGRATIONS[1]`` on load in every store."""
    if codec.SCHEMA_VERSION != 1:
        pytest.skip("real migrations exist: the oldest-fixture test above exercises them")

    def v1_to_v2(doc: dict[str, Any]) -> dict[str, Any]:
        ui = dict(doc.get("ui") or {})
        ui["lobby"] = ui.pop("lobby_message_id", None)
        return doc | {"ui": ui, "schema": 2}

    monkeypatch.setattr(codec, "SCHEMA_VERSION", 2)
    monkeypatch.setattr(codec, "MIGRATIONS", {1: v1_to_v2})
    backdoor.put_raw_match(v1_doc())
    assert repo.load("v1match").match.ui == {"lobby": 77}


def test_a_document_newer_than_the_code_is_refused_and_flagged(
    repo: MatchRepository, backdoor: Backdoor
) -> None:
    backdoor.put_raw_match(v1_doc() | {"schema": codec.SCHEMA_VERSION + 1})
    with pytest.raises(CorruptRecordError, match="newer"):
        repo.load("v1match")
    assert "newer" in (backdoor.attention("v1match") or "")


# --------------------------------------------------------------------------- corrupt records


def test_a_corrupt_match_is_logged_flagged_kept_and_hides_no_other_match(
    repo: MatchRepository, backdoor: Backdoor, caplog: pytest.LogCaptureFixture
) -> None:
    deps = make_deps(repo)
    good = started(deps)
    bad = started(deps)
    backdoor.corrupt_match(bad.id)
    damaged = backdoor.raw_doc(bad.id)
    with (
        caplog.at_level(logging.ERROR, logger="sekundant.storage"),
        pytest.raises(CorruptRecordError) as err,
    ):
        repo.load(bad.id)
    assert err.value.match_id == bad.id
    assert any(bad.id in r.getMessage() and r.levelno == logging.ERROR for r in caplog.records)
    assert backdoor.attention(bad.id)  # marked for the GM
    assert backdoor.raw_doc(bad.id) == damaged  # nothing overwritten
    # The other match is untouched and still listed; the corrupt one is skipped, not fatal.
    assert repo.load(good.id).match == good
    assert [m.id for m in repo.active_in_chat(CHAT)] == [good.id]
    assert [m.id for m in repo.active_for_user(P1)] == [good.id]
    assert backdoor.attention(good.id) is None


def test_a_corrupt_sealed_order_flags_its_match_which_the_group_still_sees(
    repo: MatchRepository, backdoor: Backdoor
) -> None:
    deps = make_deps(repo)
    other = started(deps)
    m = started(deps)
    usecases.seal_order(deps, m.id, P1, "p1", {"call": 2, "note": "x"})
    backdoor.corrupt_order(m.id, "p1")
    with pytest.raises(CorruptRecordError):
        repo.load(m.id)
    listed = {x.id: x for x in repo.active_in_chat(CHAT)}
    assert listed[m.id].attention
    assert listed[other.id].attention is None
    assert repo.load(other.id).match.attention is None


def test_a_corrupt_turn_record_fails_history_only_and_flags_the_match(
    repo: MatchRepository, backdoor: Backdoor
) -> None:
    deps = make_deps(repo)
    m = started(deps)
    backdoor.corrupt_record(m.id, 0)
    with pytest.raises(CorruptRecordError):
        repo.history(m.id)
    loaded = repo.load(m.id).match
    assert loaded.attention
    assert loaded.turn == m.turn


# --------------------------------------------------------------------------- secrecy


def test_a_sealed_order_is_seen_only_by_its_owner_and_the_resolution(
    repo: MatchRepository, backdoor: Backdoor
) -> None:
    deps = make_deps(repo)
    m = started(deps)
    secret = "ambush-from-the-birches-4711"
    sealed = usecases.seal_order(deps, m.id, P1, "p1", {"call": 6, "note": secret}).order
    after = repo.load(m.id).match
    public_paths = {
        "public_view": json.dumps(public_view(after), ensure_ascii=False),
        "match document": json.dumps(codec.match_to_doc(after), ensure_ascii=False),
        "stored match record": backdoor.raw_match(m.id),
        "active_in_chat": repr(repo.active_in_chat(CHAT)),
        "active_for_user": repr(repo.active_for_user(P2)),
        "due": repr(repo.due(after.created_at + 10**9)),
        "fingerprints": repr(usecases.sealed_fingerprints(deps, m.id)),
        "history": repr(repo.history(m.id)),
    }
    for path, text in public_paths.items():
        assert secret not in text, f"the sealed order leaks through {path}"
        assert sealed.salt not in text, f"the order's salt leaks through {path}"
    assert after.sealed == ("p1",)  # who sealed is public, never what
    assert [o.order["note"] for o in usecases.my_orders(deps, m.id, P1)] == [secret]
    assert usecases.my_orders(deps, m.id, P2) == []
    # The resolution reveals it (with the salt, so the fingerprint can be checked).
    record = usecases.seal_order(deps, m.id, P2, "p2", {"call": 1, "note": "wait"}).record
    assert record is not None
    revealed = {o.pid: o for o in record.orders}["p1"]
    assert (revealed.order["note"], revealed.salt) == (secret, sealed.salt)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("missed", [1]),
        ("seats", [["p1"]]),
        ("ui", 7),
        ("audit", [3]),
        ("clock", {"turn_hours": 4}),  # a key no ClockConfig field has
        ("clock", {"turn_seconds": "soon"}),
    ],
)
def test_a_field_of_the_wrong_shape_is_a_corrupt_record_not_a_crash(field: str, value: Any) -> None:
    """A list where a mapping belongs raised AttributeError (``.items()``, ``.get``), which
    the loader did not catch: the match was never flagged for the GM."""
    doc = v1_doc()
    doc[field] = value
    with pytest.raises(CorruptRecordError) as err:
        codec.match_from_doc(doc)
    assert err.value.match_id == "v1match"


def test_a_stored_clock_is_read_with_its_numbers_as_ints() -> None:
    """Stored clocks are not validated again when read (engine.clock.clock_config), so the
    loader hands the clock arithmetic ints, whatever JSON number form was stored."""
    doc = v1_doc()
    doc["clock"] = {"turn_seconds": 7200.0, "max_extensions_total": "3"}
    assert codec.match_from_doc(doc).clock == {"turn_seconds": 7200, "max_extensions_total": 3}
