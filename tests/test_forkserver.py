"""The fork server (grader/sandbox/zygote.py, forkserver.py): a forked worker is confined as a
cold-started one (same user, environment, view of the files, no descriptor to the fork server),
and both ways of starting workers grade the reference to the same scores."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from grader.common.paths import REFERENCE_DIR
from grader.run.engine import grade
from grader.run.settings import GradingSettings
from grader.sandbox import Sandbox, isolation
from grader.sandbox.forkserver import PRELOAD, ForkedProcess

pytestmark = pytest.mark.skipif(not isolation.detect().switches_user,
                                reason="the fork server serves only workers run as the sandbox user (root)")

LOOK = ("import os, sys\n"
        "def look():\n"
        "    return {'uid': os.getuid(), 'euid': os.geteuid(), 'fds': sorted(os.listdir('/proc/self/fd')),\n"
        "            'env': dict(os.environ), 'repo': os.path.exists(%r), 'cwd': os.getcwd(),\n"
        "            'pids': sorted(p for p in os.listdir('/proc') if p.isdigit()),\n"
        "            'zygote': [m for m in ('confine', '__zygote__') if m in sys.modules],\n"
        "            'argv': sys.argv}\n")


def _seen(folder: Path, fork: bool) -> tuple[dict, str]:
    with Sandbox(folder, preload=PRELOAD, fork=fork) as box:
        result = box.call("call", {"module": "look", "function": "look", "args": []}, timeout=60)
        assert result.ok, result
        kind = type(box._worker.proc).__name__
    return result.value, kind


def test_a_forked_worker_is_confined_like_a_cold_one(tmp_path: Path) -> None:
    (tmp_path / "look.py").write_text(LOOK % str(REFERENCE_DIR))
    cold, cold_kind = _seen(tmp_path, fork=False)
    forked, forked_kind = _seen(tmp_path, fork=True)
    assert (cold_kind, forked_kind) == ("Popen", ForkedProcess.__name__)
    for key in ("uid", "euid", "repo"):
        assert forked[key] == cold[key], key
    assert forked["argv"][0] == cold["argv"][0] == "probe"
    assert forked["uid"] == isolation.detect().uid and not forked["repo"]
    own = ("HOME", "TMPDIR", "MPLCONFIGDIR")  # each sandbox's own private folder
    assert {k: v for k, v in forked["env"].items() if k not in own} == {k: v for k, v in cold["env"].items() if k not in own}
    assert set(forked["env"]) == set(cold["env"])
    # Only what a cold worker has: stdio, the two protocol pipes and the listing's own descriptor.
    assert len(forked["fds"]) <= len(cold["fds"]) and forked["fds"] == ["0", "1", "2", "3", "4", "5"][:len(forked["fds"])]
    assert forked["zygote"] == []
    assert len(forked["pids"]) == len(cold["pids"])


def test_cold_and_forked_workers_grade_the_reference_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    skip = ["train_uas"]  # minutes of training; its worker starts as the others do
    only = [spec_id for spec_id in _code_check_ids() if spec_id not in skip]
    scores = {}
    for start in ("cold", "fork"):
        monkeypatch.setenv("A2GRADER_WORKER_START", start)
        report = grade(REFERENCE_DIR, GradingSettings(seed=23, only=only, include_written=False))
        scores[start] = {c.id: c.score for c in report.checks}
    assert scores["cold"] == scores["fork"]
    assert sum(scores["fork"].values()) > 0 and len(scores["fork"]) == len(only)


def _code_check_ids() -> list[str]:
    from grader.run.rubric import load_rubric

    return [spec.id for spec in load_rubric().checks]


def test_no_worker_descriptor_reaches_the_fork_server() -> None:
    """The trusted side's end of the fork server's socket is not inheritable."""
    from grader.sandbox import forkserver

    server = forkserver.server_for(os.sys.executable, PRELOAD, {"PATH": "/usr/bin:/bin"})
    if server is None:
        pytest.skip("the fork server cannot start here")
    assert not os.get_inheritable(server.socket.fileno())
