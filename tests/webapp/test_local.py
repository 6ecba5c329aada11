"""The order page in local runs: the sandbox serves it on localhost and prints a link that
opens it in a desktop browser as the current sandbox user."""

from __future__ import annotations

import io
import json
import re
import urllib.request
from urllib.parse import parse_qs, urlsplit

from handlers.telegram.sandbox import Sandbox


def test_the_sandbox_serves_the_page_and_prints_a_signed_link() -> None:
    out = io.StringIO()
    sb = Sandbox(out=out, lang="en", demo=False)
    try:
        for line in (":as alice", ":page"):
            sb.handle(line)
        link = re.findall(r"open in a browser: (\S+)", out.getvalue())[-1]
        parts = urlsplit(link)
        assert parts.hostname == "127.0.0.1" and parts.path == "/app/"
        init = parse_qs(parts.fragment)["tgWebAppData"][0]
        page = urllib.request.urlopen(f"{parts.scheme}://{parts.netloc}/app/", timeout=10)
        assert page.status == 200 and "Content-Security-Policy" in page.headers
        request = urllib.request.Request(
            f"{parts.scheme}://{parts.netloc}/api/matches",
            data=b"{}",
            headers={"Authorization": f"tma {init}"},
            method="POST",
        )
        answer = json.loads(urllib.request.urlopen(request, timeout=10).read())
        assert answer["matches"] == [] and answer["lang"] == "ru"  # Alice, no match yet
    finally:
        sb.page.close()
        sb.h.close()
