"""grader/reading/prediction.py: ANTLR's cached SLL prediction, with atom_expr's one decision read
from the tokens, gives latex2sympy's default (full LL) tree on every formula it parses.

The formulas are every text the written reader handed the converter while grading the generated
corpus (300 writeups), the wild and blind writeups, the real 2024 ones and the plain-text ones
(tests/prediction_formulas.json), and mutations of them that stack scripts, brackets and products
(seeded). A formula the fast prediction cannot parse is parsed again with the default, so only
the trees it does build are compared; a planted wrong decision shows the comparison can fail.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
import sympy
from antlr4 import CommonTokenStream, InputStream
from latex2sympy2_extended.antlr_parser import PSLexer

from grader.reading import mathparse, prediction
from grader.reading.mathparse import FormulaError

FORMULAS = json.loads((Path(__file__).parent / "prediction_formulas.json").read_text(encoding="utf-8"))
SCRIPTS = ["_w", "_{ij}", "^2", "_w^2", "^{T}", "^2_w", "_{w}^{T}", "^{-1}", "_1", "_\\alpha", "'",
           "_{o}^{2}", "^{(k)}", "_{i}^{j}"]
LETTER = re.compile(r"(?<![\\A-Za-z])[A-Za-z](?![A-Za-z{])")


def structure(tree):
    """A tree as nested (type, args) in stored order (srepr sorts an Add's terms; this does not)."""
    if isinstance(tree, sympy.Basic) and tree.args:
        return type(tree).__name__, tuple(structure(a) for a in tree.args)
    return type(tree).__name__, sympy.srepr(tree) if isinstance(tree, sympy.Basic) else repr(tree)


def parsed(converter, text: str):
    try:
        with sympy.evaluate(False):
            return structure(converter(config=mathparse._CONFIG).parse(text))
    except RecursionError:
        return None
    except Exception:          # the grammar reports a syntax error as Exception
        return None


def mutants(count: int, seed: int) -> list[str]:
    """Readable formulas with scripts stacked on letters, brackets around spans, products inserted."""
    rng = random.Random(seed)
    base = [f for f in FORMULAS if parsed(mathparse._OrderedConverter, f) is not None]
    out = []
    for _ in range(count):
        text = rng.choice(base)
        for _ in range(rng.randint(1, 3)):
            letters = [m.start() for m in LETTER.finditer(text)]
            r = rng.random()
            if r < .5 and letters:
                i = rng.choice(letters)
                text = text[:i + 1] + rng.choice(SCRIPTS) + text[i + 1:]
            elif r < .65:
                a, b = sorted(rng.sample(range(len(text) + 1), 2))
                text = text[:a] + "(" + text[a:b] + ")" + text[b:]
            elif r < .8 and letters:
                i = rng.choice(letters)
                text = text[:i + 1] + rng.choice([" \\cdot ", " ", "-", "+", "/"]) + rng.choice("xyzUW") + text[i + 1:]
            else:
                text = rng.choice(["-", "2", "\\frac{1}{2}", "x_{i}^{2}"]) + text
        out.append(text)
    return out


def disagreements(texts: list[str]) -> list[str]:
    """Texts the fast prediction parses into another tree than the default."""
    out = []
    for text in texts:
        fast = parsed(mathparse._FastConverter, text)
        if fast is not None and fast != parsed(mathparse._OrderedConverter, text):
            out.append(text)
    return out


def test_every_corpus_formula_gets_the_default_tree():
    fast_read = [t for t in FORMULAS if parsed(mathparse._FastConverter, t) is not None]
    assert len(fast_read) >= 180, "the fast prediction should read most of the corpus itself"
    assert disagreements(FORMULAS) == []


def test_stacked_scripts_and_brackets_get_the_default_tree():
    assert disagreements(mutants(200, seed=7)) == []


def _ignoring_what_follows(tokens):
    """A planted wrong rule: a one-token script decided without looking past it."""
    first = tokens.LA(1)
    if first not in (prediction.UNDERSCORE, prediction.CARET):
        return None
    after = prediction._after_script(tokens, 1)
    if after is None:
        return None
    follows_sup = tokens.LA(after) == prediction.CARET
    return (prediction.SUB_SUP if follows_sup else prediction.SUB) if first == prediction.UNDERSCORE else prediction.SUP


def test_a_wrong_script_decision_is_caught(monkeypatch):
    """Planted control: the rule without its "another script follows: ask LL" guard builds other
    trees where a one-token script is followed by a braced one (the inner atom takes it)."""
    planted = [r"z_i_{i}^{j} > 0", r"-u_o_{o}^{2}", r"v_c_{i}^{j} \cdot W"]
    assert disagreements(planted) == []
    monkeypatch.setattr(prediction, "scripts_alternative", _ignoring_what_follows)
    assert disagreements(planted) == planted


def tokens(text: str):
    stream = CommonTokenStream(PSLexer(InputStream(text)))
    stream.fill()
    stream.seek(1)                         # just after the atom, as atom_expr's decision sees it
    return stream


@pytest.mark.parametrize(("text", "alt"), [
    (r"u_{w}^{2}", prediction.SUB_SUP),      # braced sub, then its sup
    (r"u^{2}_{w}", prediction.SUP_SUB),
    (r"y_w v_c", prediction.SUB),
    (r"y^{2} v", prediction.SUP),
    (r"y^{T} v", None),                      # ^{T} is a transpose token, not a script: SLL decides
    (r"v_c_{i}", None),                      # a script after a one-token script: left to LL
    (r"y_w^2", None),
    (r"x^{a}^{b}", None),
    (r"x_{a}^{b}_{c}", None),
    (r"x_{a", None),                          # unclosed
    (r"x y", None),                           # no script: SLL decides
])
def test_the_script_decision_from_tokens(text, alt):
    assert prediction.scripts_alternative(tokens(text)) == alt


def test_a_formula_the_fast_prediction_cannot_read_gets_the_default_message():
    text = r"\frac{\partial J}{\partial v_c} = U^T(\hat y - y)"      # the default rejects it too
    with pytest.raises(FormulaError) as fast:
        mathparse._convert(text, mathparse._Placeholders())
    with pytest.raises(Exception) as default:   # the grammar raises Exception
        with sympy.evaluate(False):
            mathparse._OrderedConverter(config=mathparse._CONFIG).parse(text)
    assert str(default.value).splitlines()[0] in str(fast.value)


def test_the_installed_grammar_has_the_decision():
    assert prediction.SCRIPTS_DECISION is not None
