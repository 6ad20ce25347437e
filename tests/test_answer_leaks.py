"""Issue 20: check names and the feedback a check can write never state a written answer, and
what student code raises reaches feedback capped."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from answer_scan import ANSWER_PATTERNS, answer_hits, string_constants

from grader.run.check_api import MAX_FEEDBACK_MESSAGE_CHARS, MAX_FEEDBACK_TRACEBACK_CHARS, all_checks, describe_failure
from grader.run.results import ERROR
from grader.run.rubric import load_rubric
from grader.sandbox.runner import ProbeError, ProbeResult

GRADER = Path(__file__).resolve().parents[1] / "grader"
A2 = Path(__file__).resolve().parents[1] / "a2"
#: Where every visible name and message template comes from: the checks and the check API, what runs
#: next to student code (its errors reach feedback), the kit's command line and the student's summary,
#: the engine.
MESSAGE_SOURCES = sorted([*A2.glob("checks/**/*.py"), *A2.glob("untrusted/*.py"), *GRADER.glob("untrusted/*.py"),
                          A2 / "bug_shapes.py", A2 / "course_env.py", GRADER / "run" / "check_api.py",
                          GRADER / "run" / "compare.py", GRADER / "run" / "engine.py", GRADER / "kit" / "kit_command.py",
                          GRADER / "reports" / "student.py", GRADER / "reports" / "terminal.py",
                          GRADER / "reports" / "gradescope.py"])


def test_every_check_name_is_free_of_written_answers():
    rubric = load_rubric(registered=set(all_checks()))
    names = [spec.name for spec in rubric.checks]
    assert len(names) > 20
    assert [(n, answer_hits(n)) for n in names if answer_hits(n)] == []


@pytest.mark.parametrize("path", MESSAGE_SOURCES, ids=lambda p: p.name)
def test_every_message_template_is_free_of_written_answers(path):
    hits = [(s[:80], answer_hits(s)) for s in string_constants(path.read_text(encoding="utf-8")) if answer_hits(s)]
    assert hits == []


@pytest.mark.parametrize("text, answer", [
    ("dropout in train mode, gamma = 1/(1-p)", "2(b)(i) gamma"),
    ("γ = 1/(1 − p) of 2(b)(i)", "2(b)(i) gamma"),
    ("2n-step sequences end in the terminal state", "3(b) 2n"),
    ("all 16 = 2n steps", "3(b) 2n"),
    ("all 16 steps reproduce the gold configurations", "3(a) 16 steps"),
    ("it uses ŷ where ŷ − y belongs", "1(b)(i)/3(e)(ii) yhat - y"),
    ("(ŷ_o − 1)v_c", "1(d) (yhat_o - 1) v_c"),
    ("1{(xW + b1)_i > 0}·W_ji", "3(e)(i) W_ji"),
    ("S S LA S S LA RA S S S S LA LA LA RA RA", "3(a) sequence"),
    ("wrong: acquisition → citing", "3(f) acquisition->citing"),
    ("('reasons', 'decision')", "3(f) reasons->decision"),
])
def test_the_answer_scan_catches_planted_answers(text, answer):
    assert answer in ANSWER_PATTERNS
    assert answer in answer_hits(text)


def test_the_answer_scan_passes_plain_feedback():
    assert answer_hits("sigmoid(x) with x of shape (3, 4): got 0.2; expected 0.5 for 2 names") == []


def test_error_messages_in_feedback_are_capped():
    """Whatever a worker sends (student code shares its process), a raised message and its
    traceback reach feedback capped: a submission cannot carry a module's source out through it."""
    source = "def something():\n    return 1\n" * 5000
    result = ProbeResult(status="error", error=ProbeError(type="RuntimeError", message=source,
                                                           traceback=tuple(source.splitlines())))
    status, lines = describe_failure(result, "sigmoid(x)", 10.0)
    assert status == ERROR
    text = "\n".join(lines)
    assert len(text) < MAX_FEEDBACK_MESSAGE_CHARS + MAX_FEEDBACK_TRACEBACK_CHARS + 1000
    assert "more characters not shown" in lines[0] and "rest of the traceback is not shown" in text


# Written answers (issue 20): an auto-graded item shows at once only what was read and the verdict;
# what is wrong and the expected form (which implies the key) is an entry of its own, shown as
# rubric.yaml's explanation says. Every message template of a2/written/ is scanned, except the
# catalogue's known mistakes, which are only ever shown in that explanation (proven below on each).

