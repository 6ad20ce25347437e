"""The formula normaliser read from pylatexenc's nodes and declared tables
(:mod:`grader.reading.latex_normal`, :mod:`grader.reading.latex_tokens`) against what the regular-
expression normaliser before it answered for every formula the reader met while grading our corpora
(tests/normalise_cases.json, built by tests/normalise_cases_build.py): the same text, or the same
parse (tree and placeholders); a formula whose braces do not pair up is now refused by the
normaliser itself (before, by the parser). Then the same formulas with spacing, sizing, display
style and extra braces added: the same parse as without them. A normaliser missing one row of a
table is caught."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from normalise_signature import signature

from grader.reading import latex_normal, latex_tables
from grader.reading.latex_normal import FormulaError, normalise
from grader.reading.notation import to_latex

CASES = json.loads((Path(__file__).parent / "normalise_cases.json").read_text())


def _disagreements() -> list[str]:
    """Recorded formulas the normaliser of today reads differently (empty when all agree)."""
    latex_normal.clear_cache()
    found = []
    for case in CASES:
        try:
            out = normalise(case["in"])
        except FormulaError as exc:
            if case["parse"].startswith("error:"):
                continue        # unreadable before and now
            found.append(f"{case['in']!r}: refused ({exc}), was {case['out']!r}")
            continue
        if out != case["out"] and signature(out) != case["parse"]:
            found.append(f"{case['in']!r}: {out!r}, was {case['out']!r}")
    return found


def test_recorded_formulas_read_as_before() -> None:
    assert len(CASES) > 800
    assert _disagreements() == []


def test_unpaired_braces_are_refused_by_the_normaliser() -> None:
    for text in ("{ 0", "a}b", "\\frac{a", "\\mathbf{W"):
        with pytest.raises(FormulaError, match="braces"):
            normalise(text)
    assert normalise("\\{x\\} + {y}") == "\\{x\\} + y"
    assert normalise("\\binom{n}{k}") == "\\binom{n}{k}"     # an unknown command's arguments keep their braces


def test_an_unclosed_environment_is_refused_by_the_normaliser() -> None:
    """pylatexenc closes it at the formula's end; the student did not (before, the parser refused it)."""
    for text, name in (("\\begin{cases} a & x > 0 \\\\ 0 & \\text{otherwise}", "cases"),
                       ("\\left\\{ \\begin{matrix} a & x > 0", "matrix")):
        with pytest.raises(FormulaError, match=f"without its \\\\end{{{name}}}"):
            normalise(text)
    assert normalise("\\begin{cases} a & x > 0 \\end {cases}") == "\\begin{cases} a & x > 0 \\end{cases}"


def test_plain_formulas_read_without_pylatexenc_give_its_nodes(monkeypatch: pytest.MonkeyPatch) -> None:
    """grader/reading/latex_fast.py against pylatexenc, on every recorded formula, its mutants and the
    tables' examples: the same normalised text."""
    rng = random.Random(7)
    texts = [case["in"] for case in CASES] + [text for _, _, text, _ in ROW_EXAMPLES]
    texts += [_mutant(to_latex(text), rng) for text in texts if "\\" in to_latex(text)]

    def read_all() -> list[str]:
        latex_normal.clear_cache()
        out = []
        for text in texts:
            try:
                out.append(normalise(text))
            except FormulaError as exc:
                out.append(f"refused: {exc}")
        return out
    fast = read_all()
    monkeypatch.setattr(latex_normal, "plain_nodes", lambda text, db: None)
    assert read_all() == fast
    latex_normal.clear_cache()


def test_the_fast_reader_check_catches_a_planted_difference(monkeypatch: pytest.MonkeyPatch) -> None:
    """Planted control: a fast reader that reads a braced argument as its bare characters."""
    from pylatexenc.latexwalker import LatexCharsNode

    from grader.reading import latex_fast
    read = latex_fast._Reader.read_argument

    def planted(self: latex_fast._Reader) -> object:
        node = read(self)
        if getattr(node, "delimiters", None) == ("{", "}") and all(isinstance(n, LatexCharsNode) for n in node.nodelist):
            return latex_fast._node(LatexCharsNode, chars="".join(n.chars for n in node.nodelist))
        return node
    monkeypatch.setattr(latex_fast._Reader, "read_argument", planted)
    with pytest.raises(AssertionError):
        test_plain_formulas_read_without_pylatexenc_give_its_nodes(monkeypatch)
    latex_normal.clear_cache()


