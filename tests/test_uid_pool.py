"""One sandbox user per concurrent worker (issue 34, grader/sandbox/uids.py): under
``grader batch --workers 2`` a submission that fills its process allowance cannot lower another's
(RLIMIT_NPROC counts every task of a user), and two workers that run at once are different users
(so neither can signal the other or reach its folders)."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import REFERENCE

from a2.registry import STUDENT_FILES
from grader.cli import main
from grader.sandbox import Sandbox, isolation

MODE = isolation.detect()
needs_sandbox_user = pytest.mark.skipif(not MODE.switches_user, reason=(
    f"workers run as users of their own only when the grader runs as root with the sandbox user (here: {MODE.mode!r}: "
    f"{MODE.note})"))

HOLDER = '''
import os as _os
import time as _time

_time.sleep(5)                      # the other grading's worker is running by now
for _ in range(400):                # take every process this user may start, and keep them
    try:
        _pid = _os.fork()
    except OSError:
        break
    if _pid == 0:
        _time.sleep(90)
        _os._exit(0)
_time.sleep(25)                     # hold them while the other submission works
'''
SPAWNER = '''
import subprocess as _subprocess
import time as _time

_time.sleep(14)                     # while the other submission holds its processes
try:
    _subprocess.run(["/bin/true"], check=True, timeout=30)
    _SPAWNED = ""
except Exception as _exc:  # noqa: BLE001
    _SPAWNED = f"{type(_exc).__name__}: {_exc}"
_reference_sigmoid = sigmoid


def sigmoid(x):
    if _SPAWNED:
        raise RuntimeError("could not start a process: " + _SPAWNED)
    return _reference_sigmoid(x)
'''


@needs_sandbox_user
def test_two_sandboxes_at_once_run_as_two_users(tmp_path: Path):
    (tmp_path / "who.py").write_text("import os\n\ndef me():\n    return os.getuid()\n")
    with Sandbox(tmp_path) as first, Sandbox(tmp_path) as second:
        uids = [box.call("call", {"module": "who", "function": "me"}, timeout=60) for box in (first, second)]
    assert all(reply.ok for reply in uids), [(r.status, r.error) for r in uids]
    assert uids[0].value != uids[1].value and 0 not in {uids[0].value, uids[1].value}


def _submission(folder: Path, tail: str) -> None:
    folder.mkdir(parents=True)
    for name in STUDENT_FILES:
        shutil.copy(REFERENCE / name, folder / name)
    with open(folder / "word2vec.py", "a", encoding="utf-8") as out:
        out.write("\n\n# -- appended by the test --\n" + tail)


@pytest.mark.slow
@needs_sandbox_user
def test_a_fork_holder_does_not_cost_the_other_grading_its_processes(tmp_path: Path):
    """`grader batch --workers 2` of a submission that takes every process its user may start and
    keeps them, beside one that starts a process meanwhile: the second still scores."""
    classdir, out = tmp_path / "class", tmp_path / "out"
    _submission(classdir / "holder", HOLDER)
    _submission(classdir / "spawner", SPAWNER)
    result = CliRunner().invoke(main, ["batch", str(classdir), "--out", str(out), "--workers", "2",
                                       "--only", "w2v_sigmoid", "--seed", "34"])
    assert result.exit_code == 0, result.output[-3000:]
    with open(out / "grades.csv", newline="", encoding="utf-8") as f:
        rows = {row["submission"]: row for row in csv.DictReader(f)}
    assert rows["spawner"]["w2v_sigmoid"] == "1", rows["spawner"]
