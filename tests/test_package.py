"""grader package: the zip Gradescope expects, and its run_autograder in a simulated root.

There is no Docker here: the slow test unpacks the zip into a temporary folder laid out like
Gradescope's /autograder (source/, submission/, results/), runs run_autograder there as a real
process with this virtualenv's Python, and reads results.json for four kinds of submission.
"""

from __future__ import annotations

import importlib.metadata
import io
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import jsonschema
import pytest
import yaml
from click.testing import CliRunner
from conftest import REFERENCE, REPO, RESULTS_SCHEMA
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from rich.console import Console

from a2.registry import STUDENT_FILES, WRITTEN_FILES
from grader.cli import main
from grader.package import gradescope_zip as package
from grader.package import lockfile
from grader.package import scripts as package_scripts
from grader.package.lockfile import LOCK_PATH, read_lock
from grader.run.check_api import all_checks
from grader.sandbox.isolation import SANDBOX_USER

BUGGY = Path(__file__).parent / "submissions" / "buggy"
#: A realistic bug confined to parser_transitions.py (its checks only, no training involved).
BUG = "pp_remove_by_value"
#: Seconds the four full gradings (training included) may take together in the simulated root.
SIMULATED_TIMEOUT_S = 900


@pytest.fixture(scope="module")
def autograder_zip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("package") / "autograder.zip"
    package.build_package(out)
    return out


def unpack_like_gradescope(archive: Path, root: Path) -> Path:
    """Lay out ``root`` as Gradescope does: the zip in source/ (with its modes), run_autograder
    copied to the root, and empty submission/ and results/ folders."""
    with zipfile.ZipFile(archive) as zf:
        for info in zf.infolist():
            target = Path(zf.extract(info, root / "source"))
            os.chmod(target, (info.external_attr >> 16) & 0o777)
    shutil.copy2(root / "source" / "run_autograder", root / "run_autograder")
    (root / "submission").mkdir()
    (root / "results").mkdir()
    return root


def run_autograder_env(root: Path, python: str = sys.executable) -> dict[str, str]:
    return {**os.environ, package_scripts.ROOT_VARIABLE: str(root), package_scripts.PYTHON_VARIABLE: python}


# -- what goes in ------------------------------------------------------------------------------


def test_plan_holds_the_grader_and_nothing_else_of_the_repository():
    plan = package.plan_package(REPO)
    paths = {e.path for e in plan.entries}
    for expected in ("setup.sh", "run_autograder", "requirements.txt", "rubric.yaml", "pyproject.toml",
                     "grader/cli.py", "grader/untrusted/worker.py", "reference/word2vec.py",
                     "reference/data/train.conll", "student_template/utils/parser_utils.py"):
        assert expected in paths
    for path in paths:
        assert path.split("/")[0] in {*package.package_dirs(REPO), *package.PACKAGE_FILES, *package.GENERATED}, path
        assert "__pycache__" not in path and not path.endswith(".pyc"), path
    assert plan.ok, plan.errors


def _fake_repository(root: Path) -> Path:
    """A small repository with one of each thing the plan must catch."""
    (root / "grader" / "__pycache__").mkdir(parents=True)
    (root / "grader" / "__init__.py").write_text("")
    (root / "grader" / "__pycache__" / "cli.cpython-311.pyc").write_bytes(b"\0")
    # The template generator names the markers: not a leak.
    (root / "grader" / "template.py").write_text('"""\n    ### BEGIN SOLUTION\n"""\n')
    (root / "reference" / "results").mkdir(parents=True)
    shutil.copyfile(REFERENCE / "word2vec.py", root / "reference" / "word2vec.py")
    (root / "reference" / "results" / "model.weights").write_bytes(b"\0" * 10)
    (root / "student_template" / "data").mkdir(parents=True)
    (root / "student_template" / "word2vec.py").write_text("def sigmoid(x):\n    raise NotImplementedError\n")
    shutil.copyfile(REFERENCE / "word2vec.py", root / "student_template" / "old_word2vec.py")
    (root / "student_template" / "notes.md").write_text("# notes\n<!-- BEGIN SOLUTION -->\nx\n")
    with open(root / "student_template" / "data" / "huge.txt", "wb") as f:
        f.truncate(package.LARGE_FILE_BYTES + 1)
    (root / "rubric.yaml").write_text("checks: []\n")
    shutil.copyfile(REPO / "pyproject.toml", root / "pyproject.toml")
    (root / "gradescope").mkdir()
    shutil.copyfile(REPO / LOCK_PATH, root / LOCK_PATH)
    return root


