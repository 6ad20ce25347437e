"""Issue 33, class 10: a written verdict is no oracle before the due date.

A written item's score is its verdict: 3(f) is worth 12 points over per-field answers whose types
each occur once, so a score shown at once lets a few resubmissions find the key. Before the due date
a student sees what was read, from where, whether it was read whole and the files read; the score,
what is wrong and the expected form come after it (rubric.yaml's ``explanation``), unless an
instructor shows one item's verdict at once.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace

import pytest
import written_corpus as wc
import written_corpus_dep as dep
from rich.console import Console
from written_support import PARTS, RUNNER

from a2.written.grade import READ_UNSURE, grade_written
from grader.check_command import _status
from grader.reports import jsonout, student
from grader.reports.gradescope import to_results_json
from grader.run.results import GradeReport
from grader.run.rubric import load_rubric

RIGHT = """### 3(f)

i. Error type: VP attachment error. Incorrect dependency: acquisition -> citing. Correct dependency: blocked -> citing.

ii. Error type: Modifier Attachment Error
Incorrect dependency: elements → most
Correct dependency: crucial → most

iii. Error type: Prepositional Phrase Attachment Error
Incorrect dependency: declined → decision
Correct dependency: reasons → decision

iv. Error type: coordination attachment error
Incorrect dependency: affects → one
Correct dependency: plants → one

### 3(b)