WRITTEN = sorted([*A2.glob("written/*.py"), *GRADER.glob("reading/*.py")])
#: Calls whose arguments are a known mistake (shown only in the explanation) or a formula it is
#: recognised by (never shown): a2/written/catalogue.py.
EXPLANATION_ONLY_CALLS = frozenset({"mistake", "shape", "_reads_as"})


def shown_strings(source: str) -> list[str]:
    """The string constants of a module that a message can carry: not a docstring (a bare string
    statement), not an argument of a catalogue entry."""
    tree = ast.parse(source)
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            skip.add(id(node.value))
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) in EXPLANATION_ONLY_CALLS:
            skip.update(id(n) for arg in node.args for n in ast.walk(arg))
    out = []
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.JoinedStr):
            skip.update(id(v) for v in node.values)
            out.append("{}".join(v.value if isinstance(v, ast.Constant) and isinstance(v.value, str) else ""
                                 for v in node.values))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            out.append(node.value)
    return out


@pytest.mark.parametrize("path", WRITTEN, ids=lambda p: p.name)
def test_every_written_message_template_is_free_of_written_answers(path):
    hits = [(s[:80], answer_hits(s)) for s in shown_strings(path.read_text(encoding="utf-8")) if answer_hits(s)]
    assert hits == []


def test_the_written_scan_sees_a_planted_message_and_skips_only_the_catalogue():
    planted = 'def f():\n    """γ = 1/(1 − p)"""\n    return Verdict(0, 1, ["γ must be 1/(1 − p_drop)."])\n'
    assert [answer_hits(s) for s in shown_strings(planted)] == [["2(b)(i) gamma"]]
    entry = 'CATALOGUE = (mistake("d", "2b_i", shape(r"1 - p"), "γ = 1/(1 − p_drop)."),)\n'
    assert shown_strings(entry) == []
    assert shown_strings(entry.replace("mistake(", "other(")) != []


def _wrong_answers() -> list[tuple[str, str]]:
    """(question, section text) of wrong answers: one per known mistake of the catalogue (built
    from the formula it is recognised by), the 3(a) and 3(f) ones, and wrong answers no entry names."""
    import re

    from test_written_checkers import GOLD as GOLD_3A
    from test_written_checkers import TABLE as TABLE_3F
    from test_written_checkers import table

    from a2.written.catalogue import CATALOGUE

    out = []
    for entry in CATALOGUE:
        latex = re.fullmatch(r"same values as (.*)", entry.matches.__doc__ or "", re.S)
        if latex is None:
            continue
        item, _, case = entry.applies_to.partition(":")
        formula = latex.group(1)
        if item == "1d":
            other = r"(1 - \hat{y}_o) v_c" if case == "neq" else r"-\hat{y}_w v_c"
            eq, neq = (formula, other) if case == "eq" else (other, formula)
            out.append(("1d", f"**Answer:** case w = o: ${eq}$\n\n**Answer:** case w ≠ o: ${neq}$"))
        else:
            lead = "\\gamma = " if item == "2b_i" else ""
            out.append((item, f"Answer: ${lead}{formula}$"))
    out += [("2b_i", r"Answer: $\gamma = 1 + p$"), ("3b", r"Answer: $n^2$"), ("1b_i", r"Answer: $U^T(\hat y - y)$"),
            ("3e_ii", r"Answer: $\hat{y}_i + y_i$"),
            ("3e_ii", r"Answer: $\begin{cases} \hat{y}_i - 1 & i = c \\ 0 & i \neq c \end{cases}$"),   # one case right
            ("3a", table("S S LA S S LA RA S RA S S S LA LA RA RA".split())),
            ("3a", table("S S LA S S LA RA S S S S LA LA LA RA RA".split(), skip=15)),
            ("3f", "i. Error type: modifier. Incorrect dependency: university → blocked. Correct: blocked → acquisition.\n\n"
                   "iii. Error type: VP attachment. Incorrect dependency: declined → reasons. "
                   "Correct dependency: reasons → declined.")]
    # one dependency written reversed, and each 3(f) sentence with another sentence's error type
    out.append(("3a", table(GOLD_3A, dep=lambda a: f"{a[1]} → {a[0]}" if a == ("findings", "my") else f"{a[0]} → {a[1]}")))
    kinds = re.findall(r"^\| ([iv]+) \| ([^|]+?) \|", TABLE_3F, re.M)
    for k, (roman, _) in enumerate(kinds):          # that sentence alone, its dependencies reversed too
        other = kinds[(k + 1) % len(kinds)][1]
        line = next(line for line in TABLE_3F.splitlines() if line.startswith(f"| {roman} |"))
        cells = [cell.strip() for cell in line.strip("| ").split("|")]
        flipped = [" → ".join(reversed(cell.split(" → "))) for cell in cells[2:4]]
        out.append(("3f", "\n".join([*TABLE_3F.strip().splitlines()[:2], f"| {roman} | {other} | {' | '.join(flipped)} |"])))
    return out


