#!/usr/bin/env python
"""Benchmark: how fast the grader is, against what it costs without it. Prints figures.

From the repository root (about 5 minutes on 2 cores; --quick about 2):

    .venv/bin/python bench/run.py                # all four comparisons
    .venv/bin/python bench/run.py --quick        # every comparison on the checks that do not train
    .venv/bin/python bench/run.py --full-batch   # comparison 3 with training too (~30 min)
    .venv/bin/python bench/run.py --only 1 3     # some comparisons
    .venv/bin/python bench/run.py --only 1 --starts --repeat 5   # 1b: cold against forked workers

1. `grader grade` of the reference and of a buggy submission, end to end (a fresh process,
   the sandboxed worker, results.json), against the floor: the same checks run by the engine
   in one process through the InProcessRunner (bench/floor.py), imports timed apart.
2. `grader check` latency (to the first check's line, and in all) against
   `python -c "import torch, numpy"`.
3. `grader batch` throughput on the 20 submissions of tools/make_class.py with 1 and 2 workers
   (the quick checks unless --full-batch).
4. The coding checks written as a course would without this project (bench/baseline: unittest
   cases in-process, gradescope-utils' JSONTestRunner) against the grader on the same coding
   checks (`grader grade`'s engine in a fresh process with its sandbox; `grader grade` itself
   also grades the written answers, shown beside it).

Each figure is one run (--repeat N takes the median of N). Targets: grading within 1.3x of the
floor, batch scaling >= 1.7x on 2 workers, grading no slower than 1.2x the unittest baseline.
Where a comparison is off target, the per-check breakdown says where the time goes. The
machine's load is printed first: figures from a busy machine are not comparable.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from a2.registry import STUDENT_FILES, WRITTEN_FILES

REPO = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
BUG = "model_no_relu"          # a realistic bug that still trains: every check runs in full
SEED = 20240601
TARGET_FLOOR_RATIO = 1.3
TARGET_SCALING = 1.7
TARGET_BASELINE_RATIO = 1.2
#: Per-check differences shown in a breakdown.
BREAKDOWN_ROWS = 6
#: Checks that cost less than this more than in the floor are left out of a breakdown.
MIN_EXTRA_S = 0.05
#: Environment of every measured command: Python output unbuffered, so that line times are real.
ENV = {**os.environ, "PYTHONUNBUFFERED": "1", "MPLBACKEND": "Agg"}


def run(command: list[str], *, cwd: Path = REPO, timeout: float = 3600) -> tuple[float, str]:
    """Wall-clock seconds of ``command`` and its stdout; raises if it fails."""
    started = time.perf_counter()
    proc = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=ENV,
                          check=False)
    seconds = time.perf_counter() - started
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} exited with {proc.returncode}:\n{proc.stdout[-2000:]}\n"
                           f"{proc.stderr[-2000:]}")
    return seconds, proc.stdout


def median_of(repeat: int, measure: Callable[[], tuple[float, dict]]) -> tuple[float, dict]:
    """The median time of ``repeat`` measurements, and the details of the last one."""
    times, details = [], {}
    for _ in range(repeat):
        seconds, details = measure()
        times.append(seconds)
    if repeat > 1:
        print(f"  ({repeat} runs: min {min(times):.2f} s, median {statistics.median(times):.2f} s; "
              f"{', '.join(f'{t:.2f}' for t in times)}; load {os.getloadavg()[0]:.2f})", flush=True)
    return statistics.median(times), details


def table(header: list[str], rows: list[list[str]]) -> None:
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print()


def verdict(value: float, target: float, *, at_most: bool) -> str:
    met = value <= target if at_most else value >= target
    return f"{'met' if met else 'MISSED'} ({'<=' if at_most else '>='} {target:g}x)"


# -- the submissions ---------------------------------------------------------------------------


def make_submissions(work: Path) -> dict[str, Path]:
    reference = work / "reference"
    reference.mkdir()
    for name in (*STUDENT_FILES, *WRITTEN_FILES):
        if (REPO / "reference" / name).is_file():       # answers.txt is a student's choice, not the reference's
            shutil.copyfile(REPO / "reference" / name, reference / name)
    buggy = work / "buggy"
    shutil.copytree(reference, buggy)
    for path in (REPO / "tests" / "submissions" / "buggy" / BUG).glob("*.py"):
        shutil.copyfile(path, buggy / path.name)
    template = work / "template"
    template.mkdir()
    for name in (*STUDENT_FILES, *WRITTEN_FILES):
        if (REPO / "student_template" / name).is_file():
            shutil.copyfile(REPO / "student_template" / name, template / name)
    return {"reference": reference, f"buggy ({BUG})": buggy, "template": template}


# -- 1. grading against the floor --------------------------------------------------------------


def check_ids(*, quick: bool, code_only: bool) -> list[str] | None:
    """The ids to grade: None for everything (`grader grade`), else a selection."""
    if not quick and not code_only:
        return None
    from grader.classroom.batch import quick_checks, selectable_ids
    from grader.run.rubric import load_rubric

    rubric = load_rubric()
    ids = quick_checks(rubric) if quick else selectable_ids(rubric)
    code = {s.id for s in rubric.checks}
    return [i for i in ids if i in code] if code_only else list(ids)


def grade_end_to_end(submission: Path, work: Path, only: list[str] | None) -> tuple[float, dict]:
    """`grader grade` (every check) or, for a selection, the same engine in the same kind of
    process (`python -m grader.classroom.batch`, what `grader batch` runs per submission): a fresh
    interpreter, the sandboxed worker, results.json."""
    if only is not None:
        folder = work / f"e2e-{submission.name}"
        shutil.rmtree(folder, ignore_errors=True)
        seconds, _ = run([PYTHON, "-m", "grader.classroom.batch", "--submission", str(submission), "--folder",
                          str(folder), "--seed", str(SEED), *(arg for check_id in only for arg in ("--only", check_id))])
        doc = json.loads((folder / "report.json").read_text())
    else:
        seconds, out = run([PYTHON, "-m", "grader", "grade", str(submission), "--results",
                            str(work / f"results-{submission.name}.json"), "--seed", str(SEED), "--json"])
        doc = json.loads(out)
    return seconds, {"score": doc["score"], "engine_s": doc["seconds"],
                     "checks": {c["id"]: c["seconds"] for c in doc["checks"]}}


def grade_floor(submission: Path, quick: bool) -> tuple[float, dict]:
    _, out = run([PYTHON, str(REPO / "bench" / "floor.py"), str(submission), "--seed", str(SEED),
                  *(["--quick"] if quick else [])])
    doc = json.loads(out.strip().splitlines()[-1])
    return doc["grade_s"], doc


def breakdown(e2e: dict, floor: dict, e2e_seconds: float, floor_doc: dict) -> None:
    """Where the end-to-end time goes beyond the floor: outside the checks, and per check."""
    inside = sum(e2e["checks"].values())
    rows = [["process start and imports (interpreter, grader, torch), writing results.json",
             f"{e2e_seconds - e2e['engine_s']:.2f}", f"{floor_doc['import_s']:.2f} (not in the floor)"],
            ["engine outside the checks: reference, rubric, copying the submission, sandbox set-up",
             f"{e2e['engine_s'] - inside:.2f}", f"{floor_doc['grade_s'] - sum(floor_doc['checks'].values()):.2f}"]]
    extra = sorted(e2e["checks"], key=lambda c: e2e["checks"][c] - floor_doc["checks"].get(c, 0.0),
                   reverse=True)
    for check_id in extra[:BREAKDOWN_ROWS]:
        if e2e["checks"][check_id] - floor_doc["checks"].get(check_id, 0.0) < MIN_EXTRA_S:
            break
        rows.append([f"check {check_id}", f"{e2e['checks'][check_id]:.2f}",
                     f"{floor_doc['checks'].get(check_id, 0.0):.2f}"])
    table(["where the time goes", "end to end (s)", "floor (s)"], rows)


def compare_floor(subs: dict[str, Path], work: Path, *, quick: bool, repeat: int) -> dict[str, float]:
    print(f"## 1. `grader grade` end to end against the floor ({'quick checks' if quick else 'every check'})\n")
    rows, e2e_times = [], {}
    details = []
    for label in list(subs)[:2]:
        sub = subs[label]
        e2e_s, e2e = median_of(repeat, lambda sub=sub: grade_end_to_end(
            sub, work, check_ids(quick=quick, code_only=False)))
        floor_s, floor = median_of(repeat, lambda sub=sub: grade_floor(sub, quick))
        e2e_times[label] = e2e_s
        details.append((label, e2e, floor, e2e_s))
        same = "yes" if abs(e2e["score"] - floor["score"]) < 1e-9 else f"NO ({e2e['score']} vs {floor['score']})"
        rows.append([label, f"{e2e_s:.1f}", f"{floor_s:.1f}", f"{floor_s + floor['import_s']:.1f}",
                     f"{e2e_s / floor_s:.2f}x", verdict(e2e_s / floor_s, TARGET_FLOOR_RATIO, at_most=True),
                     same])
    table(["submission", "grade (s)", "floor (s)", "floor + imports (s)", "ratio", "target", "same score"], rows)
    for label, e2e, floor, e2e_s in details:
        print(f"Breakdown for {label}:\n")
        breakdown(e2e, floor, e2e_s, floor)
    return e2e_times


def compare_starts(subs: dict[str, Path], work: Path, *, quick: bool, repeat: int) -> None:
    """Comparison 1 for the reference with the workers started cold and forked by the fork server
    (A2GRADER_WORKER_START), the three measured in turn in each round so that a busy machine's
    load falls on all alike; the minimum and the median of the rounds."""
    print(f"## 1b. the reference, workers started cold or forked, against the floor ({repeat} rounds)\n")
    sub, only = subs["reference"], check_ids(quick=quick, code_only=False)
    times: dict[str, list[float]] = {"floor": [], "cold": [], "fork": []}
    for _ in range(repeat):
        times["floor"].append(grade_floor(sub, quick)[0])
        for start in ("cold", "fork"):
            ENV["A2GRADER_WORKER_START"] = start
            try:
                times[start].append(grade_end_to_end(sub, work, only)[0])
            finally:
                ENV.pop("A2GRADER_WORKER_START", None)
        print(f"  round: floor {times['floor'][-1]:.2f} s, cold {times['cold'][-1]:.2f} s, fork "
              f"{times['fork'][-1]:.2f} s (load {os.getloadavg()[0]:.2f})", flush=True)
    rows = []
    for start in ("cold", "fork"):
        ratios = [t / f for t, f in zip(times[start], times["floor"], strict=True)]
        rows.append([start, f"{min(times[start]):.2f} / {statistics.median(times[start]):.2f}",
                     f"{min(times['floor']):.2f} / {statistics.median(times['floor']):.2f}",
                     f"{min(times[start]) / min(times['floor']):.2f}x",
                     f"{min(ratios):.2f}x / {statistics.median(ratios):.2f}x",
                     verdict(statistics.median(ratios), TARGET_FLOOR_RATIO, at_most=True)])
    table(["workers", "grade min / median (s)", "floor min / median (s)", "min / min",
           "ratio per round min / median", "target (median)"], rows)


# -- 2. check latency --------------------------------------------------------------------------


def check_latency(folder: Path) -> tuple[float, dict]:
    """Seconds of `grader check FOLDER`, and the seconds until its first check line."""
    started = time.perf_counter()
    proc = subprocess.Popen([PYTHON, "-m", "grader", "check", str(folder), "--seed", str(SEED)], cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=ENV)
    first = None
    assert proc.stdout is not None
    for line in proc.stdout:
        if first is None and line.lstrip().startswith(("✓", "✗")):
            first = time.perf_counter() - started
    proc.wait()
    total = time.perf_counter() - started
    return total, {"first": first if first is not None else total}


def compare_check(subs: dict[str, Path], *, repeat: int) -> None:
    print("## 2. `grader check` latency against `python -c \"import torch, numpy\"`\n")
    imports, _ = median_of(repeat, lambda: (run([PYTHON, "-c", "import torch, numpy"])[0], {}))
    rows = [["python -c \"import torch, numpy\"", f"{imports:.2f}", f"{imports:.2f}", "1.00x", "1.00x"]]
    for label in ("template", "reference"):
        total, info = median_of(repeat, lambda label=label: check_latency(subs[label]))
        rows.append([f"grader check on the {label}", f"{info['first']:.2f}", f"{total:.2f}",
                     f"{info['first'] / imports:.2f}x", f"{total / imports:.2f}x"])
    table(["command", "first result (s)", "total (s)", "first / import", "total / import"], rows)
    print("`grader check` runs the visible checks; on the reference that includes training the parser.\n")


# -- 3. batch throughput -----------------------------------------------------------------------


def compare_batch(work: Path, *, full: bool, repeat: int) -> None:
    print(f"## 3. `grader batch` on 20 submissions ({'every check' if full else 'quick checks'})\n")
    classdir = work / "class"
    run([PYTHON, str(REPO / "tools" / "make_class.py"), "--out", str(classdir)])
    rows, times = [], {}
    for workers in (1, 2):
        def once(workers: int = workers) -> tuple[float, dict]:
            out = work / f"batch-{workers}"
            shutil.rmtree(out, ignore_errors=True)
            return run([PYTHON, "-m", "grader", "batch", str(classdir), "--out", str(out), "--workers",
                        str(workers), "--seed", str(SEED), *([] if full else ["--quick"])])[0], {}
        times[workers], _ = median_of(repeat, once)
        rows.append([str(workers), f"{times[workers]:.1f}", f"{60 * 20 / times[workers]:.1f}",
                     f"{times[workers] / 20:.2f}"])
    table(["workers", "seconds", "submissions / min", "seconds / submission"], rows)
    scaling = times[1] / times[2]
    print(f"Scaling on 2 workers: {scaling:.2f}x, {verdict(scaling, TARGET_SCALING, at_most=False)}.\n")


# -- 4. the unittest baseline ------------------------------------------------------------------


def compare_baseline(subs: dict[str, Path], work: Path, e2e_times: dict[str, float], *, quick: bool,
                     repeat: int) -> None:
    print(f"## 4. The grader against unittest + JSONTestRunner in-process "
          f"({'quick checks' if quick else 'every coding check'})\n")
    rows = []
    code = check_ids(quick=quick, code_only=True)
    for label in list(subs)[:2]:
        sub = subs[label]

        def baseline(sub: Path = sub) -> tuple[float, dict]:
            seconds, out = run([PYTHON, str(REPO / "bench" / "baseline" / "run_tests.py"), str(sub),
                                "--results", str(work / f"baseline-{sub.name}.json"),
                                *(["--quick"] if quick else [])])
            return seconds, json.loads(out.strip().splitlines()[-1])

        base_s, doc = median_of(repeat, baseline)
        code_s, _ = median_of(repeat, lambda sub=sub: grade_end_to_end(sub, work, code))
        whole = f"{e2e_times[label]:.1f}" if label in e2e_times else "-"
        rows.append([label, f"{code_s:.1f}", whole, f"{base_s:.1f}", f"{doc['score']:g}",
                     f"{code_s / base_s:.2f}x", verdict(code_s / base_s, TARGET_BASELINE_RATIO, at_most=True)])
    table(["submission", "grader, coding checks (s)", "grader grade, all (s)", "unittest baseline (s)",
           "baseline score", "ratio", "target"], rows)
    print("The ratio compares the same coding checks: the grader's engine in a fresh process with its "
          "sandboxed worker (`python -m grader.classroom.batch --only <coding checks>`, what `grader batch` runs "
          "per submission) against the baseline's in-process unittest run. `grader grade, all` adds "
          "the written answers (from comparison 1).\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="comparisons 1, 2 and 4 on the checks that do not train")
    parser.add_argument("--full-batch", action="store_true", help="comparison 3 with every check (~30 min)")
    parser.add_argument("--repeat", type=int, default=1, help="runs per figure (the median is shown)")
    parser.add_argument("--starts", action="store_true",
                        help="1b instead of 1: the reference with workers started cold and forked, in turn (--repeat rounds)")
    parser.add_argument("--only", type=int, nargs="*", choices=(1, 2, 3, 4), default=(1, 2, 3, 4))
    args = parser.parse_args(argv)

    import torch

    load = os.getloadavg()
    print(f"# a2grader benchmark, {time.strftime('%Y-%m-%d %H:%M')}\n")
    print(f"{platform.platform()}, {os.cpu_count()} cores, Python {platform.python_version()}, torch "
          f"{torch.__version__}; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} at the start; "
          f"seed {SEED}; each figure the median of {args.repeat} run(s).\n")
    work = Path(tempfile.mkdtemp(prefix="a2grader-bench-"))
    started = time.perf_counter()
    try:
        subs = make_submissions(work)
        e2e_times: dict[str, float] = {}
        if 1 in args.only and not args.starts:
            e2e_times = compare_floor(subs, work, quick=args.quick, repeat=args.repeat)
        if 1 in args.only and args.starts:
            compare_starts(subs, work, quick=args.quick, repeat=max(args.repeat, 3))
        if 2 in args.only:
            compare_check(subs, repeat=args.repeat)
        if 3 in args.only:
            compare_batch(work, full=args.full_batch, repeat=args.repeat)
        if 4 in args.only:
            if importlib.util.find_spec("gradescope_utils") is None:
                print("\n4. skipped: the unittest baseline needs gradescope-utils; install the bench extra: "
                      ".venv/bin/pip install -e '.[test,bench]'")
            else:
                compare_baseline(subs, work, e2e_times, quick=args.quick, repeat=args.repeat)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    load = os.getloadavg()
    print(f"Benchmark took {time.perf_counter() - started:.0f} s; load average {load[0]:.2f} at the end.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
