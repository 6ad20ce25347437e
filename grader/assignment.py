"""The one door from the framework to the assignment it grades.

The framework (everything in grader/) knows no assignment. rubric.yaml names the assignment's
package (``assignment: a2``); that package's ``registry`` module says everything the framework asks
of it: its check modules, its written checkers and reader, its reference, its course environment,
its probes' folder and what its kit ships. Only this module imports it, by that name
(tests/test_static.py enforces it), and this module imports nothing of the framework but its paths.
So another assignment, or next year's version of this one, is a new package plus a rubric, with the
framework untouched. ARCHITECTURE.md draws the whole layout.
"""

from __future__ import annotations

import functools
import importlib
import re
from pathlib import Path
from types import ModuleType

import yaml

from grader.common import paths

REGISTRY_MODULE = "registry"
"""The module of an assignment package that the framework reads (``a2.registry``)."""
CONTRACT = {
    # what a submission holds
    "STUDENT_FILES": "the files a student edits and uploads",
    "WRITTEN_FILES": "the names of the written part's files (the first is the template's)",
    "WRITTEN_SUFFIXES": "written files read whatever their name (.md, .txt, .tex, .ipynb, .org, .rst)",
    "UNREAD_WRITTEN_SUFFIXES": "files that may hold written answers but cannot be read (named in the feedback)",
    "NOT_WRITTEN": "file names (lower case, no suffix) never read as written answers",
    "FALLBACK_WRITTEN": "file names (lower case, no suffix) read as written answers only when an upload has no other",
    "SUPPORT_DIRS": "the template's support folders, which the grader provides",
    "TORCH_FILES": "student files whose checks need torch preloaded in the worker",
    "TRAINING_CHECK_PREFIX": "the id prefix of the checks `grader batch --quick` skips",
    # code checks
    "CHECK_MODULES": "the modules that register the checks (@check)",
    "UNTRUSTED": "the folder of the probes, copied next to the worker",
    "load_reference": "the reference solution's modules, for ctx.ref",
    "reference_modules": "the names ctx.ref answers to (the kit records them)",
    "missing_module": "whether an import error names a module the course's environment lacks",
    "missing_module_lines": "what to say of such an import",
    "explain_error": "a line to add to the feedback of an error of student code, or None",
    # the written part
    "written_checkers": "every written checker, by name",
    "grade_written": "read a writeup and judge its auto-graded questions",
    "reader_process": "the writeup reader in a child process (answer groups, similarity)",
    "question_title": "a written question's id as students read it",
    "question_text": "a written question's text, shown beside its answers when TAs mark them",
    "reference_answer": "the reference's answer to a written question, shown to TAs when they mark it",
    "group_kind": "how the answer groups group a checker's answers: formula, table, reading or prose",
    "group_label": "what a table's or a reading's group shares",
    "answer_items": "the items of an answer graded as several (item, text, score, max score), or None",
    "key_disagreements": "where the reference's written solutions disagree with the answer keys "
                         "(AssignmentError when the keys themselves are malformed)",
    "ANSWER_SHAPES": "what a missing written answer should look like, by checker",
    # the student kit
    "KIT_DIST": "the kit's distribution name", "KIT_FOLDER": "the kit's folder in its zip",
    "KIT_DESCRIPTION": "the kit's one-line description", "KIT_README": "the kit's KIT_README.md",
    "KIT_MODULES": "the assignment's modules the kit ships", "KIT_NEVER": "what never goes into the kit",
    "KIT_NOT_RECORDED": "visible checks whose reference answers are not recorded",
    "KIT_STRIPPED": "what the kit's copies of modules leave out",
}
"""Every name the framework asks of an assignment's registry, and what for: the interface a new
assignment implements (a2/registry.py is the example). A course whose checks are its own unittest or
pytest files implements none of it: rubric.yaml's ``tests: <folder>`` makes grader/testfiles/ its registry."""
OPTIONAL = {
    "TESTS": "rubric.yaml's tests: (a test-file assignment's settings)",
    "KIT_REQUIRES": "distributions the kit needs beyond the framework's",
}
"""Names a registry may define, and what for."""
_NAME = re.compile(r"[A-Za-z_]\w*")


class AssignmentError(RuntimeError):
    """rubric.yaml names no assignment package, or one that cannot be imported, or the assignment's
    own data is malformed (its answer keys): the instructor's error, said in one line."""


def rubric_data(rubric: Path | None = None) -> dict:
    """``rubric`` (default: the course's rubric.yaml) as data; AssignmentError when it cannot be read."""
    path = rubric or paths.RUBRIC_PATH
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise AssignmentError(f"cannot read {path}: {exc}") from exc
    except yaml.YAMLError as exc:
        raise AssignmentError(f"{path} is not valid YAML: {exc}") from None
    return data if isinstance(data, dict) else {}