def _gaps(text: str) -> list[int]:
    """Places where TeX reads a spacing macro as space: before a binary operator, not right after a
    macro's name or a ``_``/``^`` (which would take it as their argument)."""
    places = []
    for i, ch in enumerate(text):
        if ch in "+-=<>" and i > 0 and text[i - 1] != "\\":
            before = text[:i].rstrip()
            if before and before[-1] not in "_^\\" and not (before[-1].isalpha() and "\\" in before.split()[-1]):
                places.append(i)
    return places


def _mutant(text: str, rng: random.Random) -> str:
    """``text`` with spacing macros, ``\\left``/``\\right``, ``\\displaystyle`` and braces added."""
    places = _gaps(text)
    for i in sorted(rng.sample(places, min(2, len(places))), reverse=True):
        text = text[:i] + rng.choice(["\\,", "\\;", "\\quad ", "\\!", "\\ ", "\\mkern-2mu "]) + text[i:]
    out = []
    for i, ch in enumerate(text):
        prev = text[i - 1] if i else ""
        if ch in "()" and prev not in "\\" and rng.random() < 0.5:
            out.append(("\\left" if ch == "(" else "\\right") + ch)
        elif (ch.isalpha() and ch.isascii() and prev in (" ", "+", "-", "=", "(") and not text[i + 1:i + 2].isalpha()
              and not text[:i].rstrip().endswith(("}", "^T", "^\\top", "^\\intercal"))   # {v} after a group (^T is
              # ^{T}) is kept: it may be an argument
              and text[i + 1:i + 2] not in ("'", "(") and rng.random() < 0.5):
            out.append("{" + ch + "}")
        else:
            out.append(ch)
    return "\\displaystyle " + "".join(out)


def _pairs_of_parentheses(text: str) -> bool:
    level = 0
    for ch in text:
        level += (ch == "(") - (ch == ")")
        if level < 0:
            return False
    return level == 0


def test_spacing_sizing_and_braces_do_not_change_a_parse() -> None:
    rng = random.Random(33)
    checked, differ = 0, []
    for case in CASES:
        text = to_latex(case["in"])     # a backslash makes a Unicode or ASCII formula LaTeX: mutate its LaTeX
        if (case["parse"].startswith("error:") or not _pairs_of_parentheses(text) or "\\begin" in text
                or "\\" not in text):
            continue
        mutant = _mutant(text, rng)
        try:
            got = signature(normalise(mutant))
        except FormulaError as exc:
            got = f"refused: {exc}"
        checked += 1
        # against today's parse of the formula itself: the parser may have learnt since the recording
        # (a braced group is no one-element set), the mutation must still change nothing
        if got != signature(normalise(case["in"])):
            differ.append(f"{mutant!r} -> {got[:80]}")
    assert checked > 500
    assert differ == []


_ARGUMENT = {"hspace": "{2pt}", "label": "{eq:loss}", "tag": "{3}"}
_SPECIAL = {
    ("SYNONYMS", "widehat"): ("\\widehat{\\mathbf{y}}_o", "\\hat{y}_o"),
    ("WRAPPERS", "colorbox"): ("\\colorbox{yellow}{a + b}", "{a + b}"),
    ("SIZING", "right"): ("\\left\\{ a \\right.", "\\{ a"),
}


