#!/usr/bin/env python
"""Benchmark: a full grading as Gradescope's default container constrains it. Prints figures.

Gradescope's default autograder container has 768 MB of memory, half a vCPU (a CPU quota) and a
10-minute timeout. Each grading here runs as `grader grade` (with the rubric's time budget) in a
cgroup of its own whose CPU quota is half a core: cgroup v2's ``cpu.max`` ("50000 100000") where
the unified hierarchy has the cpu controller, else cgroup v1's ``cpu.cfs_quota_us`` (50000 of a
100000 us period). It needs root; the cgroup is removed after each grading. Without a cgroup it
falls back to pinning the grading to one core and says so. Every process of the grading is
measured: the trusted process, the sandboxed worker(s) and the writeup reader.

    .venv/bin/python bench/gradescope.py                  # reference, slow variants, every function looping
    .venv/bin/python bench/gradescope.py --submission DIR # any submission folder (or several)
    .venv/bin/python bench/gradescope.py --overlay tests/submissions/buggy/run_train_uses_main_globals
    .venv/bin/python bench/gradescope.py --slow-only      # the slow variants and the looping submission
    .venv/bin/python bench/gradescope.py --slow rows_everywhere   # one slow variant
    sudo .venv/bin/python bench/gradescope.py --reference-only --against 91d3856 --repeat 3

``--against COMMIT`` grades every selected submission with that commit's grader too (a detached
worktree of it, made and removed here, run with this Python), old and new alternately ``--repeat``
times, and prints each figure's median for both and new / old, with whether the new one is within
``--tolerance`` (5%) of the old (CPU seconds are the least noisy figure; wall time under the quota
follows them on a quiet machine). The reference is each checkout's own ``reference/``.

A slow variant (tests/submissions/slow/NAME) holds files laid over the reference's; the looping
submission is tools/loop_forever.py's. Figures per grading:
  wall          seconds under the half-core quota (the cgroup's CPU weight is raised 8x, so that
                other load on a shared machine takes little from it; the load average is printed
                beside each figure)
  cpu           CPU seconds of every process of the grading (user + system, children included)
  throttled     how often and how long the quota held the grading back
  peak PSS      the largest sum, over the process tree at one instant (sampled every 50 ms), of
                proportional set size: shared pages (torch's libraries) are split among the
                processes that share them, so the sum is what the container is charged
  peak RSS      the same sum of resident set sizes (shared pages counted in each process)
  training      the training checks' scores (full marks expected of every slow variant)
  not run       checks the budget could not afford, and whether each says so
Headroom is printed against 768 MB and against the budget: the slowest slow variant must take at
most half of it, the looping submission must end within it with a valid results.json.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tools"))

import loop_forever  # noqa: E402

from grader.run.rubric import load_rubric  # noqa: E402

GRADER = [sys.executable, "-m", "grader"]
SEED = 20240601
SAMPLE_S = 0.05
MIB = 1024 * 1024
CONTAINER_BYTES = 768 * 1000 * 1000      # Gradescope's default: 768 MB
CONTAINER_CPUS = 0.5
CPU_PERIOD_US = 100_000
TARGET_PEAK_BYTES = 512 * MIB
SLOW_DIR = REPO / "tests" / "submissions" / "slow"
TRAINING_CHECKS = ("train_loop", "train_setup", "train_uas")
TIMEOUTS = {spec.id: spec.timeout for spec in load_rubric().checks}
"""Each check's timeout, which is also the deadline of its calls together (engine.check_deadline)."""
CGROUP_V2 = Path("/sys/fs/cgroup")
#: The grading's weight against the machine's other work (8x the default): on a busy shared machine
#: it then gets the half core its quota allows, as a container's dedicated half vCPU would, and the
#: quota (not the other load) is what bounds it.
PRIORITY_V1 = 8192
PRIORITY_V2 = 800
CGROUP_V1_CPU = Path("/sys/fs/cgroup/cpu")
NOT_RUN_HEAD = "Not run: the grading's time budget ran out"


@dataclass
class Sample:
    pss: int = 0
    rss: int = 0
    processes: list[tuple[str, int]] = field(default_factory=list)
    cpu_by_pid: dict[int, float] = field(default_factory=dict)
    """Last CPU seconds seen of every process of the tree: a worker in a PID namespace is reaped
    outside the grader's own children, so RUSAGE_CHILDREN alone misses it."""


