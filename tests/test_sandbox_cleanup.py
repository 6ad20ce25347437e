"""What student code left is removed (the sweep, as the sandbox user), and the worker's files:
the framework's worker and the assignment's probes."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from grader.sandbox import (
    isolation,
)

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
