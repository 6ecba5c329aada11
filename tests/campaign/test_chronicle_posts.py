"""The chronicle's posts (docs/campaign.md "The chronicle"): packed within the limit, split at
section boundaries when they can be, numbered only when there are several."""

from __future__ import annotations

from engine.campaign.chronicle import BBCODE_POST_MAX, pack


def _number(i: int, n: int) -> str:
    return f"[{i}/{n}]"


def test_a_short_fight_is_one_unnumbered_post() -> None:
    assert pack(["title", "turn 1", "result"], BBCODE_POST_MAX, _number) == [
        "title\n\nturn 1\n\nresult"
    ]


def test_a_long_fight_splits_at_turns_into_numbered_posts_within_the_limit() -> None:
    turns = [f"Turn {i}\n" + "x" * 3000 for i in range(1, 9)]
    posts = pack(["Title", *turns], BBCODE_POST_MAX, _number)
    assert len(posts) == 3
    assert all(len(p) <= BBCODE_POST_MAX for p in posts)
    assert [p.split("\n", 1)[0] for p in posts] == ["[1/3]", "[2/3]", "[3/3]"]
    assert all(p.split("\n", 1)[1].startswith(("Title", "Turn")) for p in posts)  # at a turn
    joined = "".join(posts)
    assert all(f"Turn {i}\n" in joined for i in range(1, 9))


def test_a_section_longer_than_a_post_is_cut_at_line_ends() -> None:
    huge = "\n".join(f"line {i} " + "y" * 90 for i in range(300))
    posts = pack([huge], 10_000, _number)
    assert len(posts) > 1 and all(len(p) <= 10_000 for p in posts)
    body = "\n".join(p.split("\n", 1)[1] for p in posts)
    assert body == huge
