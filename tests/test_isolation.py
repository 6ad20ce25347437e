"""grader.sandbox.isolation and grader.sandbox.confine: the sandbox user, the namespaces and what a worker sees.

Most of these need root (as on Gradescope and in CI); they skip with the reason otherwise.
End-to-end behaviour of confined workers is in test_sandbox.py, test_sandbox_lifetimes.py and test_hostile.py.
"""

from __future__ import annotations

import os
import resource
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import REPO

from grader.common.paths import RUBRIC_PATH
from grader.sandbox import Sandbox, confine, isolation
from grader.sandbox.isolation import Isolation, IsolationError

ROOT = os.geteuid() == 0
needs_root = pytest.mark.skipif(not ROOT, reason="switching to the sandbox user needs root")
MODE = isolation.detect()
needs_namespaces = pytest.mark.skipif(MODE.mode != "namespaces",
                                      reason=f"namespaces unavailable here: {MODE.note}")
LAUNCH_TIMEOUT_S = 60


@pytest.fixture
def private() -> Iterator[Path]:
    """A sandbox-style private folder in the shared temporary folder, with a run/ of the
    sandbox user's (when there is one)."""
    folder = Path(tempfile.mkdtemp(prefix="a2grader-test-"))
    folder.chmod(0o755)
    (folder / "run").mkdir(mode=0o700)
    ids = isolation.sandbox_ids()
    if ROOT and ids:
        isolation.give_to(str(folder / "run"), *ids)
    yield folder
    subprocess.run(["rm", "-rf", str(folder)], check=False)


def launch(mode: Isolation, private: Path, command: list[str], *,
           rlimits: list[tuple[int, int, int]] | None = None,
           cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    plan = isolation.confine_plan(mode, private_dir=str(private), cwd=str(cwd or private / "run"),
                                  argv=command, env={"PATH": "/usr/bin:/bin"},
                                  rlimits=rlimits or [])
    return subprocess.run(isolation.launcher_command(plan), capture_output=True, text=True,
                          timeout=LAUNCH_TIMEOUT_S, cwd="/", env={}, check=False)


def as_user() -> Isolation:
    uid, gid = isolation.ensure_sandbox_user()
    return Isolation("user", uid, gid)


def in_namespaces() -> Isolation:
    uid, gid = isolation.ensure_sandbox_user()
    return Isolation("namespaces", uid, gid)


# -- the mode ----------------------------------------------------------------------------------


def test_modes_are_validated() -> None:
    with pytest.raises(ValueError, match="must be one of"):
        Isolation("chroot")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="needs the sandbox user's uid and gid"):
        Isolation("user", uid=0, gid=0)
    assert not Isolation.unconfined().switches_user


