"""The process boundary (grader/sandbox/): a call's values, the worker's environment and limits,
student output, hangs, exits and crashes, tracebacks, and the in-process runner matching it.

Every wait here is bounded by the test itself (timeouts on calls, deadlines on polling loops).
Student behaviour is simulated by small modules written into a submission folder
(tests/sandbox_support.py). Processes that outlive a call: tests/test_sandbox_lifetimes.py;
what student code leaves behind and the worker's files: tests/test_sandbox_cleanup.py; the wire
codec: tests/test_wire.py."""

from __future__ import annotations

import os
import resource
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from sandbox_support import (
    CALL_TIMEOUT,
    SMALL_OUTPUT,
    SWITCHES_USER,
    alive,
    student,
    worker_pid,
    write_submission,
)

from grader.sandbox import (
    InProcessRunner,
    Limits,
    Runner,
    Sandbox,
    isolation,
)
from grader.sandbox.limits import resource_plan, worker_environment
from grader.untrusted import wire


@pytest.fixture(scope="module")
def submission(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_submission(tmp_path_factory.mktemp("submission"))


@pytest.fixture
def box(submission: Path) -> Iterator[Sandbox]:
    with Sandbox(submission) as sandbox:
        yield sandbox


# -- the sandbox: values -----------------------------------------------------------------------


def test_values_come_back_as_plain_data(box: Sandbox) -> None:
    result = student(box, "values")
    assert result.status == "ok" and result.ok and result.error is None, result
    value = result.value
    assert np.array_equal(value["matrix"], np.arange(6.0).reshape(2, 3))
    assert value["pair"][0] == 1 and value["pair"][1][0] == 2.0
    assert value["pair"][1][1].dtype == np.float32 and value["pair"][1][1].shape == ()
    assert np.isnan(value["nan"]) and value["nothing"] is None and value["word"] == "parsed"
    assert student(box, "add", np.ones(3), 2).value.tolist() == [3.0, 3.0, 3.0]
    assert isinstance(box, Runner)


def test_large_arrays_cross_both_ways(box: Sandbox) -> None:
    big = np.random.default_rng(0).standard_normal((1000, 1000))  # 8 MB, far over a pipe's size
    result = student(box, "add", big, 1.0)
    assert result.ok and np.array_equal(result.value, big + 1.0)


def test_import_module_reports_missing_attributes_and_callables(box: Sandbox) -> None:
    result = box.call("import_module", {"module": "student", "attributes": ["add", "absent"]},
                      timeout=CALL_TIMEOUT)
    assert result.ok, result
    assert result.value["missing"] == ["absent"]
    assert {"add", "values", "spin"} <= set(result.value["callables"])


def test_unsupported_return_values_are_errors_naming_the_type(box: Sandbox) -> None:
    result = student(box, "unsupported")
    assert result.status == "error" and result.error is not None
    assert result.error.type == "UnsupportedValue"
    assert result.error.message == "student.unsupported returned object; expected an array or " \
                                   "a number"


def test_torch_tensors_become_arrays(box: Sandbox) -> None:
    result = student(box, "tensor", timeout=30)
    assert result.ok, result
    assert type(result.value) is np.ndarray and result.value.tolist() == [[2.0] * 3] * 2


def test_replies_over_the_message_limit_are_errors(submission: Path) -> None:
    with Sandbox(submission, limits=Limits(message_bytes=2**20)) as box:
        result = student(box, "big", 2 * 2**20)
        assert result.status == "error" and result.error is not None
        assert result.error.type == "ResultTooLarge"
        assert student(box, "big", 10).ok


def test_unknown_probes_are_errors(box: Sandbox) -> None:
    result = box.call("no_such_probe", {}, timeout=CALL_TIMEOUT)
    assert result.status == "error" and result.error is not None
    assert result.error.type == "UnknownProbe"


def test_arguments_that_cannot_be_sent_are_grader_errors(box: Sandbox) -> None:
    with pytest.raises(wire.WireError):
        box.call("ping", {"echo": object()}, timeout=CALL_TIMEOUT)
    with pytest.raises(ValueError, match="positive"):
        box.call("ping", {}, timeout=0)


# -- the sandbox: the worker's environment -----------------------------------------------------


def test_worker_runs_in_the_submission_under_limits(submission: Path) -> None:
    limits = Limits(memory_bytes=3 * 2**30, file_size_bytes=10 * 2**20, open_files=128,
                    cpu_seconds=100)
    with Sandbox(submission, limits=limits) as box:
        result = student(box, "inspect")
        run_dir = box.run_dir
        run_dir_owner = run_dir.stat().st_uid
        matplotlib_dir = box._private_folder() / "matplotlib"
    assert result.ok, result
    info = result.value
    real = os.path.realpath(run_dir)
    assert info["cwd"] == real and info["path0"] == real
    assert info["env"] == worker_environment(run_dir, matplotlib_dir)
    assert info["env"]["TQDM_DISABLE"] == "1"
    assert info["env"]["HOME"] == real
    assert info["env"]["OMP_NUM_THREADS"] == "1" and info["env"]["PYTHONHASHSEED"] == "0"
    assert "VIRTUAL_ENV" not in info["env"] and "PYTHONPATH" not in info["env"]
    assert not info["grader_imported"]
    assert not info["wire_file"].startswith(str(Path(wire.__file__).parent))
    assert not info["top_level_wire"]  # the worker's copy is the package untrusted, imported once
    assert info["limits"]["RLIMIT_AS"] == [3 * 2**30] * 2
    assert info["limits"]["RLIMIT_CPU"] == [100, 105]
    assert info["limits"]["RLIMIT_FSIZE"] == [10 * 2**20] * 2
    assert info["limits"]["RLIMIT_NOFILE"] == [128, 128]
    assert info["limits"]["RLIMIT_CORE"] == [0, 0]
    if SWITCHES_USER:  # as root, the worker runs as the sandbox user in a copy
        assert info["uid"] == isolation.sandbox_ids()[0]  # type: ignore[index]
        assert run_dir != submission.resolve() and run_dir_owner == info["uid"]
        assert info["limits"]["RLIMIT_NPROC"][0] >= Limits().processes
    else:
        assert run_dir == submission.resolve()


def test_process_limit_is_set_above_the_users_count_when_not_root(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    plan = {kind: (soft, hard) for kind, soft, hard in resource_plan(Limits(processes=40))}
    soft, hard = plan[resource.RLIMIT_NPROC]
    assert soft == hard and soft >= 40 + 1  # this test process's own tasks count too
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    assert resource.RLIMIT_NPROC not in {kind for kind, _, _ in resource_plan(Limits())}
    # A worker that runs as another user (the sandbox user) gets one even when we are root.
    plan = {kind: (soft, hard) for kind, soft, hard in resource_plan(Limits(processes=40),
                                                                      uid=54321)}
    assert plan[resource.RLIMIT_NPROC] == (40, 40)  # that uid runs nothing


def test_a_worker_short_of_cpu_time_is_replaced_before_the_call(submission: Path) -> None:
    with Sandbox(submission, limits=Limits(cpu_seconds=1)) as box:
        first = worker_pid(box, timeout=1)
        assert student(box, "add", 1, 2, timeout=1).value == 3
        assert worker_pid(box, timeout=1) != first


# -- the sandbox: student output ---------------------------------------------------------------


def test_output_is_captured_and_truncated_without_touching_the_protocol(
        submission: Path) -> None:
    with Sandbox(submission, limits=Limits(output_bytes=SMALL_OUTPUT)) as box:
        result = student(box, "chatty", 20_000)
        assert result.ok and result.value == 42, result
        assert result.stdout.startswith("line 0 xxx")
        assert len(result.stdout) < SMALL_OUTPUT + 100
        assert "[... truncated" in result.stdout and "[... truncated" in result.stderr
        dropped = int(result.stdout.rsplit("truncated ", 1)[1].split()[0])
        assert dropped + SMALL_OUTPUT > 2_000_000
        quiet = student(box, "add", 1, 2)
        assert quiet.ok and quiet.value == 3 and quiet.stdout == "" and quiet.stderr == ""


# -- the sandbox: hangs, exits and crashes -----------------------------------------------------


def test_a_hang_times_out_and_the_next_call_gets_a_fresh_worker(box: Sandbox) -> None:
    before = worker_pid(box)
    result = student(box, "spin", timeout=0.5)
    assert result.status == "timeout" and result.error is not None
    assert 0.5 <= result.elapsed < 2.0
    assert not alive(before)
    assert student(box, "add", 1, 2).value == 3
    assert worker_pid(box) != before


@pytest.mark.parametrize(("function", "status", "kind"), [
    ("leave", "error", "SystemExit"),
    ("interrupt", "error", "KeyboardInterrupt"),
    ("base_exception", "error", "BaseException"),
    ("leave_hard", "crashed", "WorkerCrashed"),
])
def test_exits_and_base_exceptions_in_a_function(box: Sandbox, function: str, status: str,
                                                 kind: str) -> None:
    result = student(box, function)
    assert result.status == status and result.error is not None, result
    assert result.error.type == kind
    assert student(box, "add", 1, 2).value == 3


@pytest.mark.parametrize(("module", "status", "kind"), [
    ("exit_at_import", "error", "SystemExit"),
    ("hard_exit_at_import", "crashed", "WorkerCrashed"),
])
def test_exits_at_import(box: Sandbox, module: str, status: str, kind: str) -> None:
    result = box.call("import_module", {"module": module}, timeout=CALL_TIMEOUT)
    assert result.status == status and result.error is not None, result
    assert result.error.type == kind
    if status == "crashed":
        assert "exited with code 0" in result.error.message
    assert student(box, "add", 1, 2).value == 3


def test_a_memory_bomb_is_stopped_by_the_limit(box: Sandbox) -> None:
    result = student(box, "memory_bomb")
    assert result.status in ("error", "crashed"), result
    if result.status == "error":
        assert result.error is not None and result.error.type == "MemoryError"
    assert student(box, "add", 1, 2).value == 3


def test_recursion_blowup_is_an_error_with_a_short_traceback(box: Sandbox) -> None:
    result = student(box, "recurse")
    assert result.status == "error" and result.error is not None
    assert result.error.type == "RecursionError"
    assert result.error.traceback[0].startswith("... (")
    assert len(result.error.traceback) <= 2 * 20 + 2


def test_a_segfault_is_a_crash_with_a_python_traceback(box: Sandbox) -> None:
    result = student(box, "segfault")
    assert result.status == "crashed" and result.error is not None
    assert "SIGSEGV" in result.error.message
    assert "Segmentation fault" in result.stderr
    assert student(box, "add", 1, 2).value == 3


@pytest.mark.parametrize(("payload", "detail"), [
    ("junk", "bad magic"),
    ((wire.MAGIC + (2**40).to_bytes(8, "big")).decode("latin-1"), "exceeds the limit"),
    (wire.encode_message({"id": 999, "ok": True, "result": "forged"}).decode("latin-1"),
     "answers request 999"),
], ids=["junk", "oversized", "forged"])
def test_writes_to_the_protocol_channel_are_protocol_errors(box: Sandbox, payload: str,
                                                           detail: str) -> None:
    result = student(box, "scribble", payload)
    assert result.status == "protocol_error" and result.error is not None
    assert detail in result.error.message
    assert student(box, "add", 1, 2).value == 3


# -- tracebacks --------------------------------------------------------------------------------


def assert_no_private_paths(lines: list[str] | tuple[str, ...], submission: Path) -> None:
    for line in lines:
        assert str(submission) not in line and os.path.realpath(submission) not in line
        assert "site-packages" not in line and "worker.py" not in line and "probes.py" not in line


def test_tracebacks_keep_only_submission_frames(box: Sandbox, submission: Path) -> None:
    result = student(box, "nested")
    assert result.status == "error" and result.error is not None
    lines = result.error.traceback
    assert lines[0].startswith('File "student.py", line ') and lines[0].endswith("in nested")
    assert lines[1] == "    return helper.reshape_wrong()"
    assert lines[2].startswith('File "helper.py", line 5, in reshape_wrong')
    assert lines[-1] == "ValueError: cannot reshape array of size 3 into shape (2,2)"
    assert len(lines) == 5
    assert_no_private_paths(lines, submission)


def test_syntax_errors_show_the_student_file_relative(box: Sandbox, submission: Path) -> None:
    result = box.call("import_module", {"module": "broken"}, timeout=CALL_TIMEOUT)
    assert result.status == "error" and result.error is not None
    assert result.error.type == "SyntaxError"
    assert any(line.strip().startswith('File "broken.py", line 1') for line in
               result.error.traceback), result.error.traceback
    assert_no_private_paths(result.error.traceback, submission)


def test_missing_modules_are_import_errors(box: Sandbox) -> None:
    result = box.call("import_module", {"module": "parser_model"}, timeout=CALL_TIMEOUT)
    assert result.status == "error" and result.error is not None
    assert result.error.type == "ModuleNotFoundError"
    assert result.error.message == "No module named 'parser_model'"


# -- the in-process runner ---------------------------------------------------------------------


def test_in_process_runner_matches_the_sandbox_on_good_code(submission: Path,
                                                            box: Sandbox) -> None:
    with InProcessRunner(submission) as runner:
        assert isinstance(runner, Runner)
        here, there = student(runner, "values"), student(box, "values")
        assert here.status == there.status == "ok"
        assert set(here.value) == set(there.value)
        for key in ("count", "word", "half", "nothing"):
            assert here.value[key] == there.value[key]
        assert np.array_equal(here.value["matrix"], there.value["matrix"])
        assert here.value["pair"][1][1].dtype == there.value["pair"][1][1].dtype
        assert student(runner, "add", np.ones(2), 1).value.tolist() == [2.0, 2.0]
        error = student(runner, "nested")
        assert error.status == "error" and error.error is not None
        assert error.error.traceback == student(box, "nested").error.traceback  # type: ignore
        printed = runner.call("call", {"module": "builtins", "function": "print",
                                       "args": ["hello"]}, timeout=CALL_TIMEOUT)
        assert printed.ok and printed.stdout == "hello\n"
    assert "student" not in sys.modules and "helper" not in sys.modules