def test_plan_leaves_out_caches_and_flags_large_files_and_stray_solutions(tmp_path: Path):
    plan = package.plan_package(_fake_repository(tmp_path))
    found = {(f.path, f.severity) for f in plan.findings}
    assert ("grader/__pycache__/", "left out") in found
    assert ("reference/results/", "left out") in found
    assert ("student_template/data/huge.txt", "warning") in found
    assert ("student_template/old_word2vec.py", "error") in found      # a copy of the solution
    assert ("student_template/notes.md", "error") in found             # a solution marker
    assert {f.path for f in plan.errors} == {"student_template/old_word2vec.py", "student_template/notes.md"}
    paths = {e.path for e in plan.entries}
    assert "grader/template.py" in paths and "reference/word2vec.py" in paths
    assert not any("__pycache__" in p or p.startswith("reference/results") for p in paths)

    console = Console(file=io.StringIO(), width=200)
    package.render_plan(plan, console, list_files=True)
    printed = console.file.getvalue()
    assert "left out: grader/__pycache__/" in printed and "error: student_template/notes.md" in printed

    with pytest.raises(package.PackageError, match="old_word2vec.py"):
        package.build_package(tmp_path / "out.zip", root=tmp_path)
    assert not (tmp_path / "out.zip").exists()


def test_a_missing_folder_is_an_error(tmp_path: Path):
    shutil.copyfile(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    plan = package.plan_package(tmp_path)
    assert {f.path for f in plan.errors} >= {"reference/", "student_template/", "rubric.yaml"}
    # a course of its own (no grader/ in it) gets the framework from the checkout the grader runs from
    assert any(e.path.startswith("grader/") for e in plan.entries)


# -- the zip -----------------------------------------------------------------------------------


def test_zip_has_gradescope_layout_modes_and_pinned_requirements(autograder_zip: Path, tmp_path: Path):
    with zipfile.ZipFile(autograder_zip) as zf:
        infos = {i.filename: i for i in zf.infolist()}
        requirements = zf.read("requirements.txt").decode()
        setup = zf.read("setup.sh").decode()
    assert {"setup.sh", "run_autograder", "requirements.txt"} <= set(infos)   # at the zip's root
    for name, info in infos.items():
        mode = (info.external_attr >> 16) & 0o777
        assert mode == (0o755 if name in ("setup.sh", "run_autograder") else 0o644), name
        assert not name.startswith(("tests/", ".venv/", ".git/", "bench/", "tools/")), name
    pins = [line for line in requirements.splitlines() if line and not line.startswith("#")]
    assert pins == list(read_lock(REPO / LOCK_PATH).lines)       # the lock, not this environment
    assert "torch==2.13.0+cpu" in pins
    assert 'TORCH_SOURCE="${A2GRADER_TORCH_SOURCE:-https://download.pytorch.org/whl/cpu}"' in setup
    assert '"torch==2.13.0+cpu" --index-url "$TORCH_SOURCE"' in setup
    assert f"useradd --system --no-create-home --shell /usr/sbin/nologin {SANDBOX_USER}" in setup
    for script in ("setup.sh", "run_autograder"):
        unpacked = tmp_path / script
        unpacked.write_text(setup if script == "setup.sh" else package_scripts.run_autograder())
        check = subprocess.run(["bash", "-n", str(unpacked)], capture_output=True, text=True, check=False)
        assert check.returncode == 0, check.stderr
    # The same tree gives the same bytes.
    again = tmp_path / "again.zip"
    package.build_package(again)
    assert again.read_bytes() == autograder_zip.read_bytes()


# -- the lock: requirements.txt resolved for the image -------------------------------------------


def test_lock_agrees_with_pyproject_dependencies():
    """gradescope/requirements.lock was resolved from pyproject.toml's [project].dependencies as
    they are now (names and specifiers), and pins each of them within its specifier."""
    assert lockfile.lock_problems(REPO / "pyproject.toml", REPO / LOCK_PATH) == []
    lock = read_lock(REPO / LOCK_PATH)
    for req in lockfile.runtime_requirements(REPO / "pyproject.toml"):
        assert req.specifier.contains(lock.pins[canonicalize_name(req.name)], prereleases=True), req


def test_lock_holds_the_cpu_torch_and_its_dependencies_and_nothing_for_the_bench():
    lock = read_lock(REPO / LOCK_PATH)
    assert str(lock.pins["torch"]) == "2.13.0+cpu"
    # What the CPU build installed here requires (its wheel's own metadata) is pinned too ...
    for line in importlib.metadata.requires("torch") or []:
        dep = Requirement(line)
        if dep.marker is None or dep.marker.evaluate({"extra": ""}):
            assert dep.specifier.contains(lock.pins[canonicalize_name(dep.name)], prereleases=True), dep
    # ... and nothing of the CUDA build, the tests or the benchmark.
    for name in lock.pins:
        assert not name.startswith(("nvidia-", "cuda-")) and name != "triton", name
        assert name not in {"jsonschema", "ruff", "mypy", "uv"}, name   # gradescope-utils, pytest: test-file assignments
    # What student files import (the course's environment) is in it.
    assert {"numpy", "torch", "tqdm", "matplotlib"} <= set(lock.pins)


@pytest.mark.parametrize("edit, message", [
    (('"numpy>=1.26"', '"numpy>=1.27"'), "only in pyproject: ['numpy>=1.27']"),
    (('"numpy>=1.26"', '"numpy>=3"'), "outside pyproject.toml's numpy>=3"),
    (('    "tqdm>=4.66",\n', ''), "only in the lock: ['tqdm>=4.66']"),
    (('"rich>=13",', '"rich>=13", "requests>=2",'), "does not pin requests"),
])
def test_lock_drift_is_found_and_stops_the_package(tmp_path: Path, edit, message):
    root = _fake_repository(tmp_path)
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert edit[0] in text
    (root / "pyproject.toml").write_text(text.replace(*edit), encoding="utf-8")
    problems = lockfile.lock_problems(root / "pyproject.toml", root / LOCK_PATH)
    assert any(message in p and "tools/lock_requirements.py" in p for p in problems), problems
    plan = package.plan_package(root)
    assert any(f.path == "requirements.txt" and message in f.reason for f in plan.errors)


def test_a_missing_or_loose_lock_stops_the_package(tmp_path: Path):
    root = _fake_repository(tmp_path)
    (root / LOCK_PATH).unlink()
    assert any("cannot read the lock" in f.reason for f in package.plan_package(root).errors)
    (root / LOCK_PATH).write_text((REPO / LOCK_PATH).read_text().replace("numpy==", "numpy>="))
    assert any("is not an exact pin" in f.reason for f in package.plan_package(root).errors)


@pytest.mark.parametrize("kind", ["index", "folder", "wheel"])
def test_setup_sh_takes_torch_from_the_override(tmp_path: Path, kind: str):
    """setup.sh's torch step (run with a stand-in pip that records its arguments)."""
    torch, _ = package_scripts.pinned_requirements(REPO)
    setup = package_scripts.setup_sh(torch)
    block = setup[setup.index('TORCH_SOURCE="'):setup.index('"$VENV/bin/python" -m pip install -r')]
    (tmp_path / "venv" / "bin").mkdir(parents=True)
    fake = tmp_path / "venv" / "bin" / "python"
    fake.write_text('#!/bin/sh\necho "$@" > "$(dirname "$0")/args"\n')
    fake.chmod(0o755)
    wheel = tmp_path / "wheels" / "torch-2.13.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl"
    wheel.parent.mkdir()
    wheel.write_bytes(b"")
    source = {"index": "", "folder": str(wheel.parent), "wheel": str(wheel)}[kind]
    env = {**os.environ, "VENV": str(tmp_path / "venv"), package_scripts.TORCH_VARIABLE: source}
    if not source:
        del env[package_scripts.TORCH_VARIABLE]
    done = subprocess.run(["bash", "-euc", f'VENV="$VENV"\n{block}'], env=env, capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    args = (tmp_path / "venv" / "bin" / "args").read_text().split()
    assert args[:4] == ["-m", "pip", "install", "--no-deps"]
    expected = {"index": [torch, "--index-url", package_scripts.TORCH_INDEX_URL],
                "folder": ["--no-index", "--find-links", str(wheel.parent), torch],
                "wheel": [str(wheel)]}[kind]
    assert args[4:] == expected


def test_cli_check_lists_and_builds_nothing(tmp_path: Path):
    result = CliRunner().invoke(main, ["package", "--check", "--out", str(tmp_path / "a.zip")])
    assert result.exit_code == 0, result.output
    assert "run_autograder" in result.output and "reference/word2vec.py" in result.output
    assert not (tmp_path / "a.zip").exists()


def test_run_autograder_writes_results_when_python_cannot_run(autograder_zip: Path, tmp_path: Path):
    root = unpack_like_gradescope(autograder_zip, tmp_path / "autograder")
    proc = subprocess.run([str(root / "run_autograder")], capture_output=True, text=True, timeout=60,
                          env=run_autograder_env(root, python=str(tmp_path / "no-such-python")), check=False)
    assert proc.returncode == 0
    doc = json.loads((root / "results" / "results.json").read_text())
    jsonschema.validate(doc, RESULTS_SCHEMA)
    assert doc["score"] == 0 and "could not run" in doc["output"]


@pytest.mark.parametrize(("signal_name", "memory"), [("KILL", True), ("TERM", False)])
def test_run_autograder_says_when_the_grader_was_killed(autograder_zip: Path, tmp_path: Path,
                                                       signal_name: str, memory: bool):
    """A grader ended by a signal (SIGKILL: the container's memory limit) leaves no results.json;
    run_autograder writes one that says so and which setting to raise."""
    root = unpack_like_gradescope(autograder_zip, tmp_path / "autograder")
    fake = tmp_path / "python"
    fake.write_text(f'#!/bin/sh\n# a grader that starts, then is killed\nkill -{signal_name} $$\n')
    fake.chmod(0o755)
    proc = subprocess.run([str(root / "run_autograder")], capture_output=True, text=True, timeout=60,
                          env=run_autograder_env(root, python=str(fake)), check=False)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads((root / "results" / "results.json").read_text())
    jsonschema.validate(doc, RESULTS_SCHEMA)
    assert doc["score"] == 0
    assert f"stopped by signal SIG{signal_name}" in doc["output"]
    assert "Autograder Settings" in doc["output"] and "768 MB" in doc["output"]
    assert ("ran out of memory" in doc["output"]) is memory


# -- four submissions graded by run_autograder ---------------------------------------------------


def _submission(kind: str, folder: Path) -> None:
    if kind == "empty":
        return
    for name in (*STUDENT_FILES, *WRITTEN_FILES):
        if (REFERENCE / name).is_file():        # answers.md; answers.txt is a student's choice of format
            shutil.copyfile(REFERENCE / name, folder / name)
    if kind == "buggy":
        for path in (BUGGY / BUG).glob("*.py"):
            shutil.copyfile(path, folder / path.name)
    if kind == "broken":
        with open(folder / "word2vec.py", "a", encoding="utf-8") as f:
            f.write("\ndef oops(:\n    pass\n")
        text = (folder / "sgd.py").read_text(encoding="utf-8")
        (folder / "sgd.py").write_text("import numpyy\n" + text, encoding="utf-8")


@pytest.mark.slow
def test_run_autograder_grades_four_submissions_in_a_simulated_root(autograder_zip: Path, tmp_path: Path):
    kinds = ("correct", "buggy", "empty", "broken")
    roots = {k: unpack_like_gradescope(autograder_zip, tmp_path / k) for k in kinds}
    procs = {}
    for kind, root in roots.items():
        _submission(kind, root / "submission")
        procs[kind] = subprocess.Popen([str(root / "run_autograder")], cwd=root, env=run_autograder_env(root),
                                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    outputs = {kind: proc.communicate(timeout=SIMULATED_TIMEOUT_S)[0] for kind, proc in procs.items()}
    docs, scores = {}, {}
    for kind, proc in procs.items():
        assert proc.returncode == 0, outputs[kind].decode(errors="replace")[-3000:]
        doc = json.loads((roots[kind] / "results" / "results.json").read_text())
        jsonschema.validate(doc, RESULTS_SCHEMA)
        docs[kind] = doc
        # Code checks carry a check_id; written questions a question id (the pending manual ones: no score).
        scores[kind] = {t["extra_data"].get("check_id") or t["number"]: (t.get("score", 0.0), t.get("max_score", 0.0), t["output"])
                        for t in doc["tests"]}
    code_ids = {t["extra_data"]["check_id"] for t in docs["correct"]["tests"] if "check_id" in t["extra_data"]}
    assert len(code_ids) == len(all_checks())
    max_total = sum(m for _, m, _ in scores["correct"].values())

    assert docs["correct"]["score"] == max_total > 0
    assert {c for c, (s, m, _) in scores["correct"].items() if s < m} == set()

    expected = set(yaml.safe_load((BUGGY / BUG / "expect.yaml").read_text())["fails"])
    assert {c for c, (s, m, _) in scores["buggy"].items() if s < m} == expected

    assert docs["empty"]["score"] == 0 and set(scores["empty"]) >= code_ids
    assert all("was not found in your submission" in scores["empty"][c][2] for c in code_ids)

    broken = scores["broken"]
    for check_id in code_ids:
        score, max_score, out = broken[check_id]
        if check_id.startswith("w2v_"):
            assert score == 0 and "SyntaxError" in out, check_id
        elif check_id.startswith("sgd_"):
            assert score == 0 and "numpyy" in out, check_id
        else:  # the other files are the reference's: unaffected
            assert score == max_score, (check_id, out)
    assert docs["broken"]["score"] == max_total - sum(broken[c][1] for c in code_ids
                                                      if c.startswith(("w2v_", "sgd_")))


@pytest.mark.parametrize(("image_python", "chosen"), [("3.11.2", "python3"), ("3.12.3", "python3.11"),
                                                      ("3.10.12", "python3.11")])
def test_setup_sh_uses_the_python_the_lock_is_resolved_for(tmp_path: Path, image_python: str, chosen: str):
    """setup.sh's choice of Python, with a stand-in python3 of the image's version and apt tools
    that do nothing: only the lock's Python (lockfile.IMAGE_PYTHON) is taken from the image."""
    torch, _ = package_scripts.pinned_requirements(REPO)
    setup = package_scripts.setup_sh(torch)
    block = setup[setup.index("if command -v python3"):setup.index('"$BASE_PYTHON" -m venv')]
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python3").write_text(
        f"#!{sys.executable}\nimport os, sys\n"
        "sys.version_info = tuple(int(p) for p in os.environ['FAKE_VERSION'].split('.'))\n"
        "exec(sys.argv[2])\n")
    for tool in ("apt-get", "add-apt-repository"):
        (bin_dir / tool).write_text("#!/bin/sh\nexit 0\n")
    for tool in bin_dir.iterdir():
        tool.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "FAKE_VERSION": image_python}
    done = subprocess.run(["bash", "-euc", f'{block}\necho "$BASE_PYTHON"'], env=env, capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[-1] == chosen


def test_package_runs_validate_first_and_refuses_what_it_finds(tmp_path: Path, monkeypatch):
    """`grader package` refuses a repository whose `grader validate` fails (here: a rubric typo),
    writing nothing; --skip-validate builds it anyway and says so loudly."""
    from grader.common import paths

    text = (REPO / "rubric.yaml").read_text(encoding="utf-8")
    broken = tmp_path / "rubric.yaml"
    broken.write_text(text.replace("timeout: 60}", "timeout: 90s}", 1), encoding="utf-8")
    monkeypatch.setattr(paths, "RUBRIC_PATH", broken)
    out = tmp_path / "autograder.zip"
    result = CliRunner().invoke(main, ["package", "--out", str(out)])
    assert result.exit_code == 1, result.output
    printed = " ".join(result.output.split())
    assert "validating first" in printed and "timeout '90s'" in printed
    assert "nothing was written" in printed and "--skip-validate" in printed
    assert not out.exists()
    result = CliRunner().invoke(main, ["package", "--out", str(out), "--skip-validate"])
    assert result.exit_code == 0, result.output
    assert "WARNING: --skip-validate: `grader validate` was NOT run" in " ".join(result.output.split())
    assert out.is_file()