It takes $2n$ steps.
"""
#: One field of 3(f) wrong: sentence ii's correct dependency. What was read differs by that arc only.
WRONG = RIGHT.replace("Correct dependency: crucial → most", "Correct dependency: most → crucial")
RIGHT_ARC, WRONG_ARC = "crucial → most", "most → crucial"
HELD = ("after_due_date", "after_published")


def _grade(tmp_path, name: str, text: str, parts=PARTS) -> GradeReport:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "answers.md").write_text(text, encoding="utf-8")
    results, manual, notes = grade_written([folder / "answers.md"], parts, 7, runner=RUNNER)
    return GradeReport(name, 7, tuple(results), 0.0, tuple(notes), tuple(manual))


def seen_before_the_due_date(doc: dict) -> str:
    """Every field of results.json a student sees before the due date: the top-level output, the
    tests visible now, and the total unless Gradescope hides it (it does while a test with points is
    held until after the due date or publication; a ``hidden`` one with points never exists)."""
    view = {"output": doc["output"], "tests": [t for t in doc["tests"] if t.get("visibility", "visible") == "visible"]}
    if not any(t.get("visibility") in HELD and t.get("max_score", 0) > 0 for t in doc["tests"]):
        view["score"] = doc["score"]
    return json.dumps(view, sort_keys=True, ensure_ascii=False)


def test_results_json_before_the_due_date_is_the_same_for_a_wrong_and_a_right_3f_field(tmp_path):
    right, wrong = _grade(tmp_path, "right", RIGHT), _grade(tmp_path, "wrong", WRONG)
    scored = {r.id: r.score for r in right.checks}, {r.id: r.score for r in wrong.checks}
    assert scored[0]["3f"] == 12 and scored[1]["3f"] == 11
    right_doc, wrong_doc = to_results_json(right), to_results_json(wrong)
    now_right, now_wrong = seen_before_the_due_date(right_doc), seen_before_the_due_date(wrong_doc)
    # What was read is shown (the student's own arc), so the views differ by that arc and nothing else.
    assert WRONG_ARC in now_wrong and RIGHT_ARC in now_right
    assert now_wrong.replace(WRONG_ARC, RIGHT_ARC) == now_right
    assert "score" not in json.loads(now_right)                 # Gradescope hides the total until then
    reading = next(t for t in json.loads(now_wrong)["tests"] if t["extra_data"].get("reading_of") == "8.5")
    assert "Read from answers.md" in reading["output"] and "read whole" in reading["output"]
    assert "Files read: answers.md." in reading["output"]
    # After the due date the scored entries appear, with the verdict and what is wrong.
    after = [{t["number"]: t for t in doc["tests"]}["8.5"] for doc in (right_doc, wrong_doc)]
    assert [t["visibility"] for t in after] == ["after_due_date"] * 2
    assert (after[0]["score"], after[1]["score"]) == (12, 11)
    assert "✗" in after[1]["output"] and "✗" not in after[0]["output"]


def test_grader_check_before_the_due_date_is_the_same_for_a_wrong_and_a_right_3f_field(tmp_path):
    """The student's own `grader check` shows what was read, never the score, a ✓/✗, a 'fix' hint or
    an exit status that depends on the verdict; its --json likewise."""
    rubric = load_rubric()
    seen = []
    for name, text in (("right", RIGHT), ("wrong", WRONG)):
        report = _grade(tmp_path, name, text)
        console = Console(record=True, width=200)
        hook = student.progress_hook(console)
        for c in report.checks:
            hook(rubric.check(c.id), c)
        student.render_check(report, rubric, console)
        seen.append((console.export_text(), _status(report),
                     json.dumps(jsonout.to_json(report, now=True), sort_keys=True, ensure_ascii=False)))
    (right_text, right_exit, right_json), (wrong_text, wrong_exit, wrong_json) = seen
    assert right_text != "" and WRONG_ARC in wrong_text and "scored after the due date" in wrong_text
    assert wrong_text.replace(WRONG_ARC, RIGHT_ARC) == right_text
    assert wrong_exit == right_exit
    assert wrong_json.replace(WRONG_ARC, RIGHT_ARC).replace('"wrong"', '"right"') == right_json


def test_an_instructor_may_show_one_items_verdict_at_once(tmp_path):
    """rubric.yaml's ``explanation: visible`` on 3(f): its scored entry, with what is wrong, is
    visible at once (so the two views differ by its score); the other items keep theirs back."""
    parts = [replace(p, explanation="visible") if p.id == "3f" else p for p in PARTS]
    right, wrong = _grade(tmp_path, "right", RIGHT, parts), _grade(tmp_path, "wrong", WRONG, parts)
    docs = [{t["number"]: t for t in to_results_json(r)["tests"]} for r in (right, wrong)]
    assert [d["8.5"]["visibility"] for d in docs] == ["visible"] * 2 and "8.5.0" not in docs[0]
    assert (docs[0]["8.5"]["score"], docs[1]["8.5"]["score"]) == (12, 11)
    assert "What is wrong and the expected form" in docs[1]["8.5"]["output"]
    assert docs[0]["8.2"]["visibility"] == "after_due_date" and docs[0]["8.2.0"]["visibility"] == "visible"


# Every shape of reading, right and wrong answer alike: what a student sees before the due date
# differs by what they wrote (and how it was read) and by nothing else. A reading that depends on
# the verdict (an answer elsewhere taken only when right, a formula shown in other names only when
# right, "no answer found" only when wrong) would tell a right answer from a wrong one.
_1D = "### 1(d)\n\n$$\\frac{\\partial J}{\\partial u_w} = (\\hat{y}_w - y_w) v_c$$\n\n"
PAIRS = {   # shape -> (text with {a}, question, right answer, wrong answer)
    "1(e) under its own heading": ("### 1(e)\n\n$$\\frac{{\\partial J}}{{\\partial U}} = {a}$$\n", "1e",
                                   "v_c(\\hat{y} - y)^\\top", "(\\hat{y} - y)v_c^\\top"),
    "1(e) under the neighbour's Final Answer": (
        _1D.replace("{", "{{").replace("}", "}}") + "#### Final Answer\n\n$$\\frac{{\\partial J}}{{\\partial U}} = {a}$$\n\n"
        "### 1(e)\n\nThe result is written at the end of the previous answer.\n", "1e",
        "v_c(\\hat{y} - y)^\\top", "(\\hat{y} - y)v_c^\\top"),
    "1(e) with no section, named before the first": (
        "My notes. $$\\frac{{\\partial J}}{{\\partial U}} = {a}$$\n\n" + _1D.replace("{", "{{").replace("}", "}}"), "1e",
        "v_c(\\hat{y} - y)^\\top", "(\\hat{y} - y)v_c^\\top"),
    "γ in the writeup's own names": (
        "### 2(b)(i)\n\nLet $q = 1 - p_{{\\text{{drop}}}}$ be the probability that a unit is kept. "
        "Then $\\mathbb{{E}}[h_{{\\text{{drop}}}}] = \\gamma q\\, h$, so $\\gamma = {a}$.\n", "2b_i", "1/q", "q^{2}"),
    "3(b) said in a sentence": ("3(b) Each word is shifted once and attached once, so {a}\n", "3b", "2n", "3n"),
    "3(f) with a field the reader cannot place": (
        "### 3(f)\n\ni. VP attachment error: acquisition -> citing is incorrect; its head should be the verb.\n\n"
        "ii. Modifier attachment error. elements -> most is incorrect; crucial -> most is correct.\n\n"
        "iii. PP attachment error. declined -> decision is incorrect; reasons -> decision is correct.\n\n"
        "iv. {a}. affects -> one is incorrect; plants -> one is correct.\n", "3f",
        "Coordination attachment error", "Modifier attachment error"),
}

AS_WRITTEN = {"γ in the writeup's own names"}
DOUBTED = {"1(e) under the neighbour's Final Answer", "1(e) with no section, named before the first",
           "3(f) with a field the reader cannot place"}
"""Shapes read with a doubt about their place or form: said at once, to right and wrong alike."""


def _views(tmp_path, name: str, text: str) -> tuple[str, str, GradeReport]:
    report = _grade(tmp_path, name, text)
    rubric = load_rubric()
    console = Console(record=True, width=400)
    hook = student.progress_hook(console)
    for c in report.checks:
        hook(rubric.check(c.id), c)
    student.render_check(report, rubric, console)
    checked = console.export_text() + json.dumps(jsonout.to_json(report, now=True), sort_keys=True, ensure_ascii=False)
    checked = re.sub(r"\(\d+\.\d s\)|\d+\.\d s;|\"seconds\": [0-9.e-]+", "", checked)       # times differ run to run
    return seen_before_the_due_date(to_results_json(report)), checked, report


@pytest.mark.parametrize("shape", PAIRS)
def test_what_is_seen_before_the_due_date_depends_on_what_was_written_not_on_the_verdict(tmp_path, shape):
    template, question, right, wrong = PAIRS[shape]
    right_views = _views(tmp_path, "right", template.format(a=right))
    wrong_views = _views(tmp_path, "wrong", template.format(a=wrong))
    item = [{c.id: c for c in views[2].checks}[question] for views in (right_views, wrong_views)]
    assert item[0].score > item[1].score, (item[0].outcome.feedback, item[1].outcome.feedback)
    assert item[0].held_back and item[1].held_back
    reads = (item[0].written.read, item[1].written.read)
    assert all(reads), reads                     # both were read, and what was read is shown
    for seen_right, seen_wrong in zip(right_views[:2], wrong_views[:2], strict=True):
        same = seen_wrong.replace('"wrong"', '"right"')
        for was, now in ((reads[1], reads[0]), (wrong, right)):
            for as_written in (lambda t: t, lambda t: json.dumps(t, ensure_ascii=False)[1:-1]):   # as JSON writes it
                same = same.replace(as_written(was), as_written(now))
        assert reads[0] in seen_right or json.dumps(reads[0], ensure_ascii=False)[1:-1] in seen_right
        assert same == seen_right
        assert same == seen_right
    doubted = [any(line.startswith(READ_UNSURE) for line in c.written.reading) for c in item]
    assert doubted == [shape in DOUBTED] * 2, [c.written.reading for c in item]
    if shape in AS_WRITTEN:   # what was read is the student's own writing, not a form reached only when right
        assert right in reads[0] and wrong in reads[1], reads


def _reading_of(result) -> list[str]:
    """What a student sees at once of one item, with what was read (and the student's text quoted
    in it) masked: the rest must not depend on the verdict."""
    w = result.written
    masks = [m for m in (w.read, w.read.split(" = ", 1)[-1], w.raw) if len(m) > 2]
    out = []
    for line in w.reading:
        line = re.sub(r"^(Read from [^:]*): .*$", r"\1: <READ>", line)
        for m in sorted(masks, key=len, reverse=True):
            line = line.replace(m, "<READ>")
        out.append(re.sub(r"'[^']*<READ>[^']*'", "'<READ>'", line))
    return out


def test_a_right_and_a_wrong_answer_in_each_place_of_the_corpus_are_read_alike(tmp_path):
    """Each formula item of each generated writeup (tests/written_corpus.py: every format, heading
    style and place of the final answer, a neighbour's "Final Answer" among them), answered right
    and then wrong in the same spelling and place: the reading shown before the due date is the same."""
    differ, pairs = [], 0
    for seed in range(12):
        base = wc.draw(seed)
        for item in [*(i for i in wc.ITEMS if i != "1d" and base.truth[i] != wc.ABSENT), *wc.TABLE_ITEMS]:
            wrong = {"3a": dep.TABLE_WRONG[seed % 3], "3f": dep.ERRORS_WRONG[seed % 3]}.get(item) or \
                next(k for k in wc.KEYS[item] if k != wc.RIGHT)
            got = []
            for truth in (wc.RIGHT, wrong):
                folder = tmp_path / f"{seed}-{item}-{truth}"
                folder.mkdir()
                for name, text in wc.variant(seed, item, truth).files:
                    (folder / name).write_text(text, encoding="utf-8")
                results, _, _ = grade_written(sorted(folder.iterdir()), PARTS, 7, runner=RUNNER)
                got.append(next(r for r in results if r.id == item))
            if got[0].score <= got[1].score:
                continue
            pairs += 1
            if _reading_of(got[0]) != _reading_of(got[1]):
                differ.append((seed, item, base.place.get(item), got[0].written.reading, got[1].written.reading))
    print(f"{pairs} pairs of a right and a wrong answer")
    assert pairs > 60
    assert differ == []
