"""``make bench``: every ``tests/bench/bench_*.py`` module's ``main()``, in name order.

Each prints its figures with the target beside them. Benchmarks measure; they never fail the
build (targets are tracked here, not asserted in tests).
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
import time

import tests.bench as package


def main() -> int:
    names = sorted(
        m.name for m in pkgutil.iter_modules(package.__path__) if m.name.startswith("bench_")
    )
    only = set(sys.argv[1:])
    for name in names:
        if only and name.removeprefix("bench_") not in only:
            continue
        print(f"== {name.removeprefix('bench_')}", flush=True)
        started = time.perf_counter()
        importlib.import_module(f"tests.bench.{name}").main()
        print(f"   ({time.perf_counter() - started:.1f} s)\n", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
