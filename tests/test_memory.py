"""What keeps a grading's memory low (bench/gradescope.py measures it; nothing here is timed):
the trusted process does without torch (the dev parse of train_uas too), the model checks'
expected values are the reference model's outputs computed without torch, and a worker can be
renewed so that the memory of training goes back to the system."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from a2.checks.helpers import model_params
from a2.reference import load_reference
from grader.sandbox import Sandbox
from grader.sandbox.limits import worker_environment
from grader.untrusted import wire, worker

REPO = Path(__file__).resolve().parents[1]


def test_the_reference_loads_without_torch_until_a_module_that_needs_it_is_used():
    script = ("import sys\n"
              "from a2.reference import load_reference\n"
              "ref = load_reference()\n"
              "ref.word2vec.sigmoid, ref.parser_transitions.minibatch_parse\n"
              "print('torch' in sys.modules)\n"
              "ref.parser_utils.Parser\n"
              "print('torch' in sys.modules, ref.parser_model.ParserModel.__name__)\n")
    out = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True,
                         timeout=300, check=True).stdout.split("\n")
    assert out[:2] == ["False", "True ParserModel"]


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("method", ["embedding_lookup", "forward"])
def test_expected_model_outputs_equal_the_reference_parser_model(seed, method):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(seed)
    sizes = model_params.draw_sizes(rng)
    inst = SimpleNamespace(s=sizes, values=model_params.draw_values(rng, sizes))
    w = rng.integers(0, sizes.n_tokens, (int(rng.integers(1, 9)), sizes.n_features))
    ref = load_reference().parser_model.ParserModel(
        inst.values["embeddings"], n_features=sizes.n_features, hidden_size=sizes.hidden,
        n_classes=model_params.N_CLASSES, dropout_prob=0.0)
    with torch.no_grad():
        for role, value in inst.values.items():
            getattr(ref, role).copy_(torch.as_tensor(value))
        ref.eval()
        want = getattr(ref, method)(torch.as_tensor(w, dtype=torch.long)).double().numpy()
    ctx = SimpleNamespace(ref=load_reference())  # the grader's math through the reference namespace
    got = model_params.reference_output(ctx, inst, w, method)  # type: ignore[arg-type]
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_a_renewed_sandbox_starts_a_fresh_worker_in_the_same_private_folder(tmp_path):
    (tmp_path / "keeper.py").write_text(
        "import os\n\n\ndef keep():\n    open('kept.txt', 'w').write(str(os.getpid()))\n    return os.getpid()\n\n\n"
        "def read():\n    return open('kept.txt').read(), os.getpid()\n")
    with Sandbox(tmp_path) as box:
        first = box.call("call", {"module": "keeper", "function": "keep", "args": []}, timeout=30)
        assert first.ok, first
        old_pid = box.worker_pid
        box.renew()
        assert box.worker_pid is None
        again = box.call("call", {"module": "keeper", "function": "read", "args": []}, timeout=30)
        assert again.ok, again
        kept, _pid = again.value
        assert kept == str(first.value)
        assert box.worker_pid != old_pid
        assert old_pid is not None and not _alive(old_pid)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.slow
def test_a_whole_grading_with_training_leaves_torch_out_of_the_trusted_process():
    script = ("import sys\n"
              "from grader.run.engine import grade\n"
              "from grader.run.settings import GradingSettings\n"
              "report = grade('reference', GradingSettings(seed=5, only=['model_forward', 'train_uas'], "
              "include_written=False))\n"
              "print([c.score == c.max_score for c in report.checks], 'torch' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True,
                         timeout=600, check=True).stdout.strip().splitlines()
    assert out[-1] == "[True, True] False"


# -- issue 35: a grading back under 512 MiB ----------------------------------------------------------------


def test_the_trusted_process_grades_written_answers_without_sympy():
    """The written checkers (SymPy, the LaTeX parser: about 40 MiB) run in the reader process only;
    the trusted process reads their names from source."""
    script = ("import sys\n"
              "from grader.run.engine import grade\n"
              "from grader.run.settings import GradingSettings\n"
              "report = grade('reference', GradingSettings(seed=5, only=['sgd_update', '3b', '1b_i']))\n"
              "print([c.score == c.max_score for c in report.checks],\n"
              "      sorted(m for m in ('sympy', 'latex2sympy2_extended', 'antlr4', 'torch') if m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True,
                         timeout=600, check=True).stdout.strip().splitlines()
    assert out[-1] == "[True, True, True] []"


def test_the_written_checker_names_are_read_without_importing_the_checkers():
    from a2.written.checkers import all_written_checkers, written_checker_names

    names = written_checker_names()
    assert set(names) == set(all_written_checkers()) and len(names) >= 9
    assert all(all_written_checkers()[name].__module__ == module for name, module in names.items())


MALLOC_PATTERN = """
import sys
import numpy as np
sys.path.insert(0, sys.argv[1])
from grader.untrusted.worker import release_freed_memory
def anonymous():
    for line in open("/proc/self/smaps_rollup"):
        key, _, rest = line.partition(":")
        if key == "Anonymous":
            return int(rest.split()[0]) // 1024
