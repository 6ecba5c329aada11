"""What a new Lambda container imports before it processes an update (issue 5's cold start,
measured by ``make bench``; this guards only the import graph, not time).

pydantic costs about a quarter of the cold-start baseline to import, and wiring the webhook
validates nothing with it (settings are a dataclass, a stored clock is read as stored), so it
must stay out; the rulesets (and pydantic with them) load when an update needs one. So does
the beacon's BLS library (py-arkworks-bls12381; py_ecc before it): only a resolution checks a
round.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.bench.bench_lambda import WIRED

ROOT = Path(__file__).resolve().parents[2]
REPORT = """
import sys
print(",".join(sorted({m.split(".")[0] for m in sys.modules} & {"pydantic", "annotated_types",
    "py_arkworks_bls12381", "py_ecc"})))
print(",".join(sorted(m for m in sys.modules if m.startswith("engine.rulesets."))))
"""


def test_wiring_the_webhook_imports_neither_pydantic_nor_a_ruleset_nor_the_bls_library() -> None:
    done = subprocess.run(
        [sys.executable, "-c", WIRED + REPORT],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    heavy, rulesets = done.stdout.splitlines()[-2:]
    assert heavy == ""
    assert rulesets == ""
