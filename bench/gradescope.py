#!/usr/bin/env python
"""Benchmark: a full grading as Gradescope's default container would constrain it. Prints figures.

Gradescope's default autograder container has 768 MB of memory and half a vCPU, and a 10-minute
timeout. This machine's own settings (cgroups) are left alone; instead each grading runs as
`grader grade` pinned to one core, and every process of the grading is measured: the trusted
process, the sandboxed worker(s) and the writeup reader.

    .venv/bin/python bench/gradescope.py                  # reference and the bundled buggy example
    .venv/bin/python bench/gradescope.py --submission DIR # any submission folder (or several)

Figures per grading:
  wall          seconds on one pinned core
  cpu           CPU seconds of every process of the grading (user + system, children included)
  at 0.5 vCPU   cpu / 0.5: the wall time to expect where only half a core is granted
  peak PSS      the largest sum, over the process tree at one instant (sampled every 50 ms), of
                proportional set size: shared pages (torch's libraries) are split among the
                processes that share them, so the sum is what the container is charged
  peak RSS      the same sum of resident set sizes (shared pages counted in each process)
Headroom is printed against 768 MB and 10 minutes, and against the targets: peak PSS at most
512 MiB, a grading under 3 minutes at half a core.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
GRADER = [sys.executable, "-m", "grader"]
SEED = 20240601
SAMPLE_S = 0.05
MIB = 1024 * 1024
CONTAINER_BYTES = 768 * 1000 * 1000      # Gradescope's default: 768 MB
CONTAINER_TIMEOUT_S = 600.0              # Gradescope's default autograder timeout
CONTAINER_CPUS = 0.5
TARGET_PEAK_BYTES = 512 * MIB
TARGET_HALF_CORE_S = 180.0
DEFAULT_SUBMISSIONS = (REPO / "reference", REPO / "examples" / "buggy_submission")


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


def _pin_to_one_core() -> None:
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})


@dataclass
class Figures:
    submission: str
    wall: float
    cpu: float
    peak: Sample
    score: str


def measure(submission: Path, seed: int) -> Figures:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    peak = Sample()
    stop = threading.Event()
    with tempfile.TemporaryDirectory(prefix="a2grader-bench-") as tmp:
        results = Path(tmp) / "results.json"
        started = time.monotonic()
        proc = subprocess.Popen([*GRADER, "grade", str(submission), "--seed", str(seed),
                                 "--results", str(results)], cwd=REPO, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, preexec_fn=_pin_to_one_core,
                                env={**os.environ, "MPLBACKEND": "Agg"})
        sampler = threading.Thread(target=_sampler, args=(proc.pid, stop, peak), daemon=True)
        sampler.start()
        output, _ = proc.communicate()
        wall = time.monotonic() - started
        stop.set()
        sampler.join()
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if proc.returncode != 0:
            sys.exit(f"grading {submission} failed (exit {proc.returncode}):\n{output.decode()[-3000:]}")
        score = "?"
        if results.is_file():
            import json  # noqa: PLC0415 - only here

            doc = json.loads(results.read_text())
            score = f"{doc.get('score')}"
    cpu = max((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
              sum(peak.cpu_by_pid.values()))
    return Figures(submission.name, wall, cpu, peak, score)


def report(figures: Figures) -> None:
    half = figures.cpu / CONTAINER_CPUS
    peak = figures.peak
    print(f"\n{figures.submission} (score {figures.score})")
    print(f"  wall {figures.wall:6.1f} s on one core   cpu {figures.cpu:6.1f} s   at 0.5 vCPU ~{half:6.1f} s "
          f"(headroom to {CONTAINER_TIMEOUT_S:.0f} s: {CONTAINER_TIMEOUT_S / half:.1f}x; "
          f"target {TARGET_HALF_CORE_S:.0f} s: {'met' if half <= TARGET_HALF_CORE_S else 'MISSED'})")
    print(f"  peak PSS {peak.pss / MIB:6.0f} MiB (RSS {peak.rss / MIB:.0f} MiB) over {len(peak.processes)} "
          f"processes; headroom to 768 MB: {CONTAINER_BYTES / max(peak.pss, 1):.2f}x; "
          f"target 512 MiB: {'met' if peak.pss <= TARGET_PEAK_BYTES else 'MISSED'}")
    for name, pss in sorted(peak.processes, key=lambda item: -item[1]):
        print(f"    {pss / MIB:6.0f} MiB  {name}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--submission", type=Path, action="append",
                        help="a submission folder to grade (repeatable; default: the reference and the buggy example)")
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; each grading pinned to one core")
    for submission in args.submission or DEFAULT_SUBMISSIONS:
        report(measure(submission.resolve(), args.seed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