base = anonymous()
big = np.ones(8 * 2**20 // 8)               # an 8 MiB block, mapped then unmapped: glibc raises its thresholds
del big
blocks, pins = [], []
for _ in range(30):                         # 60 MiB of 2 MiB blocks (a training's minibatch tensors) ...
    blocks.append(np.ones(2 * 2**20 // 8))
    pins.append(np.ones(4096))              # ... each with a small live block after it
del blocks
if sys.argv[2] == "release":
    release_freed_memory()                  # what the worker does after each call's reply
print(anonymous() - base)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's allocator")
def test_freed_tensors_do_not_stay_resident_in_a_worker_after_its_call(tmp_path):
    """After each call's reply the worker hands freed memory back (malloc_trim): about 40 MiB of
    the reference's training (bench/gradescope.py), with the allocator's default thresholds."""
    def retained(mode):
        return int(subprocess.run([sys.executable, "-c", MALLOC_PATTERN, str(REPO), mode], env=worker_environment(tmp_path),
                                  capture_output=True, text=True, timeout=120, check=True).stdout)
    assert retained("release") < 10
    assert retained("keep") > 40  # what the release saves (glibc's default thresholds)


ROW_GRADIENTS = """
import resource
import numpy as np
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
total = np.zeros(1800 * 200, dtype=np.float32)
for _ in range(400):                        # a per-row training loop: each row's gradient of the
    grad = np.ones(1800 * 200, dtype=np.float32)   # hidden layer's weight (1.4 MiB), added up and freed
    total += grad
    del grad
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's allocator")
def test_the_workers_allocator_reuses_a_per_row_loops_blocks(tmp_path):
    """A correct submission that loops over a minibatch's rows (tests/submissions/slow/rows_everywhere)
    frees and allocates a 1.4 MiB gradient for every row. With glibc's thresholds fixed at 128 KiB
    (the worker's setting before) each was a fresh mapping, faulted in page by page: about 350 page
    faults a row, 4-7x the CPU of that submission's training, and 5.9 ran out of its time. The
    worker's environment must let the allocator reuse them (a few faults in all)."""
    faults = int(subprocess.run([sys.executable, "-c", ROW_GRADIENTS], env=worker_environment(tmp_path),
                                capture_output=True, text=True, timeout=120, check=True).stdout)
    assert faults < 400 * 20, faults


def test_the_worker_releases_freed_memory_after_each_reply(monkeypatch, tmp_path):
    """The worker's request loop calls release_freed_memory once per call, after the reply is sent."""
    events: list[str] = []
    monkeypatch.setattr(worker, "_prepare", lambda *args: None)
    monkeypatch.setattr(worker, "handle_request", lambda request, submission: events.append("call") or {"ok": True, "result": 1})
    monkeypatch.setattr(worker, "release_freed_memory", lambda: events.append("release"))
    monkeypatch.setattr(worker, "leftovers", lambda fd_limit: [])
    requests_r, requests_w = os.pipe()
    replies_r, replies_w = os.pipe()
    os.write(requests_w, b"".join(wire.encode_message({"id": n, "probe": "p", "args": {}}) for n in (1, 2)))
    os.close(requests_w)
    monkeypatch.chdir(tmp_path)
    try:
        assert worker.main([str(requests_r), str(replies_w), str(2**20)]) == 0
    finally:
        for fd in (requests_r, replies_w, replies_r):
            os.close(fd)
    assert events == ["call", "release", "call", "release"]


def test_the_held_checks_worker_is_stopped_once_they_are_done(tmp_path):
    """The worker of the checks held back until the due date (1.4, 4.2) is stopped after the last of
    them, before the checks that follow (training, at the grading's peak) run: 18 MiB less there."""
    from conftest import assemble

    from grader.run.engine import grade
    from grader.run.settings import GradingSettings
    from grader.sandbox import InProcessRunner

    events: list[tuple[str, int, str]] = []

    class Recorded(InProcessRunner):
        def call(self, probe, args=None, **kwargs):
            events.append(("call", id(self), probe))
            return super().call(probe, args, **kwargs)

        def close(self):
            events.append(("close", id(self), ""))
            return super().close()

    only = ["w2v_neg_sampling_dups", "mb_random_model", "mb_batch_size", "pp_parse"]
    report = grade(assemble(None, tmp_path / "sub"), GradingSettings(seed=3, only=only, runner_factory=Recorded))
    assert all(c.score == c.max_score for c in report.checks)
    runners = list(dict.fromkeys(r for kind, r, _ in events if kind == "call"))
    held = next(r for kind, r, probe in events if kind == "call" and probe == "w2v_loss")
    visible = [r for r in runners if r != held]
    first_close = events.index(("close", held, ""))
    assert any(kind == "call" and r in visible for kind, r, _ in events[first_close:]), events
