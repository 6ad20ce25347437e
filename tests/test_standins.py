"""Every object a check substitutes for student or course code has the whole public API of what it
replaces (issue 35): a right function that uses any of that API must not fail because the grader
handed it a stand-in. Each case enumerates the public names of the replaced class or function from
the reference (methods, the attributes its constructor sets, parameters) and fails on a name the
stand-in lacks, or on a method or function the reference's parameter names cannot call.

The stand-ins: 3(d)'s partial parses for a wrong PartialParse (probes_parser._Recorded) and its
guard around a right one, 3(d)'s scripted model (for the course's model wrappers), the model run.py
is judged with when ParserModel cannot be used (standin_model.py), word2vec's replayed dataset (for
the course's dummy dataset), skipgram's scripted loss function, the Parser.parse and
train_for_epoch that run while student code trains, forward's replaced embedding_lookup, and the
course's ParserModel that 5.9's counterfactual run trains in place of a failing one.
"""

from __future__ import annotations

import ast
import importlib
import inspect
from typing import Any

import numpy as np
import pytest
import torch

from a2.checks import training_uas
from a2.untrusted import probes_model, probes_parser, probes_training, probes_word2vec, standin_model, training_support
from grader.sandbox import folders


def _public(names: Any) -> set[str]:
    return {n for n in names if not n.startswith("_")}


def public_names(obj: Any, base: Any = object) -> set[str]:
    """What code using ``obj`` may reach: its public attributes (its class's and its own, set by
    the constructor) beyond those every ``base`` has, plus those its own class defines anew."""
    own = _public(vars(obj if isinstance(obj, type) else type(obj)))
    return (_public(dir(obj)) - _public(dir(base))) | own


def missing(stand_in: Any, reference: Any, base: Any = object) -> set[str]:
    return {n for n in public_names(reference, base) if not hasattr(stand_in, n)}


