"""Everything the framework asks of this assignment, in one place: grader/assignment.py imports this
module (rubric.yaml's ``assignment: a2`` names the package) and nothing else of a2/.

Light to import: the heavy parts (the reference, the written reader) are imported when first asked for.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from a2.checks import CHECK_MODULES
from a2.course_env import explain_error, missing_module, missing_module_lines
from grader.assignment import AssignmentError

__all__ = ["CHECK_MODULES", "explain_error", "missing_module", "missing_module_lines"]

# -- what a submission holds ------------------------------------------------------------------

STUDENT_FILES = ("word2vec.py", "sgd.py", "parser_transitions.py", "parser_model.py", "run.py")
"""The files a student edits and uploads; everything else in the template is support code."""
WRITTEN_FILES = ("answers.md", "answers.txt")
"""The written part: Markdown (the template's), or plain text with Unicode or ASCII math; .tex files too."""
WRITTEN_SUFFIXES = (".md", ".markdown", ".mmd", ".mkd", ".mdown", ".qmd", ".rmd", ".rmarkdown", ".txt", ".tex",
                    ".ipynb", ".org", ".rst", ".html", ".htm", ".wiki", ".mediawiki", ".lyx")
"""Written files read whatever their name (``a2_answer.md``, ``p1.txt``, ``homework2.tex``; a notebook's
Markdown cells, org-mode and reStructuredText as the Markdown they say: grader/reading/markup.py;
Quarto's .qmd and R Markdown's .Rmd are Markdown with a front matter and code chunks; .mmd is Mathpix's
Markdown, what its OCR of a handwritten page exports, and MultiMarkdown's; .mkd and .mdown are Markdown)."""
UNREAD_WRITTEN_SUFFIXES = (".pdf", ".xlsx", ".xls", ".csv", ".ods", ".numbers", ".docx", ".doc", ".odt", ".rtf",
                           ".pages", ".png", ".jpg", ".jpeg", ".gif", ".heic", ".webp",
                           ".typ", ".adoc", ".asciidoc", ".latex", ".ltx")
"""Files that may hold written answers the reader cannot read (a 3(a) table in a spreadsheet, a
scanned page, a writeup in Typst or AsciiDoc, whose math is not LaTeX's, or LaTeX under a
suffix the reader does not take for it): named in the feedback, and the items they may answer go to review."""
NOT_WRITTEN = ("requirements", "license", "licence", "readme")
"""File names (without suffix, lower case) never read as written answers."""
FALLBACK_WRITTEN = ("readme",)
"""File names (without suffix, lower case) read as written answers only when the upload has no other
written file: students who keep the answers in the repository's README.md below its code notes."""
SUPPORT_DIRS = ("utils", "data")
"""The template's support folders: the grader copies its own next to the student's files."""
TORCH_FILES = frozenset({"parser_model.py", "run.py"})
"""Student files whose checks need torch in the worker: it is imported as the worker starts."""
TRAINING_CHECK_PREFIX = "train"
"""Checks whose id starts with this train a parser (about 20 s each submission); ``grader batch --quick``
skips them."""
ANSWER_SHAPES = {
    "transition_table": "a table: one row per step with stack, buffer, new dependency and transition",
    "parser_errors": "a list: for each sentence, the error type, the incorrect dependency and the correct one",
}
"""What a missing written answer should look like, by the checker that reads it (default: a formula)."""

UNTRUSTED = Path(__file__).resolve().parent / "untrusted"
"""The probes' folder: every ``*.py`` in it but ``__init__.py`` is copied next to the framework's worker
(grader/untrusted/), and each ``probes_*.py`` registers its ``PROBES``."""


# -- the reference ----------------------------------------------------------------------------

def load_reference(root: Path | None = None) -> Any:
    """The reference solution's modules, imported in the trusted process (a2/reference.py)."""
    from a2.reference import load_reference as load  # imports the reference tree

    return load() if root is None else load(root)


def reference_modules() -> list[str]:
    """The names ``ctx.ref`` answers to (the kit records them): the reference's modules by their last
    name, and the grader's own math."""
    from a2.reference import GRADER_MODULES
    from a2.tree_import import MODULES

    return sorted({name.split(".")[-1] for name in MODULES} | set(GRADER_MODULES))


# -- the written part ----------------------------------------------------------------------------

def written_checkers() -> dict[str, Any]:
    """Every written checker's name, and its module (a2/written/checkers.py), without importing the
    checkers: a grading's trusted process needs only the names, the reader process the checkers."""
    from a2.written.checkers import written_checker_names

    return written_checker_names()


def grade_written(*args: Any, **kwargs: Any) -> Any:
    """Read the writeup and judge its auto-graded questions (a2/written/grade.py)."""
    from a2.written.grade import grade_written as grade

    return grade(*args, **kwargs)


def reader_process() -> Any:
    """The writeup reader in its own child process (a2/written/process.py), for the class tools."""
    from a2.written.process import ChildProcess

    return ChildProcess()


def question_title(question: str) -> str:
    """``1b_i`` -> ``1(b)(i)``."""
    from a2.written.sections import pretty

    return pretty(question)


def question_text(question: str) -> str:
    """The written question as the handout asks it (a2/written/questions.yaml), for the marking page."""
    from a2.written.questions import question_text as text

    return text(question)


def reference_answer(question: str, reference: Path) -> str:
    """The reference's answer to a written question (its solution block in ``reference``/answers.md),
    shown to TAs only; "" when there is none."""
    from a2.written.questions import reference_answer as answer

    try:
        return answer(question, (reference / "answers.md").read_text(encoding="utf-8"))
    except OSError:
        return ""


def group_kind(checker: str) -> str:
    """How the answer groups group the answers ``checker`` grades: formula (by their values), table,
    reading (by :func:`group_label`) or prose (a2/written/grouping.py)."""
    from a2.written.fingerprint import FORMULA_CHECKERS
    from a2.written.grouping import group_kind as kind

    return kind(checker, FORMULA_CHECKERS)


def group_label(checker: str, text: str, score: float | None, max_score: float | None,
                feedback: tuple[str, ...]) -> str:
    """What a table's or a reading's group shares (3(a): the first wrong row)."""
    from a2.written.grouping import group_label as label

    return label(checker, text, score, max_score, feedback)


def answer_items(checker: str, written: dict[str, Any], feedback: list[str]) -> list[tuple[str, str, float | None, float | None]] | None:
    """An answer graded as several items (3(f)'s four sentences): (item, text, score, max score) each;
    None for a one-item answer."""
    from a2.written.grouping import answer_items as items

    return items(checker, written, feedback)


def key_disagreements(reference: Path) -> list[str]:
    """Where the reference's written solutions (``reference``/answers.md) disagree with the written
    answer keys (a2/written/keys.yaml)."""
    from a2.written.keys import KeysError, disagreements

    try:
        return disagreements((reference / "answers.md").read_text(encoding="utf-8"))
    except KeysError as exc:
        raise AssignmentError(str(exc)) from None   # malformed keys.yaml: the message names the entry and the fix


# -- the student kit ------------------------------------------------------------------------------

#: The kit's distribution (its ``grader --version`` reads this package's metadata), its folder in the
#: zip, and what it says of itself.
KIT_DIST = "a2-student-kit"
KIT_FOLDER = "a2_student"
KIT_DESCRIPTION = "Local checks for the word2vec and dependency parsing assignment (no solution inside)."
KIT_README = """# Assignment 2: your working folder

Edit the five .py files and answers.md here. To check your code before you submit:

    python -m pip install .
    grader check            # or: grader check --quiet, grader check --seed N

Install it in your course environment (conda or pip), where PyTorch is already installed: the
kit does not install or replace PyTorch.

`grader check` runs the visible code checks on your laptop, with time limits. It holds no
solution: expected values were recorded when this kit was made, for a few seeds. Hidden checks
and the written answers are graded when you submit, and the full grader's feedback names more
known bugs than this kit does.
"""
#: The assignment's modules the kit ships (paths from the repository's root): the visible checks'
#: code (the kit strips held-back checks from them), the reference's loader and the probes.
KIT_MODULES = (
    "a2/__init__.py", "a2/registry.py", "a2/course_env.py", "a2/bug_shapes.py", "a2/reference.py", "a2/tree_import.py",
    "a2/checks/__init__.py", "a2/checks/minibatch.py", "a2/checks/model.py", "a2/checks/model_dropout.py",
    "a2/checks/sgd.py", "a2/checks/skipgram.py", "a2/checks/training.py", "a2/checks/training_uas.py",
    "a2/checks/partial_parse.py", "a2/checks/word2vec.py",
    "a2/checks/helpers/__init__.py", "a2/checks/helpers/model_params.py", "a2/checks/helpers/model_shapes.py",
    "a2/checks/helpers/parsing_inputs.py", "a2/checks/helpers/training_size.py", "a2/checks/helpers/word2vec_shapes.py",
    "a2/untrusted/__init__.py", "a2/untrusted/probes_model.py", "a2/untrusted/probes_parser.py",
    "a2/untrusted/probes_training.py", "a2/untrusted/probes_word2vec.py", "a2/untrusted/training_support.py",
)
#: Never in the kit, whatever KIT_MODULES says (a test checks both): the grader's own correct parser,
#: the hidden dev set's grammar and parse, the solution math, the stand-in model, the course's code for
#: 5.9's counterfactual run, the written checkers.
KIT_NEVER = ("a2/arcstandard.py", "a2/treebank.py", "a2/checks/helpers/dev_parse.py", "a2/untrusted/standin_model.py",
             "a2/course_parts.py", "a2/written/", "a2/solution_math.py")
#: Visible checks that never ask the reference (training judges the student's own run).
KIT_NOT_RECORDED = frozenset({"train_loop", "train_setup", "train_uas"})
#: What the kit's copy of a check module leaves out: the bug-shape catalogues (their matchers compute
#: right or near-right formulas) become empty, and the functions that compute such formulas become
#: stubs that return the given value (no hint, no named bug). The full grader names known bugs.
KIT_STRIPPED: dict[str, tuple[dict[str, str], dict[str, str]]] = {
    "a2/checks/helpers/model_params.py": ({"forward_hint": '""', "lookup_hint": '""'}, {}),
    "a2/checks/helpers/model_shapes.py": (
        dict.fromkeys(("row_scales", "_spread", "_one_scale", "dropout_case",
                       "diagnose_dropout"), "None"),
        {"DROPOUT": "()"}),
    "a2/checks/helpers/word2vec_shapes.py": (
        dict.fromkeys(("_sigma", "_sigmoid_shape", "_field_shape", "_neg_grads", "_right_coefficients",
                       "_neg_variant", "_distinct", "_neg_loss", "_neg_grad_shapes", "_naive_delta", "_sk_value",
                       "_wrong_rows", "_last_center", "_calls_shape", "_center_passed_wrong",
                       "_center_is_outside_row"), "None"),
        {"SIGMOID": "()", "NEG_LOSS": "()", "NEG_GRAD_CENTER": "()", "NEG_GRAD_OUTSIDE": "()",
         "NAIVE_LOSS": "()", "NAIVE_GRADS": "()", "SKIPGRAM": "()",
         "LOSS_SHAPES": '__import__("collections").defaultdict(tuple)'}),
    "a2/checks/sgd.py": ({}, {"ANNEAL": "()"}),
    "a2/checks/minibatch.py": ({"_deleted_by_index": "None"}, {}),
    "a2/checks/partial_parse.py": (dict.fromkeys(("_step_shape", "_removed", "_removed_by_value"), "None"),
                                 {"PARSE_STEP": "()"}),
}
