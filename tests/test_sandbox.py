"""The process boundary: the wire codec, the worker and Sandbox/InProcessRunner.

Every wait here is bounded by the test itself (timeouts on calls, deadlines on polling loops).
Student behaviour is simulated by small modules written into a submission folder.
"""

from __future__ import annotations

import gc
import io
import json
import os
import resource
import signal
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from grader.sandbox import (
    InProcessRunner,
    Limits,
    ProbeResult,
    Runner,
    Sandbox,
    SandboxError,
    isolation,
)
from grader.sandbox.limits import resource_plan, worker_environment
from grader.untrusted import wire

CALL_TIMEOUT = 5.0
WAIT_LIMIT = 5.0
SMALL_OUTPUT = 4096

STUDENT = '''
import ctypes
import os
import resource
import sys
import threading
import time

import numpy as np

import helper


def values():
    return {"matrix": np.arange(6.0).reshape(2, 3), "half": 0.5, "count": 3, "word": "parsed",
            "pair": (1, [2.0, np.float32(0.25)]), "nan": float("nan"), "nothing": None}


def add(x, y):
    return x + y


def chatty(lines):
    for i in range(lines):
        print("line", i, "x" * 100)
    sys.stderr.write("e" * 200_000)
    os.write(1, b"written to fd 1 directly\\n")
    return 42


def spin():
    while True:
        pass


def leave():
    sys.exit(0)


def leave_hard():
    os._exit(0)


def interrupt():
    raise KeyboardInterrupt


def base_exception():
    raise BaseException("not an Exception")


def memory_bomb():
    block = np.zeros(10 * 2**30, dtype=np.uint8)  # 10 GB, never touched
    return block.nbytes


def recurse(depth=0):
    return recurse(depth + 1)


def segfault():
    ctypes.string_at(0)


def nested():
    return helper.reshape_wrong()


def unsupported():
    return object()


def big(n):
    return np.zeros(n, dtype=np.uint8)


def tensor():
    import torch
    return torch.ones(2, 3, requires_grad=True) * 2


def leak_descriptors(unused):
    kept = []
    while True:
        try:
            kept.append(os.open(os.devnull, os.O_RDONLY))
        except OSError:
            return len(kept)


def immortal_thread(path):
    def beat():
        while True:
            with open(path, "a") as out:
                out.write(".")
            time.sleep(0.01)
    threading.Thread(target=beat).start()  # not a daemon: it would block a normal exit
    return "started"


def _sleeper(path, leave_session):
    try:
        if leave_session:
            os.setsid()
        with open(path, "a") as out:
            out.write(f"{os.getpid()} {int(leave_session)}\\n")
        time.sleep(1000)
    finally:
        os._exit(0)


def fork_and_sleep(path, children, then):
    for _ in range(children):
        if os.fork() == 0:
            _sleeper(path, leave_session=False)
    if os.fork() == 0:  # a double fork into a new session: the orphan is re-parented
        if os.fork() == 0:
            _sleeper(path, leave_session=True)
        os._exit(0)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and (
            not os.path.exists(path) or len(open(path).readlines()) < children + 1):
        time.sleep(0.01)
    if then == "exit":
        os._exit(3)
    while then == "spin":
        pass
    return "forked"


def fork_bomb():
    while True:
        try:
            os.fork()
        except OSError:
            pass


def scribble(payload):
    data = payload.encode("latin-1")
    for fd in range(3, 64):
        try:
            os.write(fd, data)
        except OSError:
            pass
    return "scribbled"


def inspect():
    return {
        "cwd": os.getcwd(),
        "path0": sys.path[0],
        "env": dict(os.environ),
        "wire_file": sys.modules["untrusted.wire"].__file__,
        "top_level_wire": "wire" in sys.modules,
        "grader_imported": "grader" in sys.modules,
        "uid": os.getuid(),
        "limits": {name: list(resource.getrlimit(getattr(resource, name)))
                   for name in ("RLIMIT_AS", "RLIMIT_CPU", "RLIMIT_FSIZE", "RLIMIT_NOFILE",
                                "RLIMIT_CORE", "RLIMIT_NPROC")},
    }
'''