def package_name(rubric: Path | None = None) -> str:
    """The assignment package named by ``assignment:`` in ``rubric`` (default: the course's rubric.yaml)."""
    path = rubric or paths.RUBRIC_PATH
    name = rubric_data(rubric).get("assignment")
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise AssignmentError(f"{path} names no assignment: add a top-level line `assignment: <package>` "
                              "naming the Python package that holds the assignment's checks (e.g. `assignment: a2`), "
                              "or `tests: <folder>` naming a folder of unittest or pytest files")
    return name


def course_folders(rubric: Path | None = None) -> tuple[str, ...]:
    """The course's own folders the grader needs beside reference/ and student_template/: the
    assignment's package and the test files' folder, as rubric.yaml names them (from the course's root)."""
    data = rubric_data(rubric)
    tests = data.get("tests")
    folder = tests if isinstance(tests, str) else tests.get("folder", "tests") if isinstance(tests, dict) else None
    named = [data.get("assignment"), folder]
    return tuple(str(f) for f in named if isinstance(f, str) and f)


@functools.cache
def registry() -> ModuleType:
    """The assignment's registry module (``<package>.registry``), imported once and checked against
    :data:`CONTRACT`; with ``tests: <folder>`` in rubric.yaml, the test-file assignment's registry
    (grader/testfiles/), beside the package's when it names one too."""
    data = rubric_data()
    base = _package_registry() if "assignment" in data or "tests" not in data else None
    if "tests" in data:
        from grader.testfile_registry import test_file_registry  # noqa: PLC0415 - a test-file assignment only

        return checked(test_file_registry(data["tests"], base))
    assert base is not None
    return checked(base)


def _package_registry() -> ModuleType:
    name = f"{package_name()}.{REGISTRY_MODULE}"
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name not in (name, package_name()):
            raise
        raise AssignmentError(f"rubric.yaml names the assignment {package_name()!r}, but {name} cannot be imported: "
                              f"install the package that holds it (pip install -e .) or fix the name") from exc
    return checked(module)


def checked(module: ModuleType) -> ModuleType:
    """``module`` if it defines every name of :data:`CONTRACT`; else AssignmentError naming each
    missing one and what the framework uses it for."""
    missing = [f"{name} ({use})" for name, use in CONTRACT.items() if not hasattr(module, name)]
    if missing:
        raise AssignmentError(f"{module.__name__} lacks what the framework asks of an assignment: "
                              + "; ".join(missing) + ". Define them there (a2/registry.py is an example).")
    return module


def folder() -> Path:
    """The assignment package's folder."""
    return Path(registry().__file__ or ".").resolve().parent


def untrusted_folder() -> Path:
    """The assignment's probes (its registry's ``UNTRUSTED``): run next to student code with the
    framework's worker (grader/untrusted/), and, like it, importing nothing trusted."""
    return Path(registry().UNTRUSTED)


def student_files() -> tuple[str, ...]:
    """The files a student edits and uploads (``word2vec.py``...), in the assignment's order."""
    return tuple(registry().STUDENT_FILES)


def written_files() -> tuple[str, ...]:
    """The names of the written part's files (``answers.md``...); ``.tex`` files are read too."""
    return tuple(registry().WRITTEN_FILES)


def is_written(name: str) -> bool:
    """Whether a file of this name is read as a written answer (any Markdown, text or LaTeX file that
    is not a student file or a README/requirements/licence)."""
    low = name.lower()
    if name in registry().STUDENT_FILES or low.endswith(".ipynb") and f"{low[:-6]}.py" in registry().STUDENT_FILES:
        return False          # a student file, or its notebook (word2vec.ipynb is code, named as such)
    if name in registry().WRITTEN_FILES:
        return True
    return low.endswith(tuple(registry().WRITTEN_SUFFIXES)) and low.rsplit(".", 1)[0] not in registry().NOT_WRITTEN


def is_fallback_written(name: str) -> bool:
    """Whether a file of this name is read as a written answer when the upload holds no other written
    file: a README.md that holds the answers below its code notes and run logs."""
    low = name.lower()
    return (low.endswith(tuple(registry().WRITTEN_SUFFIXES))
            and low.rsplit(".", 1)[0] in registry().FALLBACK_WRITTEN)


def is_unread_written(name: str) -> bool:
    """Whether a file of this name may hold written answers the reader cannot read (.pdf, .xlsx, an image)."""
    return name.lower().endswith(tuple(registry().UNREAD_WRITTEN_SUFFIXES))


def support_dirs() -> tuple[str, ...]:
    """The template's support folders, which the grader provides (a student's own copy is ignored)."""
    return tuple(registry().SUPPORT_DIRS)
