"""The repository stands alone: a user's clone has nothing beside it, so no tracked file names
an absolute path of the machine it was written on or a folder outside the repository."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCANNED = ("engine", "handlers", "infra", "tests", "docs", "examples", ".ci")
SCANNED_FILES = ("Makefile", "README.md", "pyproject.toml", "template.yaml")
# Built from parts so that this file does not match itself.
FORBIDDEN = re.compile(
    "|".join(
        (
            r"(?<![\w.~-])/" + "(?:work|root|home|Users|mnt|opt/[a-z]+)" + r"/[\w.-]",
            r"\.\./" + "shared",
            r"(?<![\w/-])" + "shared/" + "(?:rules|notes|fixtures|seeds|hooks)",
            r"\b[A-Z]:" + r"\\\\?" + "(?:Users|work)",
        )
    )
)


def tracked_files() -> list[Path]:
    """The files git tracks under the scanned folders (every file there without git)."""
    try:
        out = subprocess.run(
            ["git", "ls-files", "-z", *SCANNED, *SCANNED_FILES],
            cwd=ROOT,
            capture_output=True,
            check=True,
        ).stdout
        return [ROOT / name for name in out.decode().split("\0") if name]
    except (OSError, subprocess.CalledProcessError):
        found = [p for d in SCANNED for p in (ROOT / d).rglob("*") if p.is_file()]
        return found + [ROOT / f for f in SCANNED_FILES]


def test_no_tracked_file_names_a_path_outside_the_repository() -> None:
    files = tracked_files()
    assert len(files) > 100  # the scan sees the repository, not an empty list
    offenders = []
    for path in files:
        if "__pycache__" in path.parts or not path.is_file():
            continue
        text = path.read_bytes().decode("utf-8", errors="replace")
        for lineno, line in enumerate(text.splitlines(), 1):
            if FORBIDDEN.search(line):
                offenders.append(f"{path.relative_to(ROOT)}:{lineno}: {line.strip()[:120]}")
    assert offenders == []


def test_the_pattern_catches_what_it_is_for() -> None:
    """The check itself can fail: each kind of outside path is caught, ordinary text is not."""
    caught = [
        "/" + "work/shared/fixtures/x.json",
        "../" + "shared/" + "rules/pistol-duel.md",
        "``" + "shared/" + "notes/prior-art.md``",
        "/" + "home/alice/project",
        "/" + "root/.cache/x",
    ]
    passed = ["docs/rules/pistol.md", "a shared/sealed order", "/tmp/x", "/webhook", "1/2"]
    assert all(FORBIDDEN.search(s) for s in caught)
    assert not any(FORBIDDEN.search(s) for s in passed)
