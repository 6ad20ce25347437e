"""The course's environment: what student files import is installed, declared in one place, and
importable from inside the sandbox in every isolation mode this machine allows; a module it lacks
is named once in the report's notes."""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path

import pytest
from conftest import REPO, assemble, variant

from a2.course_env import COURSE_MODULES, missing_module, support_import_line
from grader.run.engine import grade
from grader.run.settings import GradingSettings
from grader.sandbox import Sandbox, isolation
from grader.sandbox.isolation import Isolation

RUN_CHECKS = ["train_loop", "train_setup", "train_uas"]


def _declared_course_packages() -> list[str]:
    """The package names of pyproject's "course's environment" block of dependencies."""
    text = (REPO / "pyproject.toml").read_text()
    block = text[text.index("# The course's environment"):text.index("# The grader's own.")]
    return [re.split(r"[<>=!\[ ]", line.strip().strip('",'))[0] for line in block.splitlines()
            if line.strip().startswith('"')]


def test_the_course_modules_are_the_declared_dependencies() -> None:
    declared = _declared_course_packages()
    assert declared == list(COURSE_MODULES)
    dependencies = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    assert all(any(dep.startswith(name) for dep in dependencies) for name in declared)


def _modes() -> list[Isolation]:
    """Mode none, and as root each confined mode that can start a Python here (mode user cannot
    where Python lies under a folder the sandbox user may not search, e.g. /root)."""
    modes = [Isolation("none", -1, -1)]
    if os.geteuid() == 0:
        uid, gid = isolation.ensure_sandbox_user()
        modes += [mode for mode in (Isolation("user", uid, gid), Isolation("namespaces", uid, gid))
                  if isolation.trial_start(mode) is None]
    return modes


@pytest.mark.parametrize("mode", _modes(), ids=lambda m: m.mode)
def test_every_course_module_imports_inside_the_sandbox(mode: Isolation, tmp_path: Path) -> None:
    with Sandbox(tmp_path, isolation=mode) as box:
        for module in (*COURSE_MODULES, "matplotlib.pyplot", "tqdm.auto"):
            result = box.call("import_module", {"module": module}, timeout=60)
            assert result.status == "ok", (module, result.error)


def test_matplotlib_finds_its_font_cache_prepared(tmp_path: Path) -> None:
    (tmp_path / "plots.py").write_text("import matplotlib.pyplot as plt\n"
                                       "import matplotlib as mpl\n"
                                       "def where():\n    return mpl.get_cachedir()\n")
    with Sandbox(tmp_path) as box:
        cache = box._private_folder() / "matplotlib"
        assert any(cache.glob("fontlist-*.json")), "the prepared font cache was not copied"
        result = box.call("call", {"module": "plots", "function": "where"}, timeout=60)
        assert result.status == "ok", result.error
        assert Path(result.value).name == "matplotlib"


def test_a_tqdm_monitor_thread_does_not_replace_the_worker(tmp_path: Path) -> None:
    (tmp_path / "bars.py").write_text(
        "import time\nfrom tqdm import tqdm\n"
        "def loop(n):\n"
        "    total = 0\n"
        "    for i in tqdm(range(n), disable=False, mininterval=0):\n"  # forced on: the monitor starts
        "        total += i\n        time.sleep(0.001)\n"
        "    return total\n")
    with Sandbox(tmp_path) as box:
        first = box.call("call", {"module": "bars", "function": "loop", "args": [50]}, timeout=30)
        pid = box.worker_pid
        second = box.call("call", {"module": "bars", "function": "loop", "args": [50]}, timeout=30)
        assert (first.value, second.value) == (1225, 1225)
        assert box.worker_pid == pid


def test_a_module_outside_the_course_environment_is_recognised() -> None:
    assert missing_module("ModuleNotFoundError", "No module named 'wandb'") == "wandb"
    assert missing_module("ModuleNotFoundError", "No module named 'wandb.sdk'") == "wandb"
    for known in ("No module named 'tqdm'", "No module named 'utils.parser_utils'", "No module named 'json'"):
        assert missing_module("ModuleNotFoundError", known) is None
    assert missing_module("ImportError", "No module named 'wandb'") is None


def test_a_run_py_importing_an_unavailable_module_is_told_once(tmp_path: Path) -> None:
    folder = variant(tmp_path, "run.py", [("from tqdm import tqdm\n", "from tqdm import tqdm\nimport wandb\n")])
    report = grade(assemble(folder, tmp_path / "submission"), GradingSettings(seed=3, only=RUN_CHECKS))
    for result in report.checks:
        assert result.score == 0
        text = " ".join(result.outcome.feedback)
        assert "run.py imports wandb, which the course's environment does not provide" in text
        assert "Traceback" not in text
    notes = [n for n in report.notes if "wandb" in n]
    assert len(notes) == 1 and "not in the course's environment" in notes[0]


def test_a_name_or_module_missing_from_the_courses_utils_is_explained() -> None:
    line = support_import_line("ImportError", "cannot import name 'helper' from 'utils.parser_utils' "
                                              "(utils/parser_utils.py)")
    assert line is not None and "utils/ is the course's copy" in line
    assert "utils.parser_utils has no 'helper'" in line
    line = support_import_line("ModuleNotFoundError", "No module named 'utils.my_helpers'")
    assert line is not None and "there is no module 'utils.my_helpers'" in line
    for other in (("ImportError", "cannot import name 'x' from 'parser_model' (parser_model.py)"),
                  ("ModuleNotFoundError", "No module named 'wandb'"), ("ValueError", "utils")):
        assert support_import_line(*other) is None


def test_an_import_error_shows_the_students_frames_only(tmp_path: Path) -> None:
    """No "<frozen importlib._bootstrap>" frame in "your files only" (they resolved as relative
    paths inside the submission folder)."""
    folder = variant(tmp_path, "run.py", [("AverageMeter\n", "AverageMeter, helper\n")])
    report = grade(assemble(folder, tmp_path / "submission"), GradingSettings(seed=3, only=["train_loop"]))
    text = "\n".join(report.checks[0].outcome.feedback)
    assert "<frozen" not in text and 'File "run.py", line 22, in <module>' in text
    assert "utils.parser_utils has no 'helper'" in text


PROGRESS_BARS_AND_A_THREAD = [
    ("    with tqdm(total=n_minibatches) as progress:\n",
     # A bar forced on (its monitor thread starts), and a thread of the student's own left
     # running after training: the worker is replaced, and the trained model must survive it.
     "    threading.Thread(target=time.sleep, args=(600,), daemon=True).start()\n"
     "    with tqdm(total=n_minibatches, disable=False) as progress:\n"),
    ("import time\n", "import threading\nimport time\n"),
]


@pytest.mark.slow
def test_tqdm_bars_and_a_leftover_thread_keep_full_marks_on_training(tmp_path: Path) -> None:
    folder = variant(tmp_path, "run.py", PROGRESS_BARS_AND_A_THREAD)
    report = grade(assemble(folder, tmp_path / "submission"), GradingSettings(seed=8, only=RUN_CHECKS))
    assert {c.id: c.score for c in report.checks} == {c.id: c.max_score for c in report.checks}