def _fixed_text(message: str) -> str:
    """A catalogue message's longest fixed stretch (its {fields} are filled from the evidence)."""
    import re

    return max(re.split(r"\{\w+\}", message), key=len)


def _visible_text(doc: dict) -> str:
    """What a student sees before the due date, less the student's own text (the lines saying what
    was read and the TA-graded shares' extracted answers)."""
    tests = [t for t in doc["tests"] if t["visibility"] == "visible" and "manual" not in t["tags"]]
    lines = [line for t in tests for line in t["output"].splitlines()] + doc["output"].splitlines()
    return "\n".join(line for line in lines if not line.startswith(("read", "Read from ", "Read: ", "Text read")))


@pytest.mark.parametrize("question, body", _wrong_answers())
def test_nothing_shown_before_the_due_date_states_a_written_key(tmp_path, question, body):
    """Graded through the written grader and written as Gradescope's results.json with the rubric's
    visibilities: the entries visible before the due date name no key, no expected value and no
    known mistake's message; the score and the explanation (what is wrong) are in the entry shown after it."""
    from a2.written.catalogue import CATALOGUE
    from a2.written.grade import grade_written
    from a2.written.process import InProcess
    from a2.written.sections import pretty
    from grader.reports.gradescope import to_results_json
    from grader.run.results import GradeReport

    rubric = load_rubric()
    part = rubric.part(question)
    (tmp_path / "answers.md").write_text(f"### {pretty(question)}\n\n{body}\n", encoding="utf-8")
    results, manual, _ = grade_written([tmp_path / "answers.md"], [part], 11, runner=InProcess())
    (result,) = results
    assert result.score < result.max_score and result.written is not None and result.written.why
    doc = to_results_json(GradeReport("s", 11, tuple(results), 0.0, manual=tuple(manual)))
    shown = _visible_text(doc)
    assert answer_hits(shown) == [], shown
    assert not any(w in shown for w in ("the answer is", "the true", "toward the gold tree", "Row ")), shown
    assert not any(_fixed_text(e.message) in shown for e in CATALOGUE), shown
    explained = [t for t in doc["tests"] if "auto" in t["tags"]]
    assert [t["visibility"] for t in explained] == [part.explanation] != ["visible"]
    assert explained[0]["output"].endswith("\n".join(result.written.why))


def test_every_known_mistake_is_explained_after_the_due_date_only(tmp_path):
    """Each catalogue entry's message reaches a wrong answer's explanation entry (so the cases
    above cover the whole catalogue, whose messages the template scan leaves to them)."""
    from a2.written.catalogue import CATALOGUE
    from a2.written.grade import grade_written
    from a2.written.process import InProcess
    from a2.written.sections import pretty
    from grader.reports.gradescope import to_results_json
    from grader.run.results import GradeReport

    rubric = load_rubric()
    explained = ""
    for k, (question, body) in enumerate(_wrong_answers()):
        (tmp_path / f"{k}").mkdir()
        path = tmp_path / f"{k}" / "answers.md"
        path.write_text(f"### {pretty(question)}\n\n{body}\n", encoding="utf-8")
        results, _, _ = grade_written([path], [rubric.part(question)], 11, runner=InProcess())
        doc = to_results_json(GradeReport("s", 11, tuple(results), 0.0))
        explained += "\n".join(t["output"] for t in doc["tests"] if t["visibility"] != "visible")
    assert [e.id for e in CATALOGUE if _fixed_text(e.message) not in explained] == sorted(NEVER_MATCHES)


#: Catalogue entries no answer reaches today (so their messages are shown nowhere): named here so
#: that the test above fails, and this is removed, once one is.
NEVER_MATCHES: dict[str, str] = {}