FILES = {
    "student.py": STUDENT,
    "helper.py": "import numpy as np\n\n\ndef reshape_wrong():\n"
                 "    return np.arange(3).reshape(2, 2)\n",
    "broken.py": "def f(:\n    pass\n",
    "exit_at_import.py": "import sys\nsys.exit(0)\n",
    "hard_exit_at_import.py": "import os\nos._exit(0)\n",
}


@pytest.fixture(scope="module")
def submission(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("submission")
    for name, text in FILES.items():
        (folder / name).write_text(textwrap.dedent(text))
    return folder


@pytest.fixture
def box(submission: Path) -> Iterator[Sandbox]:
    with Sandbox(submission) as sandbox:
        yield sandbox


def student(runner: Runner, function: str, *args: Any,
            timeout: float = CALL_TIMEOUT) -> ProbeResult:
    return runner.call("call", {"module": "student", "function": function, "args": list(args)},
                       timeout=timeout)


def worker_pid(box: Sandbox, timeout: float = CALL_TIMEOUT) -> int:
    """The host pid of the box's worker (ping's own pid is the one inside its namespace)."""
    result = box.call("ping", {}, timeout=timeout)
    assert result.ok, result
    assert box.worker_pid is not None
    return box.worker_pid


def namespace_of(pid: int) -> str | None:
    """The PID namespace a process is in, or None if it is gone."""
    try:
        return os.readlink(f"/proc/{pid}/ns/pid")
    except OSError:
        return None


def members(namespace: str) -> list[int]:
    """The live processes of a PID namespace."""
    return [int(entry) for entry in os.listdir("/proc")
            if entry.isdigit() and namespace_of(int(entry)) == namespace and alive(int(entry))]


NAMESPACED = isolation.detect().mode == "namespaces"
SWITCHES_USER = isolation.detect().switches_user


def wait_until(condition: Callable[[], bool], limit: float = WAIT_LIMIT) -> bool:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


def alive(pid: int) -> bool:
    """os.kill(pid, 0) succeeds and the process is not a zombie (this VM's init never reaps)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            state = stat.read().rsplit(b")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in (b"Z", b"X")


def recorded_pids(path: Path, count: int) -> dict[int, bool]:
    """The pids that student processes wrote to ``path``, each with whether it left the
    worker's session."""
    assert wait_until(lambda: path.exists() and len(path.read_text().splitlines()) >= count), \
        f"expected {count} pids in {path}"
    return {int(pid): left == "1" for pid, left in
            (line.split() for line in path.read_text().splitlines())}


# -- wire --------------------------------------------------------------------------------------


def round_trip(value: Any) -> Any:
    reader = wire.FrameReader()
    reader.feed(wire.encode_message(value))
    body = reader.pop()
    assert body is not None and reader.buffered == 0
    return wire.decode_message(body)


@pytest.mark.parametrize("array", [
    np.linspace(-1, 1, 12).reshape(3, 4),
    np.arange(10, dtype=np.float32),
    np.arange(-5, 5, dtype=np.int64),
    np.arange(7, dtype=np.int32),
    np.arange(255, dtype=np.uint8),
    np.array([True, False, True]),
    np.array([1 + 2j, -3j]),
    np.array(["ROOT", "parsed", "this"]),
    np.asfortranarray(np.arange(6.0).reshape(2, 3)),
    np.arange(20.0).reshape(4, 5)[::2, 1::2],
    np.array(3.5),
    np.zeros((0, 3)),
    np.array([np.nan, np.inf, -np.inf, -0.0]),
], ids=lambda array: f"{array.dtype}-{array.shape}")
def test_arrays_round_trip_with_dtype_shape_and_values(array: np.ndarray) -> None:
    back = round_trip({"x": array})["x"]
    assert type(back) is np.ndarray and back.dtype == array.dtype and back.shape == array.shape
    assert np.array_equal(back, array, equal_nan=array.dtype.kind in "fc")
    assert back.flags.writeable


def test_nested_values_round_trip_and_tuples_become_lists() -> None:
    value = {"a": [1, 2.5, None, True, "é\u2603", {"deep": [[[]]]}], "b": (1, (2, 3)),
             "big": 10**30, "neg_zero": -0.0}
    assert round_trip(value) == {**value, "b": [1, [2, 3]]}
    assert str(round_trip(-0.0)) == "-0.0"


def test_non_finite_floats_round_trip() -> None:
    back = round_trip([float("nan"), float("inf"), float("-inf")])
    assert np.isnan(back[0]) and back[1] == np.inf and back[2] == -np.inf


def test_numpy_scalars_travel_as_zero_d_arrays_keeping_their_dtype() -> None:
    back = round_trip([np.float32(0.25), np.int16(3), np.bool_(True)])
    assert [(item.shape, item.dtype) for item in back] == [
        ((), np.float32), ((), np.int16), ((), np.bool_)]


@pytest.mark.parametrize(("value", "fragment"), [
    (np.array([object(), 1], dtype=object), "dtype object"),
    (np.zeros(2, dtype=[("a", "f8")]), "cannot be sent"),
    (np.array(["2024-01-01"], dtype="datetime64[D]"), "kind 'M'"),
    ({1, 2}, "cannot send a set"),
    ({1: "x"}, "keys must be str"),
    ({"__ndarray__": 0}, "reserved"),
    (object(), "cannot send a object"),
])
def test_encode_refuses_what_it_cannot_carry(value: Any, fragment: str) -> None:
    with pytest.raises(wire.WireError, match=fragment):
        wire.encode_message(value)


def test_encode_refuses_cycles_and_deep_nesting() -> None:
    cycle: list[Any] = []
    cycle.append(cycle)
    with pytest.raises(wire.WireError, match="nest"):
        wire.encode_message(cycle)


def body_with(header: Any, *blobs: bytes, raw_json: bytes | None = None) -> bytes:
    text = raw_json if raw_json is not None else json.dumps(header).encode()
    parts = [wire.JSON_LENGTH.pack(len(text)), text]
    for blob in blobs:
        parts += [wire.ARRAY_LENGTH.pack(len(blob)), blob]
    return b"".join(parts)


def test_decode_refuses_object_arrays_without_unpickling(tmp_path: Path) -> None:
    marker = tmp_path / "unpickled"

    class Trap:
        def __reduce__(self) -> tuple[Any, ...]:
            return (Path.touch, (marker,))

    buffer = io.BytesIO()
    np.save(buffer, np.array([Trap()], dtype=object), allow_pickle=True)
    with pytest.raises(wire.WireError, match="dtype object"):
        wire.decode_message(body_with({"__ndarray__": 0}, buffer.getvalue()))
    assert not marker.exists()  # unpickling the array would have created it


def npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()


@pytest.mark.parametrize(("body", "fragment"), [
    (b"\x00", "too short"),
    (body_with(None, raw_json=b"[NaN]"), "NaN is not allowed"),
    (body_with(None, raw_json=b"[" * 100_000 + b"]" * 100_000), "invalid JSON|nested"),
    (body_with(None, raw_json=b"\xff"), "invalid JSON"),
    (body_with({"__ndarray__": 1}, npy(np.ones(2))), "out of range"),
    (body_with({"__ndarray__": True}, npy(np.ones(2))), "out of range"),
    (body_with({"__float__": "lots"}), "unknown non-finite"),
    (body_with({"__ndarray__": 0}, npy(np.ones(4))[:-8]), "promises"),
    (body_with({"__ndarray__": 0}, npy(np.ones(4)) + b"\x00" * 8), "promises"),
    (body_with({"__ndarray__": 0}, b"not an npy file"), "invalid array header"),
    (body_with([])[:-1] + b"\x00\x00", "truncated"),
])
def test_decode_refuses_malformed_bodies(body: bytes, fragment: str) -> None:
    with pytest.raises(wire.WireError, match=fragment):
        wire.decode_message(body)


def test_huge_array_header_is_refused_before_allocating() -> None:
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(buffer, {"descr": "<f8", "fortran_order": False,
                                                  "shape": (10**13,)})
    with pytest.raises(wire.WireError, match="promises"):
        wire.decode_message(body_with({"__ndarray__": 0}, buffer.getvalue() + b"\x00" * 8))


def json_body(text: bytes) -> bytes:
    return wire.JSON_LENGTH.pack(len(text)) + text


def test_a_reply_that_would_decode_to_too_many_values_is_refused_before_decoding() -> None:
    n = wire.MAX_JSON_VALUES
    with pytest.raises(wire.WireError, match=f"at most {n} are decoded"):
        wire.decode_message(json_body(b"[" + b"[[]]," * (n // 2) + b"[]]"))
    with pytest.raises(wire.WireError, match="values"):  # strings count once each
        wire.decode_message(json_body(b'["' + b'a","' * n + b'"]'))
    # Commas, brackets and braces inside strings are not values: a long message still decodes.
    text = 'x, [y], {"z"}: \\ \" ' * n
    assert wire.decode_message(json_body(json.dumps({"message": text}).encode())) == {"message": text}
    nested = {"a": [[1, 2], {"b": [3, np.arange(2)]}], "c": [float("nan")]}
    decoded = wire.decode_message(wire.encode_message(nested)[wire.FRAME_HEADER.size:])
    assert decoded["a"][0] == [1, 2] and np.array_equal(decoded["a"][1]["b"][1], np.arange(2))
    assert np.isnan(decoded["c"][0])


def test_frame_reader_refuses_oversized_frames_from_the_header_alone() -> None:
    reader = wire.FrameReader(max_bytes=1000)
    with pytest.raises(wire.FrameTooLarge, match="exceeds the limit of 1000"):
        reader.feed(wire.FRAME_HEADER.pack(wire.MAGIC, 10 * 2**30))
    with pytest.raises(wire.FrameTooLarge):
        wire.encode_message(np.zeros(2000), max_bytes=1000)


def test_frame_reader_refuses_bad_magic_at_once() -> None:
    with pytest.raises(wire.WireError, match="bad magic"):
        wire.FrameReader().feed(b"junk")


def test_frame_reader_reassembles_frames_split_anywhere() -> None:
    frames = wire.encode_message({"a": np.arange(5)}) + wire.encode_message([1, "two"])
    reader = wire.FrameReader()
    bodies = []
    for byte in frames:
        reader.feed(bytes([byte]))
        body = reader.pop()
        if body is not None:
            bodies.append(wire.decode_message(body))
    assert len(bodies) == 2 and bodies[1] == [1, "two"]
    assert np.array_equal(bodies[0]["a"], np.arange(5))


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


# -- removing what student code left (issue 27) --------------------------------------------------


def _deep_chain(top: Path, depth: int) -> None:
    """``depth`` nested folders under ``top`` (built with descriptors: the path passes PATH_MAX),
    a file at the bottom and a folder of mode 000 there."""
    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    for _ in range(depth):
        os.mkdir("d", dir_fd=fd)
        child = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = child
    os.close(os.open("bottom", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd))
    os.mkdir("closed", dir_fd=fd)
    os.chmod("closed", 0, dir_fd=fd)
    os.close(fd)


def test_remove_tree_needs_no_recursion(tmp_path):
    """A 3,001-level chain (where shutil.rmtree raises RecursionError) is removed, and a bound on
    time is kept."""
    from grader.sandbox import sweep

    top = tmp_path / "run"
    top.mkdir()
    _deep_chain(top, 3001)
    (top / "link").symlink_to(tmp_path / "outside")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "kept").write_text("not the tree's")
    with pytest.raises(sweep.SweepTimeout):
        sweep.empty_tree(top, seconds=0)
    assert sweep.remove_tree(top)
    assert not top.exists()
    assert (tmp_path / "outside" / "kept").read_text() == "not the tree's", "a link was followed"
    assert sweep.remove_tree(top), "a missing tree is removed already"


@pytest.mark.skipif(os.geteuid() != 0 or isolation.sandbox_ids() is None,
                    reason="needs root and the sandbox user: the sweep runs as that user")
def test_sweep_as_the_sandbox_user_empties_its_folder_and_removes_its_ipc_objects():
    """What the sandbox user made (a deep tree in its folder, a System V segment) is removed by
    the sweep that runs as that user; the grader's own file next to its folder is not."""
    import ctypes
    import tempfile

    from grader.sandbox import folders, sweep

    uid, gid = isolation.sandbox_ids()  # type: ignore[misc]
    tmp_path = Path(tempfile.mkdtemp(prefix="a2grader-i27-sweep-"))  # reachable by the sandbox user
    tmp_path.chmod(0o755)
    try:
        _sweep_as_the_sandbox_user(tmp_path, uid, gid, ctypes, folders)
    finally:
        sweep.remove_tree(tmp_path)


def _sweep_as_the_sandbox_user(tmp_path: Path, uid: int, gid: int, ctypes: Any, folders: Any) -> None:
    run = tmp_path / "run"
    run.mkdir()
    os.chown(run, uid, gid)
    (tmp_path / "graders.txt").write_text("the grader's")
    key = 0xA2270099
    pid = os.fork()
    if pid == 0:  # as the sandbox user: a deep tree and a shared memory segment
        code = 1
        try:
            os.setgroups([])
            os.setgid(gid)
            os.setuid(uid)
            _deep_chain(run, 1200)
            code = 0 if ctypes.CDLL(None).shmget(key, 4096, 0o1000 | 0o600) >= 0 else 1
        finally:
            os._exit(code)
    assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0
    assert folders.sweep_as(isolation.Isolation("user", uid, gid), [str(run)], ipc=True)
    assert list(run.iterdir()) == []
    assert (tmp_path / "graders.txt").read_text() == "the grader's"
    with open("/proc/sysvipc/shm", encoding="ascii") as table:
        assert key not in {int(line.split()[0]) & 0xFFFFFFFF for line in table.readlines()[1:]}


# -- the worker's files: the framework's worker and the assignment's probes ---------------------

def test_worker_folder_holds_the_framework_worker_and_the_assignment_probes():
    """The sandbox copies grader/untrusted/ and the assignment's untrusted/ into one folder; the
    worker registers every probes_*.py there (none listed by hand in the framework)."""
    from grader import assignment
    from grader.sandbox.folders import worker_files

    files = worker_files()
    names = [p.name for p in files]
    assert len(names) == len(set(names)) and "__init__.py" not in names
    assert {"worker.py", "wire.py", "probes.py"} <= set(names)
    probes = {p.stem for p in files if p.parent == assignment.untrusted_folder() and p.name.startswith("probes_")}
    assert {"probes_word2vec", "probes_parser"} <= probes


def test_in_process_worker_registers_the_assignment_probes():
    from grader.common.paths import REFERENCE_DIR
    from grader.sandbox.inprocess import InProcessRunner
    from grader.untrusted import probes

    with InProcessRunner(REFERENCE_DIR) as runner:
        assert runner.call("w2v_sigmoid", {"inputs": [0.0]}).value == [0.5]
    assert {"probes_word2vec", "probes_parser", "probes_model", "probes_training"} <= set(probes.probe_modules())
    assert {"ping", "call", "w2v_sigmoid"} <= set(probes.PROBES)


def test_portable_runner_names_the_worker_folders_variable_the_worker_reads():
    from grader.sandbox import portable
    from grader.untrusted import worker

    assert portable.WORKER_FOLDERS_VARIABLE == worker.FOLDERS_VARIABLE