def test_not_root_means_unconfined_with_a_note(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    chosen = isolation._choose()
    assert chosen.mode == "none" and "not running as root" in chosen.note


def test_detect_chooses_once_and_says_why_when_partial(caplog: pytest.LogCaptureFixture) -> None:
    isolation.detect.cache_clear()
    try:
        with caplog.at_level("INFO", logger="grader.sandbox.isolation"):
            first = isolation.detect()
            assert isolation.detect() is first
        messages = [r.getMessage() for r in caplog.records if r.name == "grader.sandbox.isolation"]
        assert len(messages) == 1
        if first.mode == "namespaces":
            assert first.note == "" and "own namespaces" in messages[0]
        else:
            assert first.note and first.note in messages[0]
    finally:
        isolation.detect.cache_clear()
        assert isolation.detect() == MODE


@needs_root
def test_as_root_the_sandbox_user_exists_and_is_not_root() -> None:
    assert MODE.switches_user, MODE.note
    uid, gid = isolation.ensure_sandbox_user()
    assert (uid, gid) == (MODE.uid, MODE.gid) and uid > 0 and gid > 0
    assert isolation.sandbox_ids() == (uid, gid)


def test_a_sandbox_refuses_another_user_when_not_root(monkeypatch: pytest.MonkeyPatch,
                                                      tmp_path: Path) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    with pytest.raises(ValueError, match="needs root"):
        Sandbox(tmp_path, isolation=Isolation("user", 12345, 12345))


# -- the view of a namespaced worker -----------------------------------------------------------


def test_the_view_hides_the_grader_and_scratch_folders_and_binds_back_python(
        private: Path) -> None:
    hide, expose = isolation.view(str(private), sys.executable)
    assert hidden_by(os.path.realpath(REPO), hide)
    assert hidden_by(os.path.realpath(tempfile.gettempdir()), hide)
    exposed = dict(expose)
    assert exposed[os.path.realpath(private)] is True  # the only writable folder
    assert all(not writable for path, writable in expose if path != os.path.realpath(private))
    for path in exposed:  # each bound back into a hidden folder
        assert any(path.startswith(folder + "/") for folder in hide), path
    for folder in isolation.python_folders(sys.executable):  # Python stays reachable
        assert folder in exposed or not any(folder.startswith(h + "/") for h in hide)


def hidden_by(path: str, hide: list[str]) -> bool:
    return any(path == folder or path.startswith(folder + "/") for folder in hide)


def test_folders_python_lies_in_that_others_cannot_search_are_hidden_too(
        tmp_path: Path) -> None:
    closed = tmp_path / "closed"
    env = closed / "env" / "bin"
    env.mkdir(parents=True)
    closed.chmod(0o700)
    (env / "python").write_text("")
    hide, _ = isolation.view("/nonexistent-private", str(env / "python"))
    assert hidden_by(str(closed), hide)


def test_the_view_refuses_to_hide_what_the_worker_needs(monkeypatch: pytest.MonkeyPatch,
                                                        private: Path) -> None:
    monkeypatch.setenv(isolation.EXTRA_HIDDEN_VARIABLE, sys.prefix)
    with pytest.raises(IsolationError, match="the worker needs it"):
        isolation.view(str(private), sys.executable)


@needs_root
def test_closing_a_disposable_autograder_folder(monkeypatch: pytest.MonkeyPatch,
                                                tmp_path: Path) -> None:
    fake = tmp_path / "autograder"
    (fake / "source").mkdir(parents=True)
    fake.chmod(0o755)
    monkeypatch.setattr(isolation, "GRADESCOPE_ROOT", fake)
    assert isolation.close_disposable_folders() == [str(fake)]
    assert stat.S_IMODE(fake.stat().st_mode) == 0o750
    assert isolation.close_disposable_folders() == []  # already closed


# -- the launcher ------------------------------------------------------------------------------


@needs_root
def test_the_launcher_drops_to_the_sandbox_user_for_good(private: Path) -> None:
    mode = as_user()
    shell = "id -u; id -g; id -G; grep NoNewPrivs /proc/self/status; ulimit -n; pwd"
    done = launch(mode, private, ["/bin/sh", "-c", shell],
                  rlimits=[(resource.RLIMIT_NOFILE, 100, 100)])
    assert done.returncode == 0, done.stderr
    uid, gid, groups, no_new_privs, files, cwd = done.stdout.split("\n")[:6]
    assert (int(uid), int(gid), groups.split()) == (mode.uid, mode.gid, [str(mode.gid)])
    assert no_new_privs.split() == ["NoNewPrivs:", "1"]
    assert files == "100" and cwd == str(private / "run")


@needs_root
def test_the_launcher_reports_a_failed_step_and_never_runs_the_command(private: Path) -> None:
    marker = private / "run" / "ran"
    done = launch(as_user(), private, ["/bin/touch", str(marker)], cwd=private / "missing")
    assert done.returncode == confine.EXIT_SETUP_FAILED
    assert done.stderr.startswith("confine: ") and "missing" in done.stderr
    assert not marker.exists()


@needs_root
@needs_namespaces
def test_in_namespaces_the_worker_sees_no_grader_no_network_and_only_its_processes(
        private: Path) -> None:
    script = ("import os, sys; print(os.getpid()); "
              "print(sorted(os.listdir(sys.argv[1])) if os.path.isdir(sys.argv[1]) else []); "
              "print(os.path.exists(sys.argv[2])); print(open('/proc/net/dev').read().count(':')); "
              "print(sum(p.isdigit() for p in os.listdir('/proc'))); "
              "print(sorted(os.listdir(sys.argv[3])))")
    done = launch(in_namespaces(), private, [sys.executable, "-c", script, str(REPO),
                                             str(RUBRIC_PATH), tempfile.gettempdir()])
    assert done.returncode == 0, done.stderr
    pid, repo, rubric, interfaces, processes, scratch = done.stdout.split("\n")[:6]
    assert pid == "2"  # the namespace's init is 1
    venv = os.path.relpath(sys.prefix, REPO) if sys.prefix.startswith(str(REPO)) else None
    assert repo == str([venv.split("/")[0]] if venv else [])
    assert rubric == "False"
    assert interfaces == "1"  # loopback only
    assert processes == "2"
    # Only the private folder shows in the scratch folder, and the Python environment where it is
    # bound back (a checkout under /tmp keeps its venv there).
    tmp = os.path.realpath(tempfile.gettempdir())
    prefix = os.path.realpath(sys.prefix)
    bound = [os.path.relpath(prefix, tmp).split("/")[0]] if prefix.startswith(tmp + os.sep) else []
    assert scratch == str(sorted([private.name, *bound]))


@needs_root
@needs_namespaces
def test_in_namespaces_every_process_dies_with_the_worker(private: Path) -> None:
    """A grandchild that left the worker's session is gone as soon as the worker ends."""
    script = ("import os, time\n"
              "if os.fork() == 0:\n"
              "    os.setsid()\n"
              "    if os.fork() == 0:\n"
              "        open('orphan', 'w').write(open('/proc/self/stat').read().split()[0])\n"
              "        time.sleep(600)\n"
              "    os._exit(0)\n"
              "time.sleep(0.5)\n"
              "print(os.readlink('/proc/self/ns/pid'))\n")
    done = launch(in_namespaces(), private, [sys.executable, "-c", script])
    assert done.returncode == 0, done.stderr
    assert (private / "run" / "orphan").read_text().strip() == "4"  # it did start
    namespace = done.stdout.strip()
    assert namespace.startswith("pid:[")
    assert [pid for pid in os.listdir("/proc") if pid.isdigit() and _namespace(pid) == namespace] == []


def _namespace(pid: str) -> str | None:
    try:
        return os.readlink(f"/proc/{pid}/ns/pid")
    except OSError:
        return None


@needs_root
def test_the_exit_status_is_the_workers(private: Path) -> None:
    for mode in [as_user()] + ([in_namespaces()] if MODE.mode == "namespaces" else []):
        assert launch(mode, private, ["/bin/sh", "-c", "exit 7"]).returncode == 7
        assert launch(mode, private, ["/bin/sh", "-c", "kill -SEGV $$"]).returncode == -11


# -- the sandbox's copy ------------------------------------------------------------------------


@needs_root
def test_the_sandbox_runs_a_private_copy_and_never_reads_through_links(tmp_path: Path) -> None:
    if not MODE.switches_user:
        pytest.skip(MODE.note)
    secret_dir = tmp_path / "secret"
    secret_dir.mkdir(mode=0o700)
    (secret_dir / "key.txt").write_text("s3cret")
    upload = tmp_path / "upload"
    upload.mkdir()
    (upload / "peek.py").write_text(
        "def read(path):\n    try:\n        return open(path).read()\n"
        "    except OSError as exc:\n        return type(exc).__name__\n")
    (upload / "link.txt").symlink_to(secret_dir / "key.txt")
    with Sandbox(upload) as box:
        result = box.call("call", {"module": "peek", "function": "read", "args": ["link.txt"]},
                          timeout=30)
        copied = box.run_dir / "link.txt"
        assert copied.is_symlink() and copied.stat().st_uid == 0  # the target's, untouched
        assert box.run_dir.lstat().st_uid == MODE.uid
    assert result.ok and result.value in ("PermissionError", "FileNotFoundError"), result
    assert sorted(p.name for p in upload.iterdir()) == ["link.txt", "peek.py"]


@needs_root
def test_a_sandbox_in_user_mode_runs_as_the_sandbox_user_and_cannot_write_outside(
        tmp_path: Path) -> None:
    """Mode 'user' end to end (what Gradescope gets when namespaces are refused)."""
    mode = as_user()
    why_not = isolation.trial_start(mode)
    if why_not is not None:
        pytest.skip(f"a Python started as the sandbox user fails here ({why_not}); mode 'user' "
                    "needs a Python installation other users can run")
    upload = tmp_path / "upload"
    upload.mkdir()
    (upload / "probe.py").write_text(
        "import os\n\ndef attempt(path):\n    try:\n        open(path, 'a').close()\n"
        "        return 'wrote'\n    except OSError as exc:\n        return type(exc).__name__\n"
        "\ndef uid():\n    return os.getuid()\n")
    with Sandbox(upload, isolation=mode) as box:
        def call(function: str, *args: str) -> object:
            result = box.call("call", {"module": "probe", "function": function,
                                       "args": list(args)}, timeout=30)
            assert result.ok, result
            return result.value
        assert call("uid") == mode.uid
        assert call("attempt", "mine.txt") == "wrote"
        assert call("attempt", str(RUBRIC_PATH)) == "PermissionError"
        assert call("attempt", str(REPO / "new-file")) == "PermissionError"
        assert call("attempt", str(box.run_dir.parent / "worker" / "wire.py")) == "PermissionError"
    assert not (REPO / "new-file").exists()
