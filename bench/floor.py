#!/usr/bin/env python
"""The benchmark's floor: the same checks' computations in this one process, no isolation.

    python bench/floor.py SUBMISSION [--seed N] [--quick]

Grades SUBMISSION with the engine and an InProcessRunner (the Sandbox's in-process twin: the
same probes and wire encoding, no worker process, no limits) and prints one JSON line:
{"import_s": ..., "grade_s": ..., "score": ..., "max_score": ..., "checks": {id: seconds}}.
The imports (torch, numpy, the grader, the reference) are timed apart: ``grade_s`` is the floor.
Student code runs on one BLAS/OpenMP thread, as in the sandbox's worker, so that the comparison
measures isolation and not thread counts. Only for trusted code: a hang here hangs the process.
"""

from __future__ import annotations

import os

for _name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ[_name] = "1"

import argparse
import json
import sys
import time
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("submission", type=Path)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="skip the checks that train a parser")
    args = parser.parse_args(argv)

    started = time.perf_counter()
    import torch

    from a2.reference import load_reference
    from grader.classroom.batch import quick_checks
    from grader.run.check_api import all_checks
    from grader.run.engine import grade
    from grader.run.rubric import load_rubric
    from grader.run.settings import GradingSettings
    from grader.sandbox import InProcessRunner

    torch.set_num_threads(1)
    rubric = load_rubric(registered=set(all_checks()))
    load_reference()
    imported = time.perf_counter()
    only = quick_checks(rubric) if args.quick else None
    settings = GradingSettings(rubric=rubric, seed=args.seed, only=only,
                               runner_factory=lambda folder: InProcessRunner(folder))
    report = grade(args.submission, settings)
    done = time.perf_counter()
    print(json.dumps({"import_s": imported - started, "grade_s": done - imported,
                      "score": report.score, "max_score": report.max_score,
                      "checks": {c.id: round(c.seconds, 3) for c in report.checks}}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
