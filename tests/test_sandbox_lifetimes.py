"""The sandbox's workers and what student code starts: threads and processes that outlive a call,
forks and fork bombs, a sandbox dropped or closed, a worker started early."""

from __future__ import annotations

import gc
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sandbox_support import (
    CALL_TIMEOUT,
    NAMESPACED,
    SWITCHES_USER,
    alive,
    members,
    namespace_of,
    recorded_pids,
    student,
    wait_until,
    worker_pid,
    write_submission,
)

from grader.sandbox import (
    Limits,
    Sandbox,
    SandboxError,
)


@pytest.fixture(scope="module")
def submission(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_submission(tmp_path_factory.mktemp("submission"))


@pytest.fixture
def box(submission: Path) -> Iterator[Sandbox]:
    with Sandbox(submission) as sandbox:
        yield sandbox


# -- the sandbox: threads and processes that outlive the call ----------------------------------


def test_a_thread_that_never_ends_does_not_block_and_ends_with_its_worker(
        submission: Path) -> None:
    with Sandbox(submission) as box:
        pid = worker_pid(box)
        beats = box.run_dir / "beats"
        result = student(box, "immortal_thread", "beats")
        assert result.ok and result.value == "started"
        # The worker replied, saw the thread still running, and left: the next call gets a
        # fresh worker, so the thread cannot touch later calls.
        assert student(box, "add", 1, 2).value == 3
        assert not alive(pid) and worker_pid(box) != pid
        size = beats.stat().st_size if beats.exists() else 0
        time.sleep(0.1)
        assert (beats.stat().st_size if beats.exists() else 0) == size


@pytest.mark.parametrize("function", ["leak_descriptors", "immortal_thread"])
def test_a_call_that_leaves_things_behind_is_answered_then_its_worker_replaced(
        submission: Path, function: str) -> None:
    with Sandbox(submission, limits=Limits(open_files=64)) as box:
        pid = worker_pid(box)
        result = student(box, function, "beats")
        assert result.ok, result
        assert wait_until(lambda: not alive(pid))
        assert student(box, "add", 1, 2).value == 3  # not starved of descriptors
        assert worker_pid(box) != pid


def test_a_call_that_leaves_nothing_behind_keeps_its_worker(box: Sandbox) -> None:
    pid = worker_pid(box)
    assert student(box, "add", 1, 2).value == 3
    assert student(box, "nested").status == "error"
    assert worker_pid(box) == pid and alive(pid)


@pytest.mark.parametrize(("then", "status"), [
    ("return", "ok"), ("spin", "timeout"), ("exit", "crashed")])
def test_forked_children_die_with_the_worker(submission: Path, then: str, status: str) -> None:
    box = Sandbox(submission)
    namespace = namespace_of(worker_pid(box)) if NAMESPACED else None
    try:
        result = student(box, "fork_and_sleep", f"pids-{then}", 3, then, timeout=1.5)
        assert result.status == status, result
        if namespace is None:
            pids = recorded_pids(box.run_dir / f"pids-{then}", 4)
    finally:
        box.close()
    if namespace is not None:
        # The worker was the namespace's only child of init: with it, every process of the
        # namespace is gone, including the orphan in its own session.
        assert wait_until(lambda: not members(namespace)), members(namespace)
        return
    # Without a PID namespace, when the worker itself exits first, a process that left its
    # session (setsid) is an orphan of init that neither the group kill nor the tree walk can
    # find: a known gap (see the README's security model).
    must_die = [pid for pid, left in pids.items() if not left or then != "exit"]
    try:
        assert wait_until(lambda: not any(alive(pid) for pid in must_die)), \
            [pid for pid in must_die if alive(pid)]
    finally:
        for pid in pids:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)


@pytest.mark.skipif(os.geteuid() == 0 and not SWITCHES_USER, reason="as root without a sandbox "
                    "user the kernel ignores RLIMIT_NPROC, so a fork bomb would only be "
                    "bounded by the machine")
def test_a_fork_bomb_is_bounded_and_killed(submission: Path) -> None:
    with Sandbox(submission, limits=Limits(processes=32)) as box:
        namespace = namespace_of(worker_pid(box)) if NAMESPACED else None
        result = student(box, "fork_bomb", timeout=1.0)
        assert result.status in ("timeout", "crashed")
        assert student(box, "add", 1, 2).value == 3
    if namespace is not None:
        assert wait_until(lambda: not members(namespace))


def test_student_files_named_like_modules_do_not_break_the_worker(tmp_path: Path) -> None:
    for name in ("json", "numpy", "traceback", "wire", "probes"):
        (tmp_path / f"{name}.py").write_text("raise RuntimeError('shadowed')\n")
    (tmp_path / "solution.py").write_text("def answer():\n    return 42\n")
    with Sandbox(tmp_path) as box:
        result = box.call("call", {"module": "solution", "function": "answer"},
                          timeout=CALL_TIMEOUT)
        assert result.ok and result.value == 42, result
        assert student(box, "values").error.type == "ModuleNotFoundError"  # type: ignore


def test_a_worker_that_cannot_start_is_a_grader_error(submission: Path) -> None:
    with Sandbox(submission, python="/bin/false") as box, \
            pytest.raises(SandboxError, match="did not start"):
        box.call("ping", {}, timeout=CALL_TIMEOUT)
    with Sandbox(submission, python="/nonexistent/python") as box, \
            pytest.raises(SandboxError, match="cannot start"):
        box.call("ping", {}, timeout=CALL_TIMEOUT)


def test_a_sandbox_dropped_without_close_still_kills_its_worker(submission: Path) -> None:
    box = Sandbox(submission)
    pid = worker_pid(box)
    folder = box._private_dir
    assert folder is not None and folder.is_dir()
    del box
    gc.collect()
    assert wait_until(lambda: not alive(pid))
    assert not folder.exists()


def test_a_closed_sandbox_refuses_calls(submission: Path) -> None:
    box = Sandbox(submission)
    worker_pid(box)
    folder = box._private_dir
    box.close()
    box.close()
    assert folder is not None and not folder.exists()
    with pytest.raises(SandboxError, match="closed"):
        box.call("ping", {}, timeout=CALL_TIMEOUT)


# -- starting early --------------------------------------------------------------------------


def test_a_prestarted_worker_has_its_preloads_before_the_first_call(submission: Path) -> None:
    def loaded(box: Sandbox, module: str) -> bool:
        result = box.call("call", {"module": "sys", "function": "modules.__contains__",
                                   "args": [module]}, timeout=CALL_TIMEOUT)
        assert result.ok
        return result.value

    with Sandbox(submission) as plain:
        assert not loaded(plain, "fractions")  # nothing of the worker's own imports it
    with Sandbox(submission, preload=("fractions",)) as box:
        box.prestart()
        assert box.worker_pid is None  # started, not yet known to be ready
        assert loaded(box, "fractions")
        assert student(box, "add", 2, 3).value == 5


def test_closing_a_sandbox_stops_a_worker_that_is_still_starting(submission: Path) -> None:
    box = Sandbox(submission)
    box.prestart()
    starting = box._starting
    assert starting is not None
    box.close()
    assert wait_until(lambda: not alive(starting.proc.pid))


def test_preload_takes_module_names_only(submission: Path) -> None:
    with pytest.raises(ValueError, match="preload names modules"):
        Sandbox(submission, preload=("torch; import os",))
