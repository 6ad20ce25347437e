#!/usr/bin/env python
"""Benchmark: train_uas's dev UAS at each training size over seeds, to derive each size's floor.
Prints figures (nothing asserted).

    .venv/bin/python bench/uas_floors.py                      # the reference, 6 seeds per size
    .venv/bin/python bench/uas_floors.py --seeds 4 --submission tests/submissions/buggy/run_no_zero_grad

Each run is the real check (a2/checks/training_uas.py's train_uas with the engine and the
in-process runner) with its size forced to one of a2/checks/helpers/training_size.py's SIZES; a
submission folder holds files laid over the reference's (as the tests assemble them).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from a2.checks.helpers import training_size  # noqa: E402
from grader.run.engine import grade  # noqa: E402
from grader.run.settings import GradingSettings  # noqa: E402
from grader.sandbox import InProcessRunner  # noqa: E402


def assemble(overlay: Path | None, target: Path) -> Path:
    shutil.copytree(REPO / "reference", target)
    if overlay is not None:
        for path in overlay.glob("*.py"):
            shutil.copyfile(path, target / path.name)
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=6)
    parser.add_argument("--submission", type=Path, default=None, help="files laid over the reference's")
    parser.add_argument("--sizes", type=int, nargs="*", default=None, help="indexes into SIZES (default: all)")
    args = parser.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; "
          f"submission {args.submission or 'reference'}")
    chosen = [training_size.SIZES[i] for i in (args.sizes if args.sizes is not None else range(len(training_size.SIZES)))]
    with tempfile.TemporaryDirectory(prefix="a2grader-floors-") as tmp:
        upload = assemble(args.submission, Path(tmp) / "submission")
        for size in chosen:
            training_size.size_for = lambda ctx, seed, lr, substitute=(), size=size: (size, "")  # type: ignore[assignment]
            values, seconds = [], []
            for seed in range(args.seeds):
                started = time.monotonic()
                report = grade(upload, GradingSettings(seed=seed, only=["train_uas"], runner_factory=InProcessRunner,
                                                       include_written=False))
                seconds.append(time.monotonic() - started)
                board = dict(report.leaderboard)
                if "dev UAS" not in board:  # say why (a broken bench must not read as "no model")
                    print("  " + " ".join(f"{c.id}: {c.outcome.feedback}" for c in report.checks)[:600], flush=True)
                values.append(board.get("dev UAS", float("nan")))
            finite = [v for v in values if v == v]
            spread = (f"min {min(finite):.2f} mean {statistics.mean(finite):.2f} sd "
                      f"{statistics.pstdev(finite):.2f}" if finite else "no model")
            print(f"{size.describe()}, hidden {size.hidden}: UAS {', '.join(f'{v:.2f}' for v in values)} "
                  f"({spread}); floor {size.floor:.0f}; {statistics.mean(seconds):.1f} s a run "
                  f"(load {os.getloadavg()[0]:.2f})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