def _tree(root: int) -> list[int]:
    """``root`` and all its descendants, from /proc's parent links."""
    parents: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as stat:
                ppid = int(stat.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        parents.setdefault(ppid, []).append(int(entry))
    found, queue = [], [root]
    while queue:
        pid = queue.pop()
        found.append(pid)
        queue.extend(parents.get(pid, ()))
    return found


def _cpu_seconds(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


def _memory(pid: int) -> tuple[int, int, str]:
    """(PSS, RSS) in bytes and a short name for one process; zeros if it is gone."""
    pss = rss = 0
    try:
        with open(f"/proc/{pid}/smaps_rollup", encoding="ascii") as rollup:
            for line in rollup:
                key, _, rest = line.partition(":")
                if key in ("Pss", "Rss"):
                    value = int(rest.split()[0]) * 1024
                    pss, rss = (value, rss) if key == "Pss" else (pss, value)
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            words = [w.decode(errors="replace") for w in cmdline.read().split(b"\0") if w]
    except (OSError, ValueError):
        return 0, 0, ""
    name = next((Path(w).name for w in words[1:] if w.endswith(".py") or w == "grader"), "")
    if not name and "-m" in words:
        name = " ".join(words[words.index("-m") + 1:][:2])
    return pss, rss, name or (Path(words[0]).name if words else "?")


def _sampler(root: int, stop: threading.Event, peak: Sample) -> None:
    while not stop.is_set():
        sample = Sample()
        for pid in _tree(root):
            peak.cpu_by_pid[pid] = max(peak.cpu_by_pid.get(pid, 0.0), _cpu_seconds(pid))
            pss, rss, name = _memory(pid)
            sample.pss += pss
            sample.rss += rss
            if pss:
                sample.processes.append((name, pss))
        if sample.pss > peak.pss:
            peak.pss, peak.rss, peak.processes = sample.pss, sample.rss, sample.processes
        stop.wait(SAMPLE_S)


def _v2_has_cpu() -> bool:
    """Whether /sys/fs/cgroup is a cgroup v2 hierarchy whose children may use the cpu controller."""
    controllers, subtree = CGROUP_V2 / "cgroup.controllers", CGROUP_V2 / "cgroup.subtree_control"
    return (controllers.is_file() and subtree.is_file() and "cpu" in controllers.read_text().split()
            and "cpu" in subtree.read_text().split())


class Quota:
    """A cgroup holding one grading to half a core; ``kind`` says which (or "pinned" without one)."""

    def __init__(self) -> None:
        self.path: Path | None = None
        self.kind = "pinned to one core (no cgroup: not root, or no cpu controller)"
        name = f"a2grader-bench-{os.getpid()}-{time.monotonic_ns()}"
        quota = int(CONTAINER_CPUS * CPU_PERIOD_US)
        try:
            if _v2_has_cpu():
                self.path = CGROUP_V2 / name
                self.path.mkdir()
                (self.path / "cpu.max").write_text(f"{quota} {CPU_PERIOD_US}")
                (self.path / "cpu.weight").write_text(str(PRIORITY_V2))
                self.kind = f"cgroup v2 cpu.max {quota} {CPU_PERIOD_US}, cpu.weight {PRIORITY_V2}"
            elif (CGROUP_V1_CPU / "cpu.cfs_quota_us").is_file():
                self.path = CGROUP_V1_CPU / name
                self.path.mkdir()
                (self.path / "cpu.cfs_period_us").write_text(str(CPU_PERIOD_US))
                (self.path / "cpu.cfs_quota_us").write_text(str(quota))
                (self.path / "cpu.shares").write_text(str(PRIORITY_V1))
                self.kind = f"cgroup v1 cpu.cfs_quota_us {quota} of {CPU_PERIOD_US}, cpu.shares {PRIORITY_V1}"
        except OSError as exc:
            self.remove()
            self.kind += f" ({exc})"

    def enter(self) -> None:
        """In the child, before exec: join the cgroup (or pin to one core)."""
        if self.path is None:
            os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
        else:
            (self.path / "cgroup.procs").write_text(str(os.getpid()))

    def throttled(self) -> str:
        if self.path is None:
            return ""
        stat = dict(line.split() for line in (self.path / "cpu.stat").read_text().splitlines())
        seconds = int(stat.get("throttled_time", 0)) / 1e9 or int(stat.get("throttled_usec", 0)) / 1e6
        return f"throttled in {stat.get('nr_throttled')} of {stat.get('nr_periods')} periods ({seconds:.1f} s)"

    def remove(self) -> None:
        if self.path is not None:
            for _ in range(50):  # the grading's processes leave the cgroup as they are reaped
                try:
                    self.path.rmdir()
                    break
                except OSError:
                    time.sleep(0.1)
            self.path = None


@dataclass
class Figures:
    submission: str
    wall: float
    cpu: float
    peak: Sample
    results: dict
    quota: str
    throttled: str
    load: tuple[float, float]


def measure(submission: Path, seed: int, budget: float, name: str, repo: Path = REPO) -> Figures:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    peak = Sample()
    stop = threading.Event()
    quota = Quota()
    load_before = os.getloadavg()[0]
    try:
        with tempfile.TemporaryDirectory(prefix="a2grader-bench-") as tmp:
            results = Path(tmp) / "results.json"
            started = time.monotonic()
            proc = subprocess.Popen([*GRADER, "grade", str(submission), "--seed", str(seed), "--budget",
                                     str(budget), "--results", str(results), "--json"], cwd=repo,
                                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, preexec_fn=quota.enter,
                                    env={**os.environ, "MPLBACKEND": "Agg"})
            sampler = threading.Thread(target=_sampler, args=(proc.pid, stop, peak), daemon=True)
            sampler.start()
            output, _ = proc.communicate()
            wall = time.monotonic() - started
            stop.set()
            sampler.join()
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            if proc.returncode != 0 or not results.is_file():
                sys.exit(f"grading {submission} failed (exit {proc.returncode}):\n{output.decode()[-3000:]}")
            doc = json.loads(results.read_text())
            doc["check_seconds"] = _check_seconds(output.decode(errors="replace"))
            throttled = quota.throttled()
    finally:
        quota.remove()
    cpu = max((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
              sum(peak.cpu_by_pid.values()))
    return Figures(name, wall, cpu, peak, doc, quota.kind, throttled, (load_before, os.getloadavg()[0]))


def _check_seconds(output: str) -> dict[str, float]:
    """Each check's seconds, from the report `grader grade --json` printed (stderr may precede it)."""
    start = output.find("\n{") + 1 if not output.startswith("{") else 0
    try:
        report_doc = json.JSONDecoder().raw_decode(output[start:])[0]
        return {c["id"]: float(c["seconds"]) for c in report_doc["checks"]}
    except (ValueError, KeyError, TypeError):
        return {}


def report(figures: Figures, budget: float) -> None:
    peak = figures.peak
    doc = figures.results
    tests = [t for t in doc.get("tests", []) if "grader_status" in t.get("extra_data", {})]
    print(f"\n{figures.submission} (score {doc.get('score')}; load average {figures.load[0]:.2f} before, "
          f"{figures.load[1]:.2f} after)")
    print(f"  wall {figures.wall:6.1f} s at half a core ({figures.quota}; {figures.throttled})   cpu "
          f"{figures.cpu:6.1f} s   budget {budget:g} s: {figures.wall / budget:.0%} of it")
    print(f"  peak PSS {peak.pss / MIB:6.0f} MiB (RSS {peak.rss / MIB:.0f} MiB) over {len(peak.processes)} "
          f"processes; headroom to 768 MB: {CONTAINER_BYTES / max(peak.pss, 1):.2f}x; "
          f"target 512 MiB: {'met' if peak.pss <= TARGET_PEAK_BYTES else 'MISSED'}")
    for name, pss in sorted(peak.processes, key=lambda item: -item[1]):
        print(f"    {pss / MIB:6.0f} MiB  {name}")
    training = [t for t in tests if t["extra_data"].get("check_id") in TRAINING_CHECKS]
    if training:
        print("  training: " + ", ".join(f"{t['number']} {t['score']:g}/{t['max_score']:g} "
                                         f"({t['extra_data']['grader_status']})" for t in training))
        for t in training:
            if t["extra_data"].get("check_id") == "train_uas":
                print("    5.9: " + " ".join(t["output"].split())[:400])
        for check_id in TRAINING_CHECKS:
            seconds = doc.get("check_seconds", {}).get(check_id)
            if seconds is not None:
                timeout = TIMEOUTS.get(check_id, float("nan"))
                print(f"    {check_id}: {seconds:.1f} s of its {timeout:g}-s deadline (its calls together): "
                      f"{timeout / max(seconds, 0.01):.1f}x headroom")
    not_run = [t for t in tests if t["extra_data"]["grader_status"] == "not_run"]
    if not_run:
        said = sum(t["output"].startswith(NOT_RUN_HEAD) for t in not_run)
        statuses: dict[str, int] = {}
        for t in tests:
            statuses[t["extra_data"]["grader_status"]] = statuses.get(t["extra_data"]["grader_status"], 0) + 1
        print(f"  not run: {len(not_run)} checks, {said} of them saying so; statuses {statuses}")


@contextlib.contextmanager
def checkout(commit: str) -> Iterator[Path]:
    """A detached worktree of ``commit`` in a temporary folder, removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="a2grader-bench-old-") as tmp:
        tree = Path(tmp) / "tree"
        subprocess.run(["git", "worktree", "add", "--detach", "--quiet", str(tree), commit], cwd=REPO, check=True)
        try:
            yield tree
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=REPO, check=False)


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def compare(name: str, old: list[Figures], new: list[Figures], tolerance: float) -> bool:
    """Print the medians of the old and the new grader's figures for one submission; True when every
    figure of the new one is within ``tolerance`` of the old one's (or below it)."""
    within = True
    print(f"\n{name}: old vs new, median of {len(old)} and {len(new)} gradings run alternately")
    for label, figure in (("wall (s)", lambda f: f.wall), ("cpu (s)", lambda f: f.cpu),
                          ("peak PSS (MiB)", lambda f: f.peak.pss / MIB)):
        a, b = _median([figure(f) for f in old]), _median([figure(f) for f in new])
        ratio = b / a if a else float("inf")
        ok = ratio <= 1 + tolerance
        within = within and ok
        print(f"  {label:15s} old {a:8.1f}   new {b:8.1f}   new/old {ratio:6.3f}   "
              f"{'within' if ok else 'OVER'} {tolerance:.0%}")
    scores = {f.results.get("score") for f in old + new}
    print(f"  scores: {sorted(scores, key=str)}; load average {min(f.load[0] for f in old + new):.2f}-"
          f"{max(f.load[1] for f in old + new):.2f} (compare on a quiet machine)")
    return within


def slow_upload(variant: Path, tmp: Path) -> Path:
    """A slow variant's files laid over the reference's (as the tests assemble it)."""
    target = tmp / variant.name
    shutil.copytree(REPO / "reference", target)
    for path in variant.glob("*.py"):
        shutil.copyfile(path, target / path.name)
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--submission", type=Path, action="append",
                        help="a submission folder to grade (repeatable; default: the reference, every slow "
                             "variant and the looping submission)")
    parser.add_argument("--overlay", type=Path, action="append", default=[],
                        help="a folder of files laid over the reference's (repeatable), e.g. "
                             "tests/submissions/buggy/run_train_uses_main_globals")
    parser.add_argument("--slow-only", action="store_true", help="only the slow variants and the looping submission")
    parser.add_argument("--slow", action="append", default=[], help="only this slow variant (repeatable), e.g. rows_everywhere")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--budget", type=float, default=None, help="seconds (default: rubric.yaml's budget)")
    parser.add_argument("--reference-only", action="store_true", help="only the reference")
    parser.add_argument("--against", metavar="COMMIT", help="also grade with this commit's grader and compare")
    parser.add_argument("--repeat", type=int, default=3, help="gradings of each side with --against (default: 3)")
    parser.add_argument("--tolerance", type=float, default=0.05, help="allowed new/old - 1 with --against")
    args = parser.parse_args(argv)
    budget = args.budget or load_rubric().budget
    trial = Quota()
    trial.remove()
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; budget {budget:g} s; "
          f"CPU quota: {trial.kind}")
    with tempfile.TemporaryDirectory(prefix="a2grader-bench-uploads-") as tmp:
        if args.reference_only:
            runs: list[tuple[Path | None, str]] = [(None, "reference")]
        elif args.submission or args.slow or args.overlay:
            runs = [(path.resolve(), path.name) for path in args.submission or []]
            runs += [(slow_upload(SLOW_DIR / name, Path(tmp)), f"slow/{name}") for name in args.slow]
            runs += [(slow_upload(path, Path(tmp)), f"{path.name} over the reference") for path in args.overlay]
        else:
            runs = [] if args.slow_only else [(None, "reference")]  # None: the checkout's own reference
            runs += [(slow_upload(v, Path(tmp)), f"slow/{v.name}") for v in sorted(SLOW_DIR.iterdir()) if v.is_dir()]
            runs.append((loop_forever.write(Path(tmp) / "loop_forever"), "every function loops forever"))
        if not args.against:
            for path, name in runs:
                report(measure(path or REPO / "reference", args.seed, budget, name), budget)
            return 0
        with checkout(args.against) as old_repo:
            verdicts = []
            for path, name in runs:
                old: list[Figures] = []
                new: list[Figures] = []
                for _ in range(max(args.repeat, 1)):
                    for repo, figures in ((old_repo, old), (REPO, new)):
                        figures.append(measure(path or repo / "reference", args.seed, budget,
                                               f"{name} ({'old' if repo == old_repo else 'new'})", repo))
                        report(figures[-1], budget)
                verdicts.append(compare(f"{name}, {args.against} vs this checkout", old, new, args.tolerance))
        print(f"\nnew within {args.tolerance:.0%} of {args.against} on every figure: "
              f"{'yes' if all(verdicts) else 'NO'}")
        return 0 if all(verdicts) else 1


if __name__ == "__main__":
    sys.exit(main())
