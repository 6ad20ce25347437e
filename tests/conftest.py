"""Shared fixtures: import the reference (or the template) as students run it."""

from __future__ import annotations

import importlib
import json
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

REPO = Path(__file__).resolve().parent.parent
REFERENCE = REPO / "reference"
TEMPLATE = REPO / "student_template"
#: Gradescope's results.json format, as far as this grader writes it (every results.json is checked).
RESULTS_SCHEMA = json.loads((Path(__file__).parent / "schemas" / "gradescope_results.schema.json").read_text())

# Module names of the assignment; both trees use the same ones, so they are purged between loads.
ASSIGNMENT_MODULES = ("word2vec", "sgd", "parser_transitions", "parser_model", "run", "utils")


def _purge() -> None:
    for name in list(sys.modules):
        if name.split(".")[0] in ASSIGNMENT_MODULES:
            del sys.modules[name]


def load_tree(root: Path) -> SimpleNamespace:
    """Import every assignment module of ``root`` the way ``python word2vec.py`` would find them."""
    _purge()
    sys.path.insert(0, str(root))
    argv = sys.argv
    try:
        sys.argv = ["run.py"]
        mods = {}
        for name in ("word2vec", "sgd", "parser_transitions", "parser_model", "run"):
            mods[name] = importlib.import_module(name)
        for name in ("utils.utils", "utils.gradcheck", "utils.parser_utils"):
            mods[name.split(".")[1]] = importlib.import_module(name)
    finally:
        sys.argv = argv
        sys.path.remove(str(root))
    return SimpleNamespace(**mods)


@pytest.fixture(scope="module")
def ref() -> SimpleNamespace:
    tree = load_tree(REFERENCE)
    yield tree
    _purge()


@pytest.fixture(scope="module")
def template() -> SimpleNamespace:
    tree = load_tree(TEMPLATE)
    yield tree
    _purge()


def run_script(folder: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    """Run ``python <args>`` inside ``folder`` as a student would."""
    return subprocess.run([sys.executable, *args], cwd=folder, capture_output=True, text=True,
                          timeout=timeout)


def assemble(overrides: Path | None, dest: Path) -> Path:
    """A full submission in ``dest``: the reference's student files, with the ``*.py`` files and
    the written answers file (``answers.md``, ``answers.txt``) of ``overrides`` (e.g. a folder of
    tests/submissions/buggy/) laid over them."""
    from a2.registry import STUDENT_FILES, WRITTEN_FILES

    dest.mkdir()
    for name in STUDENT_FILES:
        shutil.copyfile(REFERENCE / name, dest / name)
    if overrides is not None:
        for path in [*overrides.glob("*.py"), *(overrides / n for n in WRITTEN_FILES)]:
            if path.is_file():
                shutil.copyfile(path, dest / path.name)
    return dest


def variant(tmp_path: Path, name: str, replacements: list[tuple[str, str]]) -> Path:
    """A folder holding the reference's ``name`` rewritten by ``replacements`` (old, new); every
    old text must occur, so a reference edit cannot silently turn a variant into the original."""
    text = (REFERENCE / name).read_text()
    for old, new in replacements:
        assert old in text, old
        text = text.replace(old, new)
    folder = tmp_path / f"variant_{name[:-3]}"
    folder.mkdir(exist_ok=True)
    (folder / name).write_text(text)
    return folder


def load_script(name: str, path: Path):
    """A script of bench/ or tools/ imported as module ``name`` (registered in sys.modules first,
    where dataclasses look their module up)."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(name, module)
    spec.loader.exec_module(module)
    return module
