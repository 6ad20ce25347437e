"""The course's environment: what student files import is installed, declared in one place, and
importable from inside the sandbox in every isolation mode this machine allows; a module it lacks
is named once in the report's notes."""

from __future__ import annotations

import importlib.metadata
import os
import re
import shutil
import tomllib
from pathlib import Path

import pytest
from conftest import REPO, assemble, variant
from packaging.requirements import Requirement

from a2.course_env import COURSE_MODULES, explain_error, missing_module, removed_name_line, support_import_line
from grader.package import scripts as package_scripts
from grader.package.lockfile import LOCK_PATH, lock_problems, read_lock
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


# -- names a newer numpy or torch removed (issue 35) ------------------------------------------------------

REMOVED_CASES = [
    ("ModuleNotFoundError", "No module named 'numpy.lib.function_base'", "numpy.lib.function_base was removed in numpy 2.0",
     "the same names from numpy itself"),
    ("AttributeError", "module 'numpy.lib' has no attribute 'function_base'", "numpy.lib.function_base was removed",
     "the same names from numpy itself"),
    ("ImportError", "cannot import name 'float_' from 'numpy' (/x/numpy/__init__.py)", "np.float_ was removed in numpy 2.0",
     "np.float64"),
    ("AttributeError", "`np.NaN` was removed in the NumPy 2.0 release. Use `np.nan` instead.", "np.NaN was removed",
     "np.nan"),
    ("AttributeError", "module 'numpy' has no attribute 'product'", "np.product was removed in numpy 2.0", "np.prod"),
    ("AttributeError", "module 'numpy' has no attribute 'int'.\n`np.int` was a deprecated alias for the builtin `int`.",
     "np.int was removed in numpy 1.24", "the built-in int"),
    ("AttributeError", "`np.cast` was removed in the NumPy 2.0 release. Use `np.asarray(arr, dtype=dtype)` instead.",
     "np.cast was removed in numpy 2.0", "what numpy's message above says"),
    ("ModuleNotFoundError", "No module named 'torch._six'", "torch._six was removed in torch 2.0", "math.inf"),
]


@pytest.mark.parametrize("error_type, message, said, fix", REMOVED_CASES, ids=[c[2].split(" was")[0] for c in REMOVED_CASES])
def test_a_name_a_newer_numpy_or_torch_removed_is_explained_in_one_line(error_type, message, said, fix) -> None:
    line = explain_error(error_type, message)
    assert line is not None and "\n" not in line
    assert said in line and f"use {fix}" in line
    package = "torch" if said.startswith("torch") else "numpy"
    assert f"graded with {package} {importlib.metadata.version(package).split('+')[0]}" in line
    assert ("delete the import" in line) == (error_type != "AttributeError")


@pytest.mark.parametrize("error_type, message", [
    ("AttributeError", "module 'numpy' has no attribute 'sigmoid'"),     # never numpy's: the student's mistake
    ("AttributeError", "'list' object has no attribute 'shape'"),
    ("ModuleNotFoundError", "No module named 'numpy.linalg.foo'"),
    ("ImportError", "cannot import name 'gradient' from 'numpy' (x)"),
    ("ValueError", "module 'numpy' has no attribute 'float_'"),
])
def test_other_errors_get_no_removed_name_line(error_type, message) -> None:
    assert removed_name_line(error_type, message) is None


OLD_NUMPY_IMPORT = [("import numpy as np\n", "import numpy as np\nfrom numpy.lib.function_base import gradient\n")]


def test_an_unused_import_numpy_2_removed_is_named_with_its_fix(tmp_path: Path) -> None:
    """A right sgd.py with an unused import from numpy 1's numpy.lib.function_base: where the course's
    environment (the image's numpy) is numpy 2 it cannot be imported, and every check of sgd.py
    says why and what to change; with numpy 1 it scores full marks."""
    folder = variant(tmp_path, "sgd.py", OLD_NUMPY_IMPORT)
    report = grade(assemble(folder, tmp_path / "submission"), GradingSettings(seed=4, only=["sgd_update", "sgd_anneal"]))
    numpy_major = int(importlib.metadata.version("numpy").split(".")[0])
    for result in report.checks:
        text = " ".join(" ".join(result.outcome.feedback).split())
        if numpy_major < 2:
            assert result.score == result.max_score, text
            continue
        assert result.score == 0
        assert "numpy.lib.function_base was removed in numpy 2.0, and your work is graded with numpy " in text
        assert "use the same names from numpy itself (from numpy import ..." in text


# -- the course's numpy is the image's: one setting --------------------------------------------------------


def _course_requirement(name: str, text: str) -> Requirement:
    block = text[text.index("# The course's environment"):text.index("# The grader's own.")]
    return next(Requirement(line.strip().strip('",')) for line in block.splitlines()
                if line.strip().startswith('"') and Requirement(line.strip().strip('",')).name == name)


def test_the_images_numpy_is_the_course_environments_setting(tmp_path: Path) -> None:
    """The course's numpy is set in one place, pyproject.toml's course block: the lock resolved from it
    pins a version within it, requirements.txt (which setup.sh installs) carries that pin, and a
    course that chooses numpy 1 cannot package a lock with numpy 2 (nor the other way round)."""
    text = (REPO / "pyproject.toml").read_text()
    wanted = _course_requirement("numpy", text)
    lock = read_lock(REPO / LOCK_PATH)
    assert wanted.specifier.contains(lock.pins["numpy"])
    assert f"numpy=={lock.pins['numpy']}" in package_scripts.requirements_txt(REPO).splitlines()
    assert '-r "$SOURCE/requirements.txt"' in package_scripts.setup_sh(package_scripts.pinned_requirements(REPO)[0])
    # numpy 1 chosen for the course, the lock not resolved again: packaging stops and says so
    other = "numpy>=1.26,<2" if lock.pins["numpy"].major >= 2 else "numpy>=2"
    (tmp_path / "pyproject.toml").write_text(text.replace(f'"{wanted}"', f'"{other}"'))
    (tmp_path / LOCK_PATH).parent.mkdir()
    shutil.copyfile(REPO / LOCK_PATH, tmp_path / LOCK_PATH)
    problems = lock_problems(tmp_path / "pyproject.toml", tmp_path / LOCK_PATH)
    assert any(f"only in pyproject: ['{Requirement(other)}']" in p for p in problems), problems
    assert any(f"pins numpy=={lock.pins['numpy']}, outside pyproject.toml's" in p for p in problems), problems
    # ... and once resolved again (here: the lock's numpy pin and input line as the resolver writes them)
    pin = "1.26.4" if lock.pins["numpy"].major >= 2 else "2.0.2"
    relocked = (REPO / LOCK_PATH).read_text().replace(f"# input: {wanted}", f"# input: {Requirement(other)}")
    relocked = relocked.replace(f"numpy=={lock.pins['numpy']}", f"numpy=={pin}")
    (tmp_path / LOCK_PATH).write_text(relocked)
    assert lock_problems(tmp_path / "pyproject.toml", tmp_path / LOCK_PATH) == []
    assert f"numpy=={pin}" in package_scripts.requirements_txt(tmp_path).splitlines()
