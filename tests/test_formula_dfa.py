"""A stored DFA for latex2sympy's parser and lexer (grader/reading/prediction.py: save, load;
grader/reading/prediction_build.py: build).

A new process predicts from an empty DFA and pays a full ATN closure for every new decision path
(a fresh process read a writeup in about 0.5 s, against 0.1 s with the DFA of the assignment's
formulas: bench/written_reader.py --fresh). The DFA built from a2/written/formula_shapes.json is
stored and loaded; these tests check that the loaded DFA is the one used and gives latex2sympy's
default tree on every corpus formula and on mutations of them, that a planted wrong prediction in
the stored DFA is caught, and that a file for another grammar or a foreign pickle is never used.
The lexer's DFA (30-60 ms of a new process's writeup) is stored with it and checked the same way.
"""

from __future__ import annotations

import json
import pickle
import sys
from pathlib import Path

import pytest

from grader.package import scripts as package_scripts
from grader.reading import prediction, prediction_build

TESTS = Path(__file__).parent
sys.path.insert(0, str(TESTS))
from test_prediction import FORMULAS, disagreements, mutants, parsed  # noqa: E402

from grader.reading import mathparse  # noqa: E402

SHAPES = Path(__file__).parent.parent / "a2" / "written" / "formula_shapes.json"


@pytest.fixture
def fresh(monkeypatch):
    """An empty DFA before the test and after it (as a new process has)."""
    prediction.reset()
    yield
    prediction.reset()


@pytest.fixture(scope="module")
def stored(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("dfa") / "formula_dfa.pickle"
    prediction.reset()
    note = prediction_build.build(json.loads(SHAPES.read_text(encoding="utf-8")), path)
    assert "DFA states stored" in note
    prediction.reset()
    return path


def _states() -> int:
    return prediction.states("parser") + prediction.states("lexer")


def test_the_shapes_are_formulas_the_reader_parses():
    shapes = json.loads(SHAPES.read_text(encoding="utf-8"))
    assert isinstance(shapes, list) and len(shapes) >= 100 and all(isinstance(s, str) for s in shapes)


def test_a_stored_dfa_is_loaded_once_and_used(stored, fresh):
    note = prediction.load(stored)
    assert note.startswith("loaded ") and prediction.states("parser") > 300 and prediction.states("lexer") > 50
    assert prediction.load(stored) == note                  # once per process
    before = _states()
    disagreements(FORMULAS[:20])
    assert _states() >= before                              # it is the DFA the parser extends


@pytest.fixture(scope="module")
def expected() -> dict[str, object]:
    """latex2sympy's default trees, from a DFA of its own making (the DFA is shared by both
    predictions: comparing the two after a load would compare the stored DFA with itself)."""
    prediction.reset()
    trees = {f: parsed(mathparse._OrderedConverter, f) for f in FORMULAS + mutants(150, seed=11)}
    prediction.reset()
    return trees


def _not_as_expected(expected: dict[str, object]) -> list[str]:
    return [f for f, tree in expected.items() if parsed(mathparse._FastConverter, f) not in (None, tree)
            or (tree is not None and parsed(mathparse._FastConverter, f) is None
                and parsed(mathparse._OrderedConverter, f) != tree)]


def test_a_loaded_dfa_gives_the_default_tree(stored, expected, fresh):
    assert prediction.load(stored).startswith("loaded ")
    assert _not_as_expected(expected) == []


def _planted(stored: Path, tmp_path: Path, recognizer: str, chosen) -> Path:
    """A copy of the stored DFA file where every state of ``recognizer``'s DFA that ``chosen`` picks
    predicts its alternative (or token type) plus one."""
    with stored.open("rb") as file:
        data = prediction._Unpickler(file).load()
    for _, states, _ in data[recognizer]:
        for state in states:
            if chosen(state):
                state.prediction += 1
    planted = tmp_path / f"planted_{recognizer}.pickle"
    with planted.open("wb") as out:
        prediction._Pickler(out, protocol=5).dump(data)
    return planted


def test_a_wrong_prediction_in_a_stored_dfa_is_caught(stored, expected, fresh, tmp_path):
    """Planted control: every accept state of the stored DFA predicts its alternative plus one;
    the formulas then get other trees, or none."""
    planted = _planted(stored, tmp_path, "parser",
                       lambda state: state.isAcceptState and state.prediction and not state.requiresFullContext)
    assert prediction.load(planted).startswith("loaded ")
    assert len(_not_as_expected(expected)) >= 10


def test_a_wrong_token_in_a_stored_lexer_dfa_is_caught(stored, expected, fresh, tmp_path):
    """Planted control for the lexer's half: every accept state of the stored lexer DFA gives the
    next token type; the formulas then get other trees, or none."""
    planted = _planted(stored, tmp_path, "lexer", lambda state: state.isAcceptState and state.prediction > 0)
    assert prediction.load(planted).startswith("loaded ")
    assert len(_not_as_expected(expected)) >= 10


def test_a_dfa_for_another_grammar_is_not_used(stored, fresh, tmp_path):
    with stored.open("rb") as file:
        data = prediction._Unpickler(file).load()
    data["key"] = "latex2sympy2_extended=0.0;antlr4-python3-runtime=0.0"
    other = tmp_path / "other.pickle"
    with other.open("wb") as out:
        prediction._Pickler(out, protocol=5).dump(data)
    assert "another grammar" in prediction.load(other)
    assert _states() == 0


class _Planted:
    def __reduce__(self):
        return (Path.touch, (Path(__file__).parent / "never_made.txt",))


def test_a_foreign_pickle_is_refused_without_running_it(fresh, tmp_path):
    foreign = tmp_path / "foreign.pickle"
    foreign.write_bytes(pickle.dumps({"key": prediction.grammar_key(), "parser": _Planted()}))
    assert "could not be read (UnpicklingError)" in prediction.load(foreign)
    assert not (Path(__file__).parent / "never_made.txt").exists() and _states() == 0


def test_no_file_leaves_the_dfa_empty(fresh, tmp_path):
    assert prediction.load(tmp_path / "missing.pickle") == "no stored DFA" and _states() == 0


def test_setup_sh_builds_the_image_s_dfa():
    setup = package_scripts.setup_sh(package_scripts.pinned_requirements(TESTS.parent)[0])
    assert "-m grader.reading.prediction_build" in setup and "*/written/formula_shapes.json" in setup
