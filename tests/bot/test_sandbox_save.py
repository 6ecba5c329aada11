"""The interactive sandbox keeps secrets as live play does (random salts and seeds, the local
beacon) and ':save DIR' writes the documents the bot sent, a dossier that verifies."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

from handlers.cli import main as cli
from handlers.telegram.sandbox import Sandbox, play_duel


def test_the_sandbox_saves_a_dossier_that_verifies(tmp_path: Path, capsys: Any) -> None:
    out = io.StringIO()
    sb = Sandbox(out=out, lang="en", demo=False)
    play_duel(sb)
    sb.handle(":as gm")
    sb.handle(":in group")
    sb.handle(":press 1")  # the final message's Dossier button
    sb.handle(f":save {tmp_path}")
    names = sorted(p.name for p in tmp_path.iterdir())
    assert any(n.endswith(".json") for n in names) and any(n.endswith(".md") for n in names)
    (json_path,) = [p for p in tmp_path.iterdir() if p.suffix == ".json"]
    dossier = json.loads(json_path.read_text())
    assert all(t["beacon"]["network"] == "local-test" for t in dossier["turns"])
    salts = [o["salt"] for t in dossier["turns"] for o in t["orders"] if not o["default"]]
    # random salts, not the demo's counters (%016x of 1, 2, 3...)
    assert salts and not any(re.fullmatch(r"0{8,}[0-9a-f]{1,8}", s) for s in salts)
    assert "saved" in out.getvalue()
    capsys.readouterr()
    assert cli(["verify", str(json_path)]) == 0
    assert "OK:" in capsys.readouterr().out
    sb.h.close()