def _row_examples() -> list[tuple[str, str, str, str]]:
    """(table, row, formula, what it normalises to) for every row of the declared tables."""
    t = latex_tables
    rows = [("DROPPED", n, f"a \\{n}{_ARGUMENT.get(n, '')} + b", "a + b") for n in t.DROPPED]
    rows += [("LENGTH_DROPPED", n, f"a \\{n}-1.5mu + b", "a + b") for n in t.LENGTH_DROPPED]
    rows += [("SIZING", n, f"\\{n}( a + b \\{n})", "( a + b )") for n in t.SIZING]
    rows += [("STYLES", n, f"\\{n}{{W}} + b", "W + b") for n in t.STYLES]
    rows += [("SYNONYMS", n, f"a \\{n} b", f"a {v} b") for n, v in t.SYNONYMS.items()]
    rows += [("WRAPPERS", n, f"\\{n}{{a + b}}", "{a + b}") for n in t.WRAPPERS]
    rows += [("SWITCHES", n, f"\\{n}{{red}} a + b", "a + b") for n in t.SWITCHES]
    rows += [("HATS", n, f"\\{n} y", "\\hat{y}") for n in t.HATS]
    rows += [("TRANSPOSE_MACROS", n, f"W^\\{n} x", "W^{T} x") for n in t.TRANSPOSE_MACROS]
    rows += [("CASES_ENVIRONMENTS", n, f"\\left\\{{ \\begin{{{n}}}{'{ll}' if n == 'array' else ''} a & x > 0 "
              f"\\\\ b & x \\le 0 \\end{{{n}}} \\right.", "\\begin{cases} a & x > 0 \\\\ b & x \\leq 0 \\end{cases}")
             for n in t.CASES_ENVIRONMENTS]
    rows += [("OPERATORS", n, f"a \\{n} {{W}}", "a W" if n in t.DROPPED else f"a \\{n} W") for n in t.OPERATORS]
    rows += [("STEP_FUNCTIONS", n, f"{n}(z)", "\\relustep (z)") for n in t.STEP_FUNCTIONS]
    rows += [("ASSIGNMENT_NOTATION", "dropout probability", f"1 - {p}", "1 - p")
             for p in ("p_{drop}", "p_\\text{dropout}", "p_d", "p_{\\rm drop}", "p_{\\mathrm{d}}")]
    rows += [("ASSIGNMENT_NOTATION", "index pair letters", w, "W_{ji} x") for w in ("W_ji x", "W_{j,i} x", "W_{j, i} x")]
    return [(table, row, *_SPECIAL.get((table, row), (text, out))) for table, row, text, out in rows]


ROW_EXAMPLES = _row_examples()     # taken from the full tables (a planted control then forgets a row)


def _row_failures() -> list[str]:
    latex_normal.clear_cache()
    found = []
    for table, row, text, expected in ROW_EXAMPLES:
        try:
            got = normalise(text)
        except FormulaError as exc:
            got = f"refused: {exc}"
        if got != expected:
            found.append(f"{table}[{row!r}]: {text!r} -> {got!r}, not {expected!r}")
    return found


def test_every_table_row_is_read() -> None:
    assert len(ROW_EXAMPLES) > 120
    assert _row_failures() == []


@pytest.mark.parametrize("table, row", [("DROPPED", ","), ("SYNONYMS", "dfrac"), ("SIZING", "bigl"),
                                        ("STYLES", "textrm"), ("OPERATORS", "cdot"), ("CASES_ENVIRONMENTS", "array")])
def test_a_missing_table_row_fails_its_example(monkeypatch: pytest.MonkeyPatch, table: str, row: str) -> None:
    """The planted control for the rows the recorded formulas do not catch (they are absent from the
    corpora, or the parser reads them as they are): each row's example catches it."""
    _forget(monkeypatch, table, row)
    try:
        assert any(f"{table}[{row!r}]" in failure for failure in _row_failures())
    finally:
        latex_normal.clear_cache()


def _forget(monkeypatch: pytest.MonkeyPatch, table: str, row: str) -> None:
    value = getattr(latex_tables, table)
    if isinstance(value, dict):
        smaller = {k: v for k, v in value.items() if k != row}
    else:
        smaller = frozenset(value - {row})
    monkeypatch.setattr(latex_tables, table, smaller)
    if table == "SYNONYMS":
        monkeypatch.setattr(latex_normal, "SYNONYMS", smaller)


@pytest.mark.parametrize("table, row", [
    ("SYNONYMS", "widehat"), ("DROPPED", "displaystyle"), ("LENGTH_DROPPED", "mkern"), ("SIZING", "left"),
    ("STYLES", "mathbf"), ("STYLES", "text"), ("WRAPPERS", "boxed"), ("TRANSPOSE_MACROS", "top"), ("HATS", "hat"),
])
def test_a_normaliser_missing_a_table_row_is_caught(monkeypatch: pytest.MonkeyPatch, table: str, row: str) -> None:
    """The planted control: the recorded formulas catch each of these rows missing."""
    _forget(monkeypatch, table, row)
    try:
        assert _disagreements() != []
    finally:
        latex_normal.clear_cache()
