"""The campaign storage contract (``engine/ports.CampaignRepository``: rosters, libraries,
results), run unchanged against memory, SQLite and DynamoDB (moto) (docs/storage.md)."""

from __future__ import annotations

from typing import Any

from engine.campaign.roster import entry_doc
from engine.ports import CampaignRepository, MatchRepository

CHAT, OTHER_CHAT = -1001, -1002


def _campaign(repo: MatchRepository) -> CampaignRepository:
    assert isinstance(repo, CampaignRepository)
    return repo


def _result(match_id: str, chat: int, users: tuple[int, ...], ended: float) -> dict[str, Any]:
    teams = [[{"key": f"u{u}", "name": f"P{u}", "user_id": u}] for u in users]
    teams.append([{"key": "npc:Raider", "name": "Raider", "user_id": None}])
    return {
        "schema": 1,
        "match_id": match_id,
        "chat_id": chat,
        "ruleset": "pistol",
        "ended_at": ended,
        "teams": teams,
        "ranks": [1, *([2] * len(users))],
    }


def test_a_roster_keeps_characters_per_user_and_ruleset(repo: MatchRepository) -> None:
    store = _campaign(repo)
    ember = entry_doc("dragons", "Ember", {"name": "Ember", "speed": 6}, 1.0)
    ash = entry_doc("dragons", "ash", {"name": "ash"}, 2.0)
    duelist = entry_doc("pistol", "Duelist", {"weapon": "pistol"}, 3.0)
    store.put_characters(1, [ember, ash])
    store.put_characters(1, [duelist])
    store.put_characters(2, [entry_doc("dragons", "Other", {}, 4.0)])
    assert [e["name"] for e in store.roster(1, "dragons")] == ["ash", "Ember"]
    assert store.roster(1, "dragons")[1] == ember  # the document exactly, sheet and all
    assert [e["name"] for e in store.roster(1, "pistol")] == ["Duelist"]
    assert store.roster(3, "dragons") == []


def test_a_character_of_the_same_name_is_replaced_and_one_is_deleted(
    repo: MatchRepository,
) -> None:
    store = _campaign(repo)
    store.put_characters(1, [entry_doc("pistol", "Duelist", {"weapon": "pistol"}, 1.0)])
    store.put_characters(1, [entry_doc("pistol", "DUELIST", {"weapon": "rifle"}, 2.0)])
    (only,) = store.roster(1, "pistol")
    assert only["sheet"] == {"weapon": "rifle"}
    assert store.delete_character(1, "pistol", "duelist") is True
    assert store.delete_character(1, "pistol", "duelist") is False
    assert store.roster(1, "pistol") == []


def test_a_library_is_replaced_whole_and_removed(repo: MatchRepository) -> None:
    store = _campaign(repo)
    assert store.library(CHAT, "dragons") is None
    first = {"ruleset": "dragons", "npcs": [{"name": "Raider", "sheet": {"x": 1}}]}
    second = {"ruleset": "dragons", "characters": [{"name": "Ember", "sheet": {"y": "ы"}}]}
    store.put_library(CHAT, "dragons", first)
    store.put_library(CHAT, "dragons", second)
    assert store.library(CHAT, "dragons") == second
    assert store.library(OTHER_CHAT, "dragons") is None
    assert store.library(CHAT, "pistol") is None
    assert store.delete_library(CHAT, "dragons") is True
    assert store.delete_library(CHAT, "dragons") is False
    assert store.library(CHAT, "dragons") is None


def test_results_are_kept_per_group_and_found_by_their_players(repo: MatchRepository) -> None:
    store = _campaign(repo)
    store.put_result(_result("m1", CHAT, (1, 2), 10.0))
    store.put_result(_result("m2", CHAT, (1, 3), 20.0))
    store.put_result(_result("m3", OTHER_CHAT, (1,), 30.0))
    assert sorted(r["match_id"] for r in store.results(CHAT)) == ["m1", "m2"]
    assert sorted(r["match_id"] for r in store.user_results(1)) == ["m1", "m2", "m3"]
    assert [r["match_id"] for r in store.user_results(3)] == ["m2"]
    assert store.results(-5) == [] and store.user_results(99) == []


def test_a_result_replaced_or_deleted_leaves_no_stale_copy(repo: MatchRepository) -> None:
    store = _campaign(repo)
    store.put_result(_result("m1", CHAT, (1, 2), 10.0))
    store.put_result(_result("m1", CHAT, (1, 4), 11.0))  # player 2 replaced by 4
    (only,) = store.results(CHAT)
    assert only["ended_at"] == 11.0
    assert store.user_results(2) == [] and len(store.user_results(4)) == 1
    assert store.delete_result(CHAT, "m1") is True
    assert store.delete_result(CHAT, "m1") is False
    assert store.results(CHAT) == [] and store.user_results(1) == []


def test_campaign_items_do_not_disturb_matches_of_the_same_users_and_chats(
    repo: MatchRepository,
) -> None:
    from tests.storage.helpers import GM, lobby, make_deps

    deps = make_deps(repo)
    m = lobby(deps)
    store = _campaign(repo)
    store.put_characters(GM, [entry_doc("pistol", "Duelist", {"weapon": "pistol"}, 1.0)])
    store.put_result(_result("old", m.chat_id, (GM,), 1.0))
    store.put_library(m.chat_id, "pistol", {"ruleset": "pistol"})
    assert [x.id for x in repo.active_for_user(GM)] == [m.id]
    assert [x.id for x in repo.active_in_chat(m.chat_id)] == [m.id]
