"""The registry of a test-file assignment: every name of ``grader.assignment.CONTRACT``, for any
course whose rubric.yaml says ``tests: <folder>`` (the folder of its unittest or pytest files).

The door (grader/assignment.py) asks :func:`test_file_registry` for it. Beside an assignment
package (``assignment:`` and ``tests:`` both), the package's registry answers everything and the
tests add their checks, their student files and their folder to its probes'.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

from grader.common import paths

CHECKS_MODULE = "grader.testfiles.checks"
"""The module that registers one check per collected test."""
KIT_TESTS = "tests"
"""The kit's copy of the visible tests: ``grader/kit_data/tests/`` (with ``tests.json``, their list)."""
NO_PREFIX = "::"
"""No test id starts with this (``grader batch --quick`` skips nothing of a test-file assignment)."""


class EverySet(frozenset[str]):
    """A set that holds everything: no test's answers are recorded for the kit (tests need no reference)."""

    def __contains__(self, item: object) -> bool:
        return True


def tests_settings(value: Any) -> dict[str, Any]:
    """rubric.yaml's ``tests:`` as a mapping: ``folder`` (the test files, from the course's root),
    ``files`` (the student files, default the starter's .py files), ``points`` (a test's points when
    neither ``@weight`` nor a rubric line gives them, default 0, as gradescope-utils)."""
    return {"folder": value} if isinstance(value, str) else dict(value or {})


def tests_folder(settings: dict[str, Any]) -> Path:
    """Where the test files are: the course's folder, or in the student kit its copy of the visible ones."""
    if paths.IN_KIT:
        return paths.KIT_DATA / KIT_TESTS
    return (paths.REPO_ROOT / str(settings.get("folder", "tests"))).resolve()


def student_files(settings: dict[str, Any]) -> tuple[str, ...]:
    """``files:`` of rubric.yaml's ``tests:``, else the starter code's top-level .py files."""
    files = settings.get("files")
    if isinstance(files, list):
        return tuple(str(f) for f in files)
    return tuple(sorted(p.name for p in paths.TEMPLATE_DIR.glob("*.py"))) if paths.TEMPLATE_DIR.is_dir() else ()


def _merged_folder(folders: list[Path]) -> Path:
    """One folder holding the ``*.py`` of ``folders`` (the package's probes and the tests), removed at exit."""
    merged = Path(tempfile.mkdtemp(prefix="grader-probes-"))
    atexit.register(shutil.rmtree, merged, True)
    for folder in folders:
        for source in folder.glob("*.py"):
            if source.name != "__init__.py":
                shutil.copy2(source, merged / source.name)
    return merged


KIT_README = """# Your working folder

Edit the starter files here. To check your code before you submit:

    python -m pip install .
    grader check            # or: grader check --quiet

`grader check` runs the visible tests on your laptop, with time limits. Hidden tests are
graded when you submit.
"""


def _no_written(*_args: Any, **_kwargs: Any) -> Any:
    return [], [], []


class _NoReader:
    """The writeup reader of a course with no written part: the class tools start it and read nothing."""

    def call(self, *_args: Any, **_kwargs: Any) -> Any:
        raise RuntimeError("a test-file assignment has no written part to read")

    def close(self) -> None:
        pass


def _no_reader() -> Any:
    return _NoReader()


def test_file_registry(value: Any, base: ModuleType | None) -> ModuleType:
    """The registry of the course whose rubric.yaml's ``tests:`` is ``value`` (beside ``base``, the
    registry of its assignment package, if it names one)."""
    settings = tests_settings(value)
    folder = tests_folder(settings)
    title = paths.REPO_ROOT.resolve().name.replace(" ", "_") or "course"
    module = ModuleType("grader.testfiles.course", "The registry of a test-file assignment.")
    module.__file__ = __file__
    if base is not None:
        vars(module).update({k: v for k, v in vars(base).items() if not k.startswith("__")})
        vars(module).update(
            STUDENT_FILES=tuple(dict.fromkeys([*base.STUDENT_FILES, *student_files(settings)])),
            CHECK_MODULES=(*base.CHECK_MODULES, CHECKS_MODULE),
            UNTRUSTED=_merged_folder([Path(base.UNTRUSTED), folder]))
        vars(module)["TESTS"] = settings
        return module
    vars(module).update(
        TESTS=settings, STUDENT_FILES=student_files(settings), WRITTEN_FILES=(), WRITTEN_SUFFIXES=(),
        UNREAD_WRITTEN_SUFFIXES=(), NOT_WRITTEN=(), FALLBACK_WRITTEN=(), SUPPORT_DIRS=(),
        TORCH_FILES=frozenset(), TRAINING_CHECK_PREFIX=NO_PREFIX, CHECK_MODULES=(CHECKS_MODULE,), UNTRUSTED=folder,
        load_reference=lambda root=None: SimpleNamespace(), reference_modules=lambda: [],
        missing_module=lambda kind, message: None, missing_module_lines=lambda file, module: ("", ""),
        explain_error=lambda kind, message: None, written_checkers=lambda: {}, grade_written=_no_written,
        reader_process=_no_reader, question_title=str, question_text=lambda question: "",
        reference_answer=lambda question, reference: "", group_kind=lambda checker: "prose",
        group_label=lambda *args: "", answer_items=lambda *args: None, key_disagreements=lambda reference: [],
        ANSWER_SHAPES={}, KIT_DIST=f"{title.replace('_', '-')}-student-kit", KIT_FOLDER=f"{title}_student",
        KIT_DESCRIPTION="Local checks: the course's visible tests (no solution inside).", KIT_README=KIT_README,
        KIT_MODULES=(),       # the framework's kit modules hold the test-file assignment
        KIT_NEVER=(), KIT_NOT_RECORDED=EverySet(), KIT_STRIPPED={},
        KIT_REQUIRES=("gradescope-utils", "pytest"))
    return module
