"""End to end: run.py trains on the bundled treebank and reaches the UAS floor; the hidden dev set
of check 5.9."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys

import numpy as np
import pytest
from conftest import REFERENCE, REPO

UAS_FLOOR = 80.0


def copy_reference(tmp_path):
    dst = tmp_path / "reference"
    shutil.copytree(REFERENCE, dst, ignore=shutil.ignore_patterns("results", "__pycache__"))
    return dst


def uas_values(output: str, split: str) -> list[float]:
    return [float(v) for v in re.findall(rf"- {split} UAS: ([0-9.]+)", output)]


@pytest.mark.slow
def test_debug_run_trains_and_prints_loss_and_uas(tmp_path):
    folder = copy_reference(tmp_path)
    result = subprocess.run([sys.executable, "run.py", "-d"], cwd=folder, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    losses = [float(v) for v in re.findall(r"Average Train Loss: ([0-9.]+)", result.stdout)]
    assert len(losses) == 10 and losses[-1] < losses[0]
    assert len(uas_values(result.stdout, "dev")) == 10
    assert list((folder / "results").glob("*/model.weights"))


@pytest.mark.slow
def test_full_run_reaches_dev_uas_floor(tmp_path):
    folder = copy_reference(tmp_path)
    result = subprocess.run([sys.executable, "run.py"], cwd=folder, capture_output=True,
                            text=True, timeout=900)
    assert result.returncode == 0, result.stderr
    dev = uas_values(result.stdout, "dev")
    test = uas_values(result.stdout, "test")
    assert max(dev) >= UAS_FLOOR, result.stdout[-2000:]
    assert len(test) == 1 and test[0] >= UAS_FLOOR - 5


@pytest.mark.slow
def test_data_generator_is_reproducible(tmp_path):
    result = subprocess.run([sys.executable, str(REPO / "tools" / "make_data.py"),
                             "--out", str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    for name in ("train.conll", "dev.conll", "test.conll", "en-cw.txt"):
        assert (tmp_path / name).read_bytes() == (REFERENCE / "data" / name).read_bytes(), name


def test_hidden_dev_set_is_drawn_from_the_seed_and_is_not_the_bundled_one():
    """Issue 20: 5.9 scores on sentences made at grading time from the run's seed, in the trusted
    process: the same seed gives the same set, another seed another, and the bundled dev set that
    students hold is not it."""
    from a2.checks.helpers.dev_parse import _grader_parser, hidden_dev_set
    from a2.reference import load_reference

    ref = load_reference()
    parser = _grader_parser(ref)
    first, again, other = hidden_dev_set(parser, 11), hidden_dev_set(parser, 11), hidden_dev_set(parser, 12)
    assert len(first) == 500 and first == again and first != other
    bundled = {tuple(ex["word"]) for ex in parser.vectorize(
        ref.parser_utils.read_conll(str(REFERENCE / "data" / "dev.conll"), lowercase=True)[:500])}
    shared = sum(tuple(ex["word"]) in bundled for ex in first)
    assert shared < 50, f"{shared} of the hidden sentences are in the bundled dev set"


#: parser_model.py files whose forward is the assignment's, with their parameters held otherwise:
#: nn.Embedding / nn.Linear layers (weights transposed, other names), (1, n) biases and a transposed
#: output weight, misspelt names, a plain-tensor embedding.
FORWARD_VARIANTS = ("reference", "alternative", "buggy/model_nn_linear", "buggy/model_layout_transposed",
                    "buggy/model_misspelled_names", "buggy/model_embeddings_plain_tensor")


def _student_model_module(variant: str):
    import importlib.util

    path = (REFERENCE if variant == "reference" else REPO / "tests" / "submissions" / variant) / "parser_model.py"
    spec = importlib.util.spec_from_file_location(f"variant_{variant.replace('/', '_')}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("variant", FORWARD_VARIANTS)
def test_the_graders_forward_on_the_trained_arrays_equals_the_students_own_eval_forward(variant):
    """Issue 32: 5.9 scores the hidden dev set with the assignment's forward computed in the trusted
    process from the trained model's parameters (returned as plain arrays), mapped to roles as
    check 5.1 maps them: each correct way of holding them gives the student's own eval-mode logits,
    so these variants keep their true UAS."""
    torch = pytest.importorskip("torch")
    from a2.checks.helpers.dev_parse import TrainedForward, role_values
    from a2.untrusted.probes_training import trained_arrays

    rng = np.random.default_rng(3)
    embeddings = rng.normal(0, 1, (57, 50)).astype(np.float32)
    model = _student_model_module(variant).ParserModel(embeddings, n_features=36, hidden_size=200,
                                                       n_classes=3, dropout_prob=0.5)
    generator = torch.Generator().manual_seed(5)
    with torch.no_grad():  # trained values: every bias nonzero
        for tensor in [*model.parameters(), *(v for v in vars(model).values() if isinstance(v, torch.Tensor))]:
            tensor.copy_(0.1 * torch.randn(tensor.shape, generator=generator))
    rows = rng.integers(0, 57, (40, 36))
    model.eval()
    with torch.no_grad():
        want = model(torch.as_tensor(rows, dtype=torch.long)).double().numpy()
    values, _notes = role_values(trained_arrays(model, embeddings.shape), 57, 50)
    got = TrainedForward(values).logits(rows)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
