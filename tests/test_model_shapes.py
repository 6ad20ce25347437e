# ruff: noqa: E501 - the tables of one-line code edits read best unwrapped
"""The bug shapes of parser_model.py and run.py (a2/checks/helpers/model_shapes.py): each entry names
a model with exactly its bug, and correct models (the reference and
tests/submissions/alternative/parser_model.py) match no entry over 20 seeds.

The cases are built as the checks build them, with the models run in this process.
"""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest
import torch
from conftest import REFERENCE

from a2 import solution_math
from a2.bug_shapes import all_matches, check_ids_unique
from a2.checks import model_dropout
from a2.checks.helpers import model_params as model_checks
from a2.checks.helpers import model_shapes as shapes

ALTERNATIVE = Path(__file__).parent / "submissions" / "alternative"
SEEDS = range(20)
_counter = [0]


def _load(path: Path) -> ModuleType:
    _counter[0] += 1
    spec = importlib.util.spec_from_file_location(f"_ms_parser_model_{_counter[0]}", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _variant(tmp_path: Path, replacements: list[tuple[str, str]]) -> ModuleType:
    text = (REFERENCE / "parser_model.py").read_text()
    for old, new in replacements:
        assert old in text, old
        text = text.replace(old, new, 1)
    path = tmp_path / f"parser_model_{_counter[0]}.py"
    path.write_text(text)
    return _load(path)


@pytest.fixture(scope="module")
def correct() -> dict[str, ModuleType]:
    return {"reference": _load(REFERENCE / "parser_model.py"), "alternative": _load(ALTERNATIVE / "parser_model.py")}


def _build(module: ModuleType, s: model_checks.Sizes, values: dict[str, np.ndarray], p: float) -> Any:
    model = module.ParserModel(values["embeddings"].copy(), n_features=s.n_features, hidden_size=s.hidden,
                               n_classes=3, dropout_prob=p)
    with torch.no_grad():
        for role, value in values.items():
            getattr(model, role).copy_(torch.as_tensor(value))
    return model


def test_ids_unique():
    for catalogue in (shapes.GRADIENTS, shapes.DROPOUT, shapes.TRAINING_ERRORS):
        check_ids_unique(catalogue)


# ---------------------------------------------------------------------------------------------
# dropout: the dropout check's instance (only hidden unit j reaches the logits)
# ---------------------------------------------------------------------------------------------

def _dropout_matches(module: ModuleType, rng: np.random.Generator, p: float) -> list[str]:
    s = model_checks.draw_sizes(rng, tokens=(20, 40), embed=(3, 6), features=(2, 4), hidden=(6, 12))
    values = model_checks.draw_values(rng, s)
    j = int(rng.integers(s.hidden))
    rows = 2000
    w = rng.integers(0, s.n_tokens, (rows, s.n_features))
    x = values["embeddings"].astype(np.float64)[w].reshape(rows, -1)
    wj = rng.normal(0, 1, s.in_dim) / np.sqrt(s.in_dim)
    values["embed_to_hidden_weight"][:, j] = wj
    values["embed_to_hidden_bias"][j] = np.float32(0.5 - (x @ wj).min())
    out_w = np.zeros((s.hidden, 3), np.float32)
    out_w[j] = rng.choice([-1.0, 1.0], 3) * rng.uniform(0.5, 1.5, 3)
    values["hidden_to_logits_weight"] = out_w
    model = _build(module, s, values, p)
    wt = torch.as_tensor(w)
    with torch.no_grad():
        model.eval()
        kept = model(wt).double().numpy()
        model.hidden_to_logits_weight.zero_()
        without = model(wt).double().numpy()
        model.hidden_to_logits_weight.copy_(torch.as_tensor(out_w / (1 - p)))
        scaled = model(wt).double().numpy()
        model.hidden_to_logits_weight.copy_(torch.as_tensor(out_w))
        model.train()
        torch.manual_seed(int(rng.integers(2**31)))
        train = model(wt).double().numpy()
    informative = ~model_dropout._rows_close(kept, without)
    dropped = model_dropout._rows_close(train, without) & informative
    as_gamma = model_dropout._rows_close(train, scaled) & informative & ~dropped
    unscaled = model_dropout._rows_close(train, kept) & informative & ~dropped & ~as_gamma
    other = informative & ~dropped & ~as_gamma & ~unscaled
    case = shapes.dropout_case(train, kept, without, informative, dropped, other, p)
    return [m.id for m in all_matches(shapes.DROPOUT, case)]


MASK = "h * (torch.rand_like(h) >= self.dropout_prob).float()"
DROPOUT_BUGS = {
    "dropout_before_hidden_layer": [("        x = self.embedding_lookup(w)\n", "        x = self.dropout(self.embedding_lookup(w))\n"),
                                    ("self.dropout(h) @", "h @")],
    "dropout_scaled_by_keep_probability": [("self.dropout(h) @", f"({MASK} * (1 - self.dropout_prob) if self.training else h) @")],
    "dropout_scaled_by_p": [("self.dropout(h) @", f"({MASK} / self.dropout_prob if self.training else h) @")],
}


def test_every_dropout_shape_has_a_bug():
    assert {s.id for s in shapes.DROPOUT} == set(DROPOUT_BUGS)


@pytest.mark.parametrize("shape_id", sorted(DROPOUT_BUGS))
def test_dropout_shape_names_its_bug(shape_id: str, tmp_path: Path):
    module = _variant(tmp_path, DROPOUT_BUGS[shape_id])
    rng = np.random.default_rng(0)
    for p in (0.2, 0.35, 0.65, 0.8):
        assert _dropout_matches(module, rng, p) == [shape_id], p


# ---------------------------------------------------------------------------------------------
# gradients: a parameter forward never uses
# ---------------------------------------------------------------------------------------------

def _logits_without(values: dict[str, np.ndarray], x: np.ndarray, role: str) -> np.ndarray:
    return solution_math.mlp(values, x, without=role)


def _gradient_matches(module: ModuleType, rng: np.random.Generator) -> dict[str, list[str]]:
    """For each role without a gradient after a backward pass: the shapes its case matches."""
    s = model_checks.draw_sizes(rng)
    values = model_checks.draw_values(rng, s)
    model = _build(module, s, values, 0.0)
    w = rng.integers(0, s.n_tokens, (int(rng.integers(4, 30)), s.n_features))
    logits = model(torch.as_tensor(w))
    (logits * torch.as_tensor(rng.normal(0, 1, tuple(logits.shape)), dtype=logits.dtype)).sum().backward()
    x = values["embeddings"].astype(np.float64)[w].reshape(w.shape[0], -1)
    out = {}
    for role in model_checks.ROLES:
        case = shapes.GradientCase(role, logits.detach().double().numpy(),
                                   functools.partial(_logits_without, values, x))
        if getattr(model, role).grad is None:
            out[role] = [m.id for m in all_matches(shapes.GRADIENTS, case)]
        else:  # a role with a gradient never reaches the catalogue; still, no shape may fit it
            assert all_matches(shapes.GRADIENTS, case) == [], role
    return out


@pytest.mark.parametrize("role, replacement", [
    ("embed_to_hidden_bias", ("x @ self.embed_to_hidden_weight + self.embed_to_hidden_bias", "x @ self.embed_to_hidden_weight")),
    ("hidden_to_logits_bias", ("self.hidden_to_logits_weight + self.hidden_to_logits_bias", "self.hidden_to_logits_weight")),
])
def test_unused_parameter_is_left_to_forward(role: str, replacement: tuple[str, str], tmp_path: Path):
    module = _variant(tmp_path, [replacement])
    for seed in range(3):
        assert _gradient_matches(module, np.random.default_rng(seed)) == {role: ["param_unused_in_forward"]}


def test_detached_parameter_is_not_excused(tmp_path: Path):
    """A bias used through .detach() computes the right logits: its missing gradient is the
    gradients check's own bug, never left to forward."""
    module = _variant(tmp_path, [("+ self.embed_to_hidden_bias)", "+ self.embed_to_hidden_bias.detach())")])
    assert _gradient_matches(module, np.random.default_rng(0)) == {"embed_to_hidden_bias": []}


# ---------------------------------------------------------------------------------------------
# training errors
# ---------------------------------------------------------------------------------------------

def _loss_error(targets: torch.Tensor) -> str:
    try:
        torch.nn.CrossEntropyLoss()(torch.randn(5, 3), targets)
    except RuntimeError as exc:
        return f"RuntimeError: {exc}"
    return ""


def test_onehot_long_targets_named():
    onehot = torch.nn.functional.one_hot(torch.tensor([0, 2, 1, 1, 0]), 3)
    text = _loss_error(onehot.long())
    assert text and [s.id for s in all_matches(shapes.TRAINING_ERRORS, text)] == ["onehot_long_targets"]
    assert "class index" in shapes.training_error_hint(text)
    assert "fix that first" in shapes.training_error_hint(text, dependent="train_loop")
    assert _loss_error(onehot.argmax(dim=1)) == "" and _loss_error(onehot.float()) == ""
    assert shapes.training_error_hint("RuntimeError: mat1 and mat2 shapes cannot be multiplied") == ""


# ---------------------------------------------------------------------------------------------
# plain tensors take roles only where no parameter does
# ---------------------------------------------------------------------------------------------

def test_plain_tensors_fill_missing_roles_only():
    s = model_checks.Sizes(n_tokens=40, embed_size=5, n_features=4, hidden=7)
    params = [{"name": "embed_to_hidden_weight", "shape": [20, 7]}, {"name": "embed_to_hidden_bias", "shape": [7]},
              {"name": "hidden_to_logits_weight", "shape": [7, 3]}, {"name": "hidden_to_logits_bias", "shape": [3]}]
    tensors = [{"name": "mask", "shape": [7]}, {"name": "embeddings", "shape": [40, 5]}]
    matches, plain = model_checks.match_roles({"parameters": params, "tensors": tensors}, s)
    assert plain == {"embeddings"} and matches["embeddings"].name == "embeddings"
    assert matches["embed_to_hidden_bias"].name == "embed_to_hidden_bias"
    matches, plain = model_checks.match_roles({"parameters": params + [{"name": "embeddings", "shape": [40, 5]}],
                                               "tensors": tensors}, s)
    assert plain == set()


# ---------------------------------------------------------------------------------------------
# correct code never matches a bug shape
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("which", ["reference", "alternative"])
def test_correct_model_matches_no_shape(which: str, correct):
    module = correct[which]
    for seed in SEEDS:
        rng = np.random.default_rng(seed)
        p = float(rng.uniform(0.15, 0.85))
        assert _dropout_matches(module, rng, p) == [], (seed, p)
        assert _gradient_matches(module, rng) == {}, seed


@pytest.mark.parametrize("replacement", [
    ("        return logits\n", "        return torch.softmax(logits, dim=1)\n"),  # forward's bug, not dropout's
    ("h = F.relu(x @ self.embed_to_hidden_weight + self.embed_to_hidden_bias)", "h = x @ self.embed_to_hidden_weight + self.embed_to_hidden_bias"),
])
def test_other_bugs_match_no_dropout_shape(replacement: tuple[str, str], tmp_path: Path):
    module = _variant(tmp_path, [replacement])
    rng = np.random.default_rng(3)
    for p in (0.2, 0.7):
        assert _dropout_matches(module, rng, p) == [], p
