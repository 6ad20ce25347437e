"""What a worker may use and see: its resource limits (``setrlimit``, set before it starts) and
its whole environment (nothing of the grader's leaks into it)."""

from __future__ import annotations

import os
import resource
from collections.abc import Callable
from pathlib import Path

from grader.sandbox.proctree import tasks_of_user
from grader.sandbox.runner import Limits

CPU_HARD_GRACE_S = 5
"""Seconds between the CPU soft limit (SIGXCPU) and the hard limit (SIGKILL)."""
WORKER_PATH = "/usr/local/bin:/usr/bin:/bin"
WORKER_THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                           "NUMEXPR_NUM_THREADS", "VECLIB_MAXIMUM_THREADS")


def resource_plan(limits: Limits, *, uid: int | None = None) -> list[tuple[int, int, int]]:
    """(resource, soft, hard) for a worker running as ``uid`` (default: this process's user),
    never above this process's own hard limits."""
    plan = [
        (resource.RLIMIT_AS, limits.memory_bytes, limits.memory_bytes),
        (resource.RLIMIT_CPU, limits.cpu_seconds, limits.cpu_seconds + CPU_HARD_GRACE_S),
        (resource.RLIMIT_FSIZE, limits.file_size_bytes, limits.file_size_bytes),
        (resource.RLIMIT_NOFILE, limits.open_files, limits.open_files),
        (resource.RLIMIT_CORE, 0, 0),
    ]
    if (os.geteuid() if uid is None else uid) != 0:  # root is exempt: as root it is not set
        # The limit counts every task of the (real) user, so it is set above what the user
        # already runs (other graders' workers included).
        tasks = tasks_of_user(os.getuid() if uid is None else uid) + limits.processes
        plan.append((resource.RLIMIT_NPROC, tasks, tasks))
    return clamp(plan)


def clamp(plan: list[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    """``plan`` with every limit lowered to this process's own hard limit where that is lower."""
    clamped = []
    for kind, soft, hard in plan:
        current_hard = resource.getrlimit(kind)[1]
        if current_hard != resource.RLIM_INFINITY:
            soft, hard = min(soft, current_hard), min(hard, current_hard)
        clamped.append((kind, soft, hard))
    return clamped


def limit_setter(plan: list[tuple[int, int, int]]) -> Callable[[], None]:
    """The preexec_fn: runs in the child between fork and exec, so it only calls setrlimit."""
    def apply() -> None:
        for kind, soft, hard in plan:
            resource.setrlimit(kind, (soft, hard))
    return apply


def worker_environment(submission: Path, matplotlib_dir: Path | None = None) -> dict[str, str]:
    """The worker's whole environment: nothing of the grader's leaks into it.

    Progress bars (every real run.py wraps training in tqdm) are switched off, or where code
    forces one on, redrawn at most every TQDM_MININTERVAL seconds, so they neither flood the
    captured output nor slow training. ``matplotlib_dir`` is matplotlib's config and font-cache
    folder (see :func:`grader.sandbox.folders.prepared_matplotlib_cache`), kept across the workers of one sandbox.
    glibc's allocator keeps its default (adaptive) thresholds: fixed low ones (``MALLOC_MMAP_THRESHOLD_``)
    made every block of 128 KiB or more a fresh mapping, faulted in page by page, and a per-row
    training loop allocates one per row (its gradient of the hidden layer's weight): 4-7x the CPU of
    tests/submissions/slow/rows_everywhere. The worker hands freed memory back once a call instead
    (``grader.untrusted.worker.release_freed_memory``).
    """
    env = {
        "PATH": WORKER_PATH,
        "HOME": str(submission),
        "TMPDIR": str(submission),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONIOENCODING": "utf-8",
        "PYTHONUTF8": "1",
        "MPLBACKEND": "Agg",
        "TQDM_DISABLE": "1",
        "TQDM_MININTERVAL": "30",
    }
    if matplotlib_dir is not None:
        env["MPLCONFIGDIR"] = str(matplotlib_dir)
    env.update(dict.fromkeys(WORKER_THREAD_VARIABLES, "1"))
    return env
