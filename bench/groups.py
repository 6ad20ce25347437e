#!/usr/bin/env python
"""Time the answer groups of a class of written answers, and count groups per item.

    python bench/groups.py                   # 300 writeups of tools/make_class.py --written-only
    python bench/groups.py --count 100 --seed 2
    python bench/groups.py --batch OUT       # an existing finished batch folder

The class's written parts are graded in this process (InProcess reader: the batch's grading
processes would add minutes that are not grouping), into a folder shaped like `grader batch`'s;
then the groups are built as `grader groups` builds them, formulas evaluated in the reader's child
process, and the seconds that took are printed with the groups of every item.
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
import json
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _make_class():
    spec = importlib.util.spec_from_file_location("make_class", REPO / "tools" / "make_class.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("make_class", module)
    spec.loader.exec_module(module)
    return module


def graded_written_class(tmp: Path, *, count: int, seed: int, grading_seed: int = 11) -> tuple[Path, dict]:
    """A written-only class graded in this process into ``tmp/out`` (report.json per submission
    and grades.csv, as `grader batch` writes them); the folder and each submission's answer kinds."""
    from a2.written.process import InProcess
    from grader.reports import jsonout
    from grader.run.engine import grade
    from grader.run.rubric import load_rubric
    from grader.run.settings import GradingSettings

    make_class = _make_class()
    members = make_class.plan_written_class(count=count, seed=seed)
    classdir, out = tmp / "class", tmp / "out"
    make_class.write_class(classdir, members)
    written = [p.id for p in load_rubric().written]
    runner = InProcess()
    rows = []
    for m in members:
        report = grade(classdir / m.folder, GradingSettings(seed=grading_seed, only=written, written_runner=runner))
        doc = jsonout.to_json(report)
        doc["batch"] = {"status": "graded", "message": ""}
        folder = out / "submissions" / m.folder
        folder.mkdir(parents=True)
        (folder / "report.json").write_text(json.dumps(doc), encoding="utf-8")
        who = m.submitters[0]
        rows.append([m.folder, who[":name"], who[":sid"], who[":email"], "graded", f"{report.score:g}"])
    with open(out / "grades.csv", "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["submission", "names", "sids", "emails", "status", "total"])
        writer.writerows(rows)
    return out, {m.folder: dict(m.written or {}) for m in members}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=300)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--batch", type=Path, default=None, help="group this finished batch folder instead")
    args = parser.parse_args(argv)
    from grader.classroom.groups_command import build_groups

    with tempfile.TemporaryDirectory(prefix="groups-bench-") as tmp:
        out = args.batch
        if out is None:
            started = time.monotonic()
            out, _ = graded_written_class(Path(tmp), count=args.count, seed=args.seed)
            print(f"graded the written parts of {args.count} writeups in this process: {time.monotonic() - started:.1f} s")
        outcome = build_groups(out)
        print(f"grouping {outcome.submissions} submissions (formulas in the reader's child): {outcome.seconds:.1f} s")
        print(f"review items: {len(outcome.reviews)}")
        for slot, groups in outcome.groups.items():
            kinds = ", ".join(f"{g.size} {g.kind}" for g in groups)
            print(f"  {slot:8} {len(groups):3} groups  ({kinds})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
