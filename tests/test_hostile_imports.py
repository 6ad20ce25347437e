"""Nothing of the grader or the assignment is importable next to student code (issue 34), even when
the worker's Python maps them elsewhere: a virtual environment with the grader installed editable
from ANOTHER checkout (a setuptools-style ``__editable__`` finder and a ``.pth`` path entry, as
``pip install -e`` leaves them) must not let student code import ``a2`` or ``grader`` from that
checkout, nor read its files.

The setup is built here, cheaply: a checkout-like folder outside the temporary folder (which is
hidden anyway) holding ``grader/`` and ``a2/`` packages with a marker, and a ``--without-pip``
venv whose site-packages reaches this environment's packages and holds the finder.
"""

from __future__ import annotations

import os
import shutil
import site
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import REPO

from grader.sandbox import Sandbox, isolation

MODE = isolation.detect()
MARKER = "SOLUTION-MARKER-34"
FINDER = '''\
import importlib.abc, importlib.util, os, sys
MAPPING = {MAPPING!r}
class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        top = name.partition(".")[0]
        if top not in MAPPING or "." in name or not os.path.exists(MAPPING[top] + "/__init__.py"):
            return None  # as setuptools' editable finder: only what is there
        return importlib.util.spec_from_file_location(name, MAPPING[top] + "/__init__.py",
                                                      submodule_search_locations=[MAPPING[top]])
def install():
    sys.meta_path.append(_Finder())
'''
SPY = f'''\
import importlib, importlib.util, os

def look():
    found = {{}}
    for name in ("grader", "a2", "a2.arcstandard"):
        try:
            spec = importlib.util.find_spec(name)
        except Exception as exc:
            spec = None
        found[name] = "" if spec is None else str(spec.origin)
        try:
            importlib.import_module(name)
            found[name] += " (imported)"
        except Exception:
            pass
    read = ""
    for path in {{CANDIDATES}}:
        try:
            with open(path) as f:
                read += f.read()
        except OSError:
            pass
    return {{"specs": found, "read": "{MARKER}" in read}}
'''


@pytest.fixture
def other_checkout() -> Iterator[Path]:
    """A folder like a second clone of the course repository, outside the shared temporary folder."""
    try:
        folder = Path(tempfile.mkdtemp(prefix=".a2grader-other-checkout-", dir=REPO.parent))
    except OSError as exc:
        pytest.skip(f"cannot make a folder next to the repository ({exc}): the other checkout must be outside /tmp")
    try:
        folder.chmod(0o755)
        for package in ("grader", "a2"):
            (folder / package).mkdir()
            (folder / package / "__init__.py").write_text(f"WHERE = {MARKER!r}\n")
        (folder / "a2" / "arcstandard.py").write_text(f"def parse_step():\n    return {MARKER!r}\n")
        (folder / "rubric.yaml").write_text("assignment: a2\n")
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def venv_from_other_checkout(tmp_path: Path, other_checkout: Path) -> Path:
    """A venv (no pip: quick) whose site reaches this environment's packages, with the other
    checkout installed 'editable': an __editable__ finder for a2 and a .pth path line for grader."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    tmp_path.chmod(0o755)
    purelib = Path(subprocess.run([str(venv / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                  check=True, capture_output=True, text=True).stdout.strip())
    ours = [p for p in site.getsitepackages() if os.path.isdir(p)]
    (purelib / "_this_environment.pth").write_text("\n".join(ours) + "\n")
    (purelib / "__editable___a2grader_finder.py").write_text(
        FINDER.replace("{MAPPING!r}", repr({"a2": str(other_checkout / "a2")})))
    (purelib / "__editable__.a2grader-0.1.pth").write_text("import __editable___a2grader_finder; __editable___a2grader_finder.install()\n")
    (purelib / "a2grader_path.pth").write_text(str(other_checkout) + "\n")
    return venv / "bin" / "python"


def test_the_worker_python_is_asked_where_it_imports_the_grader_from(venv_from_other_checkout: Path, other_checkout: Path):
    hide, cover = isolation.importable_folders(str(venv_from_other_checkout))
    assert str(other_checkout.resolve()) in hide and cover == []


@pytest.mark.skipif(MODE.mode != "namespaces", reason=f"hiding folders needs namespaces (isolation here is {MODE.mode!r}: "
                                                      f"{MODE.note})")
def test_student_code_finds_neither_package_nor_their_files(venv_from_other_checkout: Path, other_checkout: Path,
                                                           tmp_path: Path):
    submission = tmp_path / "submission"
    submission.mkdir()
    candidates = [str(other_checkout / "a2" / "arcstandard.py"), str(other_checkout / "grader" / "__init__.py")]
    (submission / "spy.py").write_text(SPY.replace("{CANDIDATES}", repr(candidates)))
    check = subprocess.run([str(venv_from_other_checkout), "-s", "-c",
                            "import importlib.util as u; print(u.find_spec('a2').origin, u.find_spec('grader').origin)"],
                           cwd="/", capture_output=True, text=True, check=True)
    assert str(other_checkout) in check.stdout, "the setup must map both packages to the other checkout"
    with Sandbox(submission, python=str(venv_from_other_checkout), isolation=MODE, fork=False) as box:
        reply = box.call("call", {"module": "spy", "function": "look"}, timeout=60)
    assert reply.ok, (reply.status, reply.error, reply.stderr[-2000:])
    assert reply.value == {"specs": {"grader": "", "a2": "", "a2.arcstandard": ""}, "read": False}


def test_a_package_inside_the_installation_is_covered_and_a_checkout_outside_hidden_whole(tmp_path: Path):
    from grader.sandbox import importable

    install = tmp_path / "venv"
    (install / "lib" / "site-packages" / "grader").mkdir(parents=True)
    (tmp_path / "src" / "checkout" / "a2").mkdir(parents=True)
    (install / "lib" / "site-packages" / "a2.py").write_text("")
    hide, cover = importable.to_hide([str(install / "lib" / "site-packages" / "grader"),
                                      str(tmp_path / "src" / "checkout" / "a2" / "__init__.py"),
                                      str(install / "lib" / "site-packages" / "a2.py")], [str(install)])
    assert hide == [str(tmp_path / "src" / "checkout")]
    assert cover == [str(install / "lib" / "site-packages" / "grader")]
