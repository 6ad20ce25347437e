"""The reader against a generated corpus: several hundred writeups from independent, seeded choices.

Each writeup (tests/written_corpus.py) says, for every formula item and for the 3(a) transition
table and the 3(f) dependency errors (tests/written_corpus_dep.py), whether its answer is right, a
catalogued wrong answer, or absent. For every item of every writeup: a right answer scores
full or is flagged for a TA (never below full in silence), a catalogued wrong answer never scores
full, an absent one scores 0; and the messages of absent answers fit the file (a .tex answer block is
told about \\answer{}, Markdown about "Answer:" lines). The reader is warm (one process), as in a
grading run.
"""

from __future__ import annotations

import collections

import pytest
import written_corpus as wc
import written_corpus_dep as dep

from a2.written.grade import grade_written
from a2.written.process import InProcess
from grader.run.rubric import load_rubric

SEEDS = range(300)
PARTS = load_rubric().written
MAX_FLAG_RATE = 0.05
"""Correct answers that may be flagged for review instead of scoring full."""


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    runner = InProcess()
    root = tmp_path_factory.mktemp("corpus")
    out = []
    for seed in SEEDS:
        w = wc.make(seed)
        folder = root / str(seed)
        folder.mkdir()
        paths = []
        for name, text in w.files:
            (folder / name).write_text(text, encoding="utf-8")
            paths.append(folder / name)
        results, _, _ = grade_written(paths, PARTS, seed, runner=runner)
        out.append((w, {r.id: r for r in results}))
    return out


def outcomes(corpus_items):
    for w, results in corpus_items:
        for item in wc.ALL_ITEMS:
            yield w, item, w.truth[item], results[item]


def test_no_silent_false_fail_and_no_false_pass(corpus):
    silent, false_pass, absent_credit = [], [], []
    for w, item, truth, r in outcomes(corpus):
        full = r.score >= r.max_score - 1e-9
        where = (w.seed, item, w.choices.fmt, w.choices.notation, w.choices.place.get(item), r.outcome.feedback[:2])
        if truth == wc.RIGHT and not full and not r.needs_review:
            silent.append(where)
        elif truth == wc.ABSENT and r.score > 0:
            absent_credit.append(where)
        elif truth not in (wc.RIGHT, wc.ABSENT) and full:
            false_pass.append(where)
    assert not silent, f"right answers below full without a review flag: {silent[:5]}"
    assert not false_pass, f"wrong answers at full marks: {false_pass[:5]}"
    assert not absent_credit, f"absent answers given points: {absent_credit[:5]}"


def test_few_right_answers_are_left_to_a_ta(corpus):
    right = [r for _, _, truth, r in outcomes(corpus) if truth == wc.RIGHT]
    flagged = [r for r in right if r.score < r.max_score - 1e-9]
    assert len(right) > 1000
    assert len(flagged) / len(right) <= MAX_FLAG_RATE, f"{len(flagged)} of {len(right)} right answers flagged"


def test_messages_fit_the_file(corpus):
    told = collections.Counter()
    for w, item, truth, r in outcomes(corpus):
        if truth != wc.ABSENT or item in ("1d",):
            continue
        text = "\n".join(r.outcome.feedback)
        if w.choices.fmt.startswith("exam") or w.choices.fmt == "article":
            assert "'Answer:'" not in text, (w.seed, item, text)
            told["tex"] += "\\answer{" in text
        else:
            assert "\\answer{" not in text, (w.seed, item, text)
            told["md"] += "Answer:" in text
    assert told["tex"] >= 5 and told["md"] >= 5, told


def test_the_corpus_covers_every_choice_and_class_of_failure(corpus):
    seen: dict[str, set] = collections.defaultdict(set)
    for w, _ in corpus:
        c = w.choices
        seen["format"].add(c.fmt)
        seen["notation"].add(c.notation)
        seen["heading"].add(c.heading)
        seen["delimiters"].add(c.delim)
        seen["layout"].add(c.layout if c.fmt.startswith("exam") else "-")
        seen["block"].add(c.block if c.fmt.startswith("exam") else "-")
        for sub in c.truth:
            seen[f"truth {sub}"].add(c.truth[sub])
        d = w.dep
        seen["3a table"].add(d.table)
        seen["3a spelling"].add((d.transitions, d.arrow % 3, d.initial_row, d.bracketed))
        seen["3a truth"].add(d.truth_3a)
        seen["3f layout"].add((d.errors, d.type_spelling, d.marks_first))
        seen["3f truth"].add(d.truth_3f)
        for item in wc.ITEMS:
            seen["place"].add(c.place[item])
            seen["remark"].add(c.remark[item])
            seen["steps"].add(c.steps[item])
    assert seen["format"] == set(wc.FORMATS) and seen["notation"] == set(wc.NOTATIONS)
    assert {"answer", "boxed", "last", "chain", "final_heading", "neighbour"} <= seen["place"]
    assert {"blocks", "one_block", "items"} <= seen["layout"] and {"answer", "env", "ifans"} <= seen["block"]
    assert seen["remark"] == {-1, 0, 1, 2, 3} and seen["steps"] == {0, 1, 2}
    for sub, keys in wc.KEYS.items():      # every equivalent spelling's item and every catalogued wrong answer
        assert set(keys) <= seen[f"truth {sub}"], sub
    # 3(a) and 3(f): every table format, spelling and catalogued wrong version.
    assert seen["3a table"] == set(dep.TABLE_FORMATS) and seen["3a truth"] == {dep.RIGHT, *dep.TABLE_WRONG}
    assert len(seen["3a spelling"]) >= 40 and len(seen["3f layout"]) == 12
    assert seen["3f truth"] == {dep.RIGHT, *dep.ERRORS_WRONG}
    # The six classes of failure of issue 21, each drawn many times.
    texts = [text for w, _ in corpus for _, text in w.files]
    classes = {
        "plain-text math": sum("y_hat" in t or "ŷ" in t for t in texts),
        "indicator and conditions in words": sum(", else 0" in t or "𝟙[" in t or "1{(" in t for t in texts),
        "operator before bold, nested braces, boxed lhs": sum("\\cdot \\mathbf" in t or "\\boxed{\\frac" in t for t in texts),
        "remark after the answer": sum("i.e. the gradient" in t or "\\quad z =" in t or "(so " in t for t in texts),
        "labels and case prefixes": sum(" i)" in t or "w = o:" in t or "\ni.e." in t for t in texts),
        "template variations": sum("label=\\roman*" in t or "\\begin{aligned}" in t for t in texts),
    }
    assert all(n >= 20 for n in classes.values()), classes

