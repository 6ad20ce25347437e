"""student_template/ is generated from reference/ and every stub raises NotImplementedError."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from conftest import REFERENCE, TEMPLATE, run_script

from grader.package.template import MarkerError, build_template, check_template, strip_markdown, strip_python


def test_committed_template_matches_generator():
    problems = check_template()
    assert problems == [], ("student_template/ drifted from reference/; run "
                            "`python -m grader.package.template` and commit:\n" + "\n".join(problems))


def test_generator_detects_drift(tmp_path):
    build_template(REFERENCE, tmp_path / "t")
    (tmp_path / "t" / "sgd.py").write_text("# edited\n")
    (tmp_path / "t" / "extra.py").write_text("")
    from grader.package.template import diff_trees
    fresh = tmp_path / "fresh"
    build_template(REFERENCE, fresh)
    assert diff_trees(fresh, tmp_path / "t") == ["differs: sgd.py", "extra: extra.py"]


def test_strip_python_replaces_block_at_its_indentation():
    src = ("class A:\n    def f(self, x):\n        y = 1\n        ### BEGIN SOLUTION\n"
           "        y = x * 2\n        ### END SOLUTION\n        return y\n")
    out, stubs = strip_python(src, "m.py")
    assert "x * 2" not in out
    assert '        raise NotImplementedError("m.py: A.f is not implemented yet")\n' in out
    assert [s.function for s in stubs] == ["A.f"]
    namespace = {}
    exec(compile(out, "m.py", "exec"), namespace)
    with pytest.raises(NotImplementedError):
        namespace["A"]().f(3)


@pytest.mark.parametrize("src, message", [
    ("def f():\n    ### BEGIN SOLUTION\n    pass\n", "m.py:2: '### BEGIN SOLUTION' is never closed"),
    ("def f():\n    ### END SOLUTION\n", "m.py:2: '### END SOLUTION' without a matching"),
    ("### BEGIN SOLUTION\nx = 1\n### END SOLUTION\n", "m.py:1: solution block outside any function"),
    ("def f():\n    ### BEGIN SOLUTION\n    ### BEGIN SOLUTION\n", "m.py:3: nested"),
])
def test_strip_python_rejects_bad_markers(src, message):
    with pytest.raises(MarkerError, match=message.replace("(", r"\(")):
        strip_python(src, "m.py")


def test_strip_markdown_leaves_heading_and_empty_slot():
    src = "### 2(b)(i) (2 points)\n\n> question\n\n<!-- BEGIN SOLUTION -->\nsecret\n<!-- END SOLUTION -->\n"
    out = strip_markdown(src, "a.md")
    assert "secret" not in out and "### 2(b)(i) (2 points)" in out and "> question" in out
    with pytest.raises(MarkerError, match="a.md:1"):
        strip_markdown("<!-- BEGIN SOLUTION -->\n", "a.md")


def test_template_answers_keep_every_heading_and_no_answer():
    ref_md = (REFERENCE / "answers.md").read_text()
    tpl_md = (TEMPLATE / "answers.md").read_text()
    headings = [line for line in ref_md.splitlines() if line.startswith("#")]
    assert len(headings) >= 17
    assert [line for line in tpl_md.splitlines() if line.startswith("#")] == headings
    assert "BEGIN SOLUTION" not in tpl_md and r"\boxed" not in tpl_md
    assert "presented → I" not in tpl_md


def test_no_solution_text_leaks_into_template():
    for path in TEMPLATE.rglob("*.py"):
        text = path.read_text()
        assert "BEGIN SOLUTION" not in text and "END SOLUTION" not in text, path
    assert "np.add.at" not in (TEMPLATE / "word2vec.py").read_text()


def _stub_calls(t):
    """One call per stub of the template, with valid arguments."""
    emb = np.zeros((10, 4), dtype=np.float32)
    vc, U = np.zeros(3), np.zeros((5, 3))
    ds = t.word2vec.getDummyObjects()[0]
    pp = t.parser_transitions.PartialParse.__new__(t.parser_transitions.PartialParse)
    pp.stack, pp.buffer, pp.dependencies, pp.sentence = ["ROOT"], ["a"], [], ["a"]
    model = t.parser_model.ParserModel.__new__(t.parser_model.ParserModel)
    torch.nn.Module.__init__(model)
    return {
        "word2vec.py:sigmoid": lambda: t.word2vec.sigmoid(0.0),
        "word2vec.py:naiveSoftmaxLossAndGradient":
            lambda: t.word2vec.naiveSoftmaxLossAndGradient(vc, 0, U, ds),
        "word2vec.py:negSamplingLossAndGradient":
            lambda: t.word2vec.negSamplingLossAndGradient(vc, 0, U, ds, 3),
        "word2vec.py:skipgram": lambda: t.word2vec.skipgram(
            "a", 1, ["b"], {c: i for i, c in enumerate("abcde")}, U, U, ds),
        "sgd.py:sgd": lambda: t.sgd.sgd(lambda x: (0.0, x), np.ones(2), 0.1, 3),
        "parser_transitions.py:PartialParse.__init__":
            lambda: t.parser_transitions.PartialParse(["a"]),
        "parser_transitions.py:PartialParse.parse_step": lambda: pp.parse_step("S"),
        "parser_transitions.py:minibatch_parse":
            lambda: t.parser_transitions.minibatch_parse([["a"]], None, 1),
        "parser_model.py:ParserModel.__init__": lambda: t.parser_model.ParserModel(emb),
        "parser_model.py:ParserModel.embedding_lookup":
            lambda: model.embedding_lookup(torch.zeros((1, 36), dtype=torch.long)),
        "parser_model.py:ParserModel.forward":
            lambda: model.forward(torch.zeros((1, 36), dtype=torch.long)),
        "run.py:train": lambda: t.run.train(None, [], [], "unused", n_epochs=0),
        "run.py:train_for_epoch": lambda: t.run.train_for_epoch(
            _FakeParser(), [([0] * 36, [1, 1, 1], 2)], [], None, None, 1),
    }


class _FakeParser:
    class model:  # mimics parser.model
        @staticmethod
        def train():
            pass


def test_every_template_stub_raises_not_implemented(template, tmp_path):
    stubs = build_template(REFERENCE, tmp_path / "t")
    calls = _stub_calls(template)
    assert sorted(calls) == sorted(f"{s.path}:{s.function}" for s in stubs)
    for call in calls.values():
        with pytest.raises(NotImplementedError, match="is not implemented yet"):
            call()


@pytest.mark.parametrize("args", [("word2vec.py", "all"), ("sgd.py",),
                                  ("parser_transitions.py", "part_c"),
                                  ("parser_transitions.py", "part_d"),
                                  ("parser_model.py", "-e", "-f")])
def test_template_self_tests_fail_with_not_implemented(args):
    result = run_script(TEMPLATE, *args)
    assert result.returncode != 0
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("NotImplementedError:"), result.stderr