def refused_parameters(stand_in: Any, reference: Any) -> list[str]:
    """How a call that suits the reference's signature fails on the stand-in: by position, and
    with every parameter by name."""
    params = [p for p in inspect.signature(reference).parameters.values()
              if p.name != "self" and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    signature = inspect.signature(stand_in)
    problems = []
    for name, bind in (("by position", lambda: signature.bind(*range(len(params)))),
                       ("by name", lambda: signature.bind(**{p.name: 0 for p in params}))):
        try:
            bind()
        except TypeError as exc:
            problems.append(f"{name}: {exc}")
    return problems


def methods_refusing(stand_in: Any, reference: Any, base: Any = object) -> dict[str, list[str]]:
    """For each public method of the reference, how the stand-in's refuses the reference's calls."""
    out = {}
    for name in public_names(reference, base):
        ref_attr = getattr(reference, name, None)
        if callable(ref_attr) and inspect.ismethod(ref_attr) and hasattr(stand_in, name):
            problems = refused_parameters(getattr(stand_in, name), ref_attr)
            if problems:
                out[name] = problems
    return out


# -- 3(d): the partial parses and the model ------------------------------------------------------------

SENTENCE = ["the", "cat", "sat"]
SCRIPT = ["S", "S", "LA", "S", "LA", "RA"]


def _trace(ref: Any) -> list[dict[str, Any]]:
    pp = ref.parser_transitions.PartialParse(list(SENTENCE))
    states = [probes_parser._state(pp)]
    for t in SCRIPT:
        pp.parse_step(t)
        states.append(probes_parser._state(pp))
    return states


def _recorded(ref: Any, student_cls: Any = None) -> Any:
    sentence = list(SENTENCE)
    cls = probes_parser._recorded_class([sentence], [SCRIPT], [_trace(ref)], student_cls)
    return cls(sentence)


def test_the_recorded_parse_has_the_whole_partial_parse_api(ref):
    reference = ref.parser_transitions.PartialParse(list(SENTENCE))
    stand_in = _recorded(ref)
    assert missing(stand_in, reference) == set()
    assert methods_refusing(stand_in, reference) == {}
    assert isinstance(stand_in, type(stand_in)) and type(stand_in).__name__ == "PartialParse"


def test_the_recorded_parse_replays_through_parse_and_parse_step_by_keyword(ref):
    stand_in = _recorded(ref)
    stand_in.parse_step(transition="S")
    assert stand_in.parse(SCRIPT[1:]) == [("cat", "the"), ("sat", "cat"), ("ROOT", "sat")]
    assert (stand_in.stack, stand_in.buffer) == (["ROOT"], [])


def test_the_recorded_parse_carries_the_students_own_helpers_but_never_their_api(ref):
    class Students(ref.parser_transitions.PartialParse):
        def parse_step(self, t):  # wrong, and called by their own keyword
            self.stack.append("?")

        def is_done(self):
            return not self.buffer and len(self.stack) == 1

        @property
        def top(self):
            return self.stack[-1]

    stand_in = _recorded(ref, Students)
    stand_in.parse_step(t="S")
    assert stand_in.stack == ["ROOT", "the"] and stand_in.top == "the" and not stand_in.is_done()
    stand_in.parse(SCRIPT[1:])
    assert stand_in.is_done()


def test_the_finished_parse_guard_keeps_the_students_signature(ref):
    guarded = probes_parser._guard_finished(ref.parser_transitions.PartialParse)(list(SENTENCE))
    assert missing(guarded, ref.parser_transitions.PartialParse(list(SENTENCE))) == set()
    guarded.parse_step(transition="S")
    guarded.parse_step(None)
    guarded.parse(["S"])
    assert guarded.stack == ["ROOT", "the", "cat"]

    class OwnName(ref.parser_transitions.PartialParse):
        def parse_step(self, step):
            super().parse_step(step)

    guarded = probes_parser._guard_finished(OwnName)(list(SENTENCE))
    guarded.parse_step(step="S")
    guarded.parse_step(step=None)
    assert guarded.stack == ["ROOT", "the"]


def test_the_scripted_model_has_the_model_interface_minibatch_parse_is_given(ref):
    """The course hands minibatch_parse its model wrapper (utils.parser_utils.ModelWrapper) or the
    self-tests' DummyModel; what minibatch_parse may use of either is its methods: their
    attributes (the wrapper's parser and dataset, the dummy's mode) are their own machinery."""
    stand_in = probes_parser._ScriptedModel([list(SENTENCE)], [SCRIPT])
    for model_class in (ref.parser_utils.ModelWrapper, ref.parser_transitions.DummyModel):
        assert missing(stand_in, model_class) == set(), model_class
        assert refused_parameters(stand_in.predict, model_class.predict) == []


# -- the model run.py trains when the student's ParserModel cannot be used ------------------------------


def test_the_linear_stand_in_has_the_whole_parser_model_api(ref):
    embeddings = np.random.default_rng(0).normal(size=(40, 5)).astype(np.float32)
    reference = ref.parser_model.ParserModel(embeddings, n_features=36, hidden_size=20, n_classes=3,
                                             dropout_prob=0.5)
    stand_in = standin_model.linear_stand_in(embeddings, 36, 20, 3, 0.5)
    assert missing(stand_in, reference, torch.nn.Module()) == set()
    assert methods_refusing(stand_in, reference, torch.nn.Module()) == {}
    for name, param in reference.named_parameters():
        assert dict(stand_in.named_parameters())[name].shape == param.shape, name
    for name in ("n_features", "hidden_size", "n_classes", "dropout_prob", "embed_size"):
        assert getattr(stand_in, name) == getattr(reference, name), name
    w = torch.randint(0, 40, (4, 36))
    assert stand_in.embedding_lookup(w).shape == reference.embedding_lookup(w).shape
    logits = stand_in(w)
    assert logits.shape == (4, 3) and logits.requires_grad


def _course_model(ref: Any, embeddings: np.ndarray) -> Any:
    """The model 5.9's counterfactual run trains in place of a failing ParserModel, built as the
    worker builds it: from the text the grader sends with that call."""
    code = training_uas.COURSE_PARTS.read_text(encoding="utf-8")
    with probes_training.course_parts(ref.run, ("model",), code) as (build, _train):
        return build(embeddings=embeddings, n_features=36, hidden_size=20, n_classes=3, dropout_prob=0.5)


def test_the_counterfactual_model_is_the_assignments_parser_model_with_its_whole_api(ref):
    """Issue 32: a student's train or train_for_epoch runs beside the course's model in 5.9's
    counterfactual and may read any of ParserModel's API (model.embed_size, embeddings.shape,
    embed_to_hidden_weight, dropout.p...): a name missing there made that run raise, and the bug was
    charged twice. Same names, parameters (names and shapes: the reference's state_dict loads), and
    the same logits."""
    embeddings = np.random.default_rng(1).normal(size=(40, 5)).astype(np.float32)
    reference = ref.parser_model.ParserModel(embeddings, n_features=36, hidden_size=20, n_classes=3,
                                             dropout_prob=0.5)
    course = _course_model(ref, embeddings)
    assert missing(course, reference, torch.nn.Module()) == set()
    assert methods_refusing(course, reference, torch.nn.Module()) == {}
    assert {n: p.shape for n, p in course.named_parameters()} == {n: p.shape for n, p in reference.named_parameters()}
    for name in ("n_features", "hidden_size", "n_classes", "dropout_prob", "embed_size"):
        assert getattr(course, name) == getattr(reference, name), name
    assert isinstance(course.embeddings, torch.nn.Parameter) and course.dropout.p == reference.dropout.p
    course.load_state_dict(reference.state_dict())
    course.eval(), reference.eval()
    w = torch.randint(0, 40, (4, 36))
    assert torch.equal(course.embedding_lookup(w), reference.embedding_lookup(w))
    assert torch.allclose(course(w), reference(w))


def test_the_course_code_is_never_in_the_workers_folder_and_only_comes_with_the_counterfactual(ref):
    """The counterfactual's course code is the assignment's solution: no file of the worker's folder
    defines it, and without its text (the student kit, or any call but the counterfactual) a
    substitute is refused."""
    names = {path.name for path in folders.worker_files()}
    assert training_uas.COURSE_PARTS.name not in names
    course = {n.name for n in ast.walk(ast.parse(training_uas.COURSE_PARTS.read_text(encoding="utf-8")))
              if isinstance(n, ast.FunctionDef) and not n.name.startswith("__")}  # a dunder is no solution
    for path in folders.worker_files():
        defined = {n.name for n in ast.walk(ast.parse(path.read_text(encoding="utf-8"))) if isinstance(n, ast.FunctionDef)}
        assert not defined & (course - {"__init__", "forward", "train"}), path
    with pytest.raises(RuntimeError, match="not available here"):
        with probes_training.course_parts(ref.run, ("loop",)):
            pass


def test_the_stand_in_is_what_training_gets_when_parser_model_fails(ref, monkeypatch):
    embeddings = np.zeros((30, 4), dtype=np.float32)

    def broken(**_kwargs: Any) -> Any:
        raise NotImplementedError("not yet")

    monkeypatch.setattr(training_support, "build_model", broken)
    model, reason = training_support.model_for_training(embeddings)
    assert "NotImplementedError" in reason
    assert model.embeddings.shape == (30, 4) and model.hidden_size == training_support.HIDDEN_SIZE


def test_a_replaced_embedding_lookup_takes_the_references_arguments(ref):
    embeddings = np.zeros((10, 2), dtype=np.float32)
    model = ref.parser_model.ParserModel(embeddings, n_features=3, hidden_size=4)
    original = model.embedding_lookup
    probes_model._replace_lookup(model, np.zeros((1, 6)))
    assert refused_parameters(model.embedding_lookup, original) == []


# -- word2vec: the dataset and skipgram's loss function ---------------------------------------------------


def test_the_replayed_dataset_has_the_courses_dummy_dataset_api(ref):
    dataset, _vectors, _tokens = ref.word2vec.getDummyObjects()
    stand_in = probes_word2vec.ReplayDataset([1, 2])
    assert missing(stand_in, dataset) == set()
    for name in ("sampleTokenIdx", "getRandomContext"):
        assert refused_parameters(getattr(stand_in, name), getattr(dataset, name)) == [], name


@pytest.mark.parametrize("loss", ["naiveSoftmaxLossAndGradient", "negSamplingLossAndGradient"])
def test_skipgrams_scripted_loss_function_takes_the_loss_functions_arguments(ref, loss):
    stand_in = probes_word2vec._scripted_loss_function({}, None, [])
    assert refused_parameters(stand_in, getattr(ref.word2vec, loss)) == []


# -- while student code trains: Parser.parse and train_for_epoch -----------------------------------------


def test_the_parse_used_while_training_takes_parser_parses_arguments(ref):
    parser_utils = importlib.import_module("utils.parser_utils")
    assert parser_utils is ref.parser_utils
    original = parser_utils.Parser.parse
    with training_support.instrumented_parsing(training_support.Recorder()):
        stand_in = parser_utils.Parser.parse
    assert stand_in is not original and parser_utils.Parser.parse is original
    params, course = inspect.signature(stand_in).parameters, inspect.signature(original).parameters
    # the course's parameters, in order, and a `device` a real run.py hands it (placement only: CPU here)
    assert list(params)[:len(course)] == list(course) and set(params) - set(course) == {"device"}


def test_the_train_for_epoch_used_while_train_runs_takes_its_arguments(ref):
    session = probes_training._SetupSession([0.5], np.zeros((2, 3)), np.zeros(2))
    assert refused_parameters(session.train_for_epoch, ref.run.train_for_epoch) == []


def test_what_stands_in_for_train_for_epoch_takes_what_the_students_own_train_passes_it(ref):
    """Issue 35: real train()s pass their own train_for_epoch more than the assignment's six arguments
    (the device they chose, positionally or by name): whatever stands in for it while their train runs
    (5.8's session, the course's loop in 5.9's counterfactual) takes them too."""
    course = training_support_course(ref)
    session = probes_training._SetupSession([0.5], np.zeros((2, 3)), np.zeros(2))
    for stand_in in (session.train_for_epoch, course.course_train_for_epoch):
        signature = inspect.signature(stand_in)
        signature.bind(*range(6), "cpu")
        signature.bind(*range(6), device="cpu")
    # ... and what they return reads as the UAS however the student's train unpacks it
    for returned in (probes_training._UAS(0.8), course._UAS(0.8)):
        first, second = returned
        assert float(returned) == first == second == 0.8 and returned[1] == 0.8


def test_a_train_for_epoch_requiring_a_device_gets_the_cpu_and_others_are_called_as_they_are():
    def needs(parser, train_data, dev_data, optimizer, loss_func, batch_size, device):
        return device

    def defaults(parser, train_data, dev_data, optimizer, loss_func, batch_size, device="gpu"):
        return device

    assert probes_training.placed(needs)(*range(6)) == torch.device("cpu")
    assert probes_training.placed(defaults)(*range(6)) == "gpu"


def training_support_course(ref):
    """a2/course_parts.py run as the worker runs it (its text, as a module of its own)."""
    import types

    module = types.ModuleType("course_parts")
    exec(compile(training_uas.COURSE_PARTS.read_text(), "course_parts.py", "exec"), module.__dict__)
    return module
