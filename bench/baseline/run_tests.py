#!/usr/bin/env python
"""Run the baseline unittest checks on a submission with gradescope-utils' JSONTestRunner.

    python bench/baseline/run_tests.py SUBMISSION [--results results.json] [--quick]

What a course's run_autograder does without this project: copy the student's files next to
the support files, import them in this process and run the unittest suite, which writes
Gradescope's results.json. ``--quick`` leaves out the training tests (as ``--quick`` does for
the grader). Prints one JSON line: {"seconds": ..., "score": ..., "tests": ...}.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
STUDENT_FILES = ("word2vec.py", "sgd.py", "parser_transitions.py", "parser_model.py", "run.py")
QUICK_SKIPS = ("TestTraining",)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("submission", type=Path)
    parser.add_argument("--results", type=Path, default=Path("results.json"))
    parser.add_argument("--quick", action="store_true", help="leave out the training tests")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    results = args.results.resolve()
    from gradescope_utils.autograder_utils.json_test_runner import JSONTestRunner

    work = Path(tempfile.mkdtemp(prefix="baseline-"))
    try:
        for support in ("utils", "data"):
            shutil.copytree(REPO / "student_template" / support, work / support)
        for name in STUDENT_FILES:
            if (args.submission / name).is_file():
                shutil.copyfile(args.submission / name, work / name)
        os.chdir(work)
        sys.path[:0] = [str(work), str(HERE)]
        sys.argv = ["run.py"]  # run.py parses its arguments at import
        suite = unittest.defaultTestLoader.loadTestsFromName("assignment_tests")
        if args.quick:
            suite = unittest.TestSuite(t for t in _flatten(suite) if type(t).__name__ not in QUICK_SKIPS)
        with open(results, "w", encoding="utf-8") as stream:
            JSONTestRunner(visibility="visible", stream=stream).run(suite)
    finally:
        os.chdir(REPO)
        shutil.rmtree(work, ignore_errors=True)
    doc = json.loads(results.read_text(encoding="utf-8"))
    score = sum(t.get("score", 0) for t in doc.get("tests", []))
    print(json.dumps({"seconds": time.perf_counter() - started, "score": score,
                      "tests": len(doc.get("tests", []))}))
    return 0


def _flatten(suite: unittest.TestSuite):
    for item in suite:
        if isinstance(item, unittest.TestSuite):
            yield from _flatten(item)
        else:
            yield item


if __name__ == "__main__":
    sys.exit(main())
