"""The reference parser_transitions.py and parser_model.py."""

from __future__ import annotations

import random

import numpy as np
import pytest
import torch
from conftest import REFERENCE, run_script

EXAMPLE = "I presented my findings at the NLP conference".split()
GOLD_SEQUENCE = "S S LA S S LA RA S S S S LA LA LA RA RA".split()
GOLD_ARCS = {("ROOT", "presented"), ("presented", "I"), ("presented", "findings"),
             ("findings", "my"), ("presented", "conference"), ("conference", "at"),
             ("conference", "the"), ("conference", "NLP")}


def test_example_sequence_reproduces_gold_tree_in_2n_steps(ref):
    pp = ref.parser_transitions.PartialParse(EXAMPLE)
    steps = 0
    for t in GOLD_SEQUENCE:
        pp.parse_step(t)
        steps += 1
    assert steps == 2 * len(EXAMPLE)
    assert pp.stack == ["ROOT"] and pp.buffer == []
    assert set(pp.dependencies) == GOLD_ARCS and len(pp.dependencies) == len(EXAMPLE)


def test_partial_parse_keeps_sentence_and_handles_repeated_words(ref):
    sentence = ["the", "dog", "saw", "the", "dog"]
    pp = ref.parser_transitions.PartialParse(sentence)
    assert pp.stack == ["ROOT"] and pp.buffer == sentence and pp.buffer is not sentence
    deps = pp.parse(["S", "S", "LA", "S", "LA", "S", "S", "LA", "RA", "RA"])
    assert sentence == ["the", "dog", "saw", "the", "dog"]
    assert deps == [("dog", "the"), ("saw", "dog"), ("dog", "the"), ("saw", "dog"),
                    ("ROOT", "saw")]
    assert pp.stack == ["ROOT"] and pp.buffer == []


def random_legal_sequence(n, rng):
    """A random sequence of 2n legal transitions that ends in the terminal configuration."""
    stack, buf, seq = 1, n, []
    while buf or stack > 1:
        legal = (["S"] if buf else []) + (["LA"] if stack > 2 else []) + (["RA"] if stack >= 2 else [])
        if buf == 0 and stack == 2:
            legal = ["RA"]
        elif buf and stack == 2:
            legal = ["S"]  # keep ROOT with a single child so that RA(ROOT, x) comes last
        t = rng.choice(legal)
        seq.append(t)
        if t == "S":
            stack, buf = stack + 1, buf - 1
        else:
            stack -= 1
    return seq


class RecordingModel:
    """Predicts with ``choose`` and records every batch size it is given."""

    def __init__(self, choose):
        self.choose = choose
        self.batch_sizes = []

    def predict(self, partial_parses):
        self.batch_sizes.append(len(partial_parses))
        return [self.choose(pp) for pp in partial_parses]


def oracle_for(sequences):
    """A model that replays a fixed sequence per sentence (keyed by sentence identity)."""
    progress = {}

    def choose(pp):
        seq = sequences[id(pp.sentence)]
        i = progress.get(id(pp.sentence), 0)
        progress[id(pp.sentence)] = i + 1
        return seq[i]

    return choose


@pytest.mark.parametrize("seed", range(6))
def test_minibatch_parse_random_legal_model(ref, seed):
    rng = random.Random(seed)
    sentences = [[f"w{rng.randint(0, 3)}" for _ in range(rng.randint(1, 9))]
                 for _ in range(rng.randint(1, 12))]
    originals = [list(s) for s in sentences]
    sequences = {id(s): random_legal_sequence(len(s), rng) for s in sentences}
    batch_size = rng.choice([1, 2, 3, 5, len(sentences), len(sentences) + 4])
    model = RecordingModel(oracle_for(sequences))

    result = ref.parser_transitions.minibatch_parse(sentences, model, batch_size)

    expected = [ref.parser_transitions.PartialParse(s).parse(sequences[id(s)]) for s in sentences]
    assert result == expected
    assert sentences == originals
    assert max(model.batch_sizes) <= batch_size
    assert sum(model.batch_sizes) == sum(2 * len(s) for s in sentences)


def test_minibatch_parse_dummy_models_self_tests():
    assert run_script(REFERENCE, "parser_transitions.py", "part_c").returncode == 0
    result = run_script(REFERENCE, "parser_transitions.py", "part_d")
    assert result.returncode == 0, result.stderr
    assert "minibatch_parse test passed!" in result.stdout


def make_model(ref, n_tokens=40, d=6, hidden=11, dropout=0.5, seed=0):
    torch.manual_seed(seed)
    emb = np.random.default_rng(seed).normal(size=(n_tokens, d)).astype(np.float32)
    return ref.parser_model.ParserModel(emb, n_features=36, hidden_size=hidden, n_classes=3,
                                        dropout_prob=dropout)


def test_model_parameters_and_shapes(ref):
    model = make_model(ref)
    shapes = {name: tuple(p.shape) for name, p in model.named_parameters()}
    assert shapes == {"embeddings": (40, 6), "embed_to_hidden_weight": (216, 11),
                      "embed_to_hidden_bias": (11,), "hidden_to_logits_weight": (11, 3),
                      "hidden_to_logits_bias": (3,)}
    assert not any(isinstance(m, (torch.nn.Linear, torch.nn.Embedding)) for m in model.modules())
    bound = np.sqrt(6 / (216 + 11))
    assert model.embed_to_hidden_weight.abs().max().item() <= bound
    assert model.dropout.p == 0.5


def test_embedding_lookup_and_forward_match_formula(ref):
    model = make_model(ref)
    model.eval()
    w = torch.randint(0, 40, (5, 36))
    x = model.embedding_lookup(w)
    assert x.shape == (5, 216)
    assert torch.equal(x[2, 6:12], model.embeddings[w[2, 1]])
    h = torch.relu(x @ model.embed_to_hidden_weight + model.embed_to_hidden_bias)
    expected = h @ model.hidden_to_logits_weight + model.hidden_to_logits_bias
    torch.testing.assert_close(model(w), expected)


def test_dropout_scales_survivors_by_inverse_keep_probability(ref):
    p = 0.3
    model = make_model(ref, hidden=400, dropout=p)
    model.train()
    torch.manual_seed(1)
    h = torch.rand(200, 400) + 0.5
    out = model.dropout(h)
    kept = out != 0
    assert abs(1 - kept.float().mean().item() - p) < 0.02
    torch.testing.assert_close(out[kept], h[kept] / (1 - p))


def test_gradients_reach_every_parameter(ref):
    model = make_model(ref)
    model.train()
    loss = torch.nn.functional.cross_entropy(model(torch.randint(0, 40, (8, 36))),
                                             torch.randint(0, 3, (8,)))
    loss.backward()
    for name, p in model.named_parameters():
        assert p.grad is not None and p.grad.abs().sum() > 0, name


def test_parser_model_self_checks():
    result = run_script(REFERENCE, "parser_model.py", "-e", "-f")
    assert result.returncode == 0, result.stderr
    assert "Forward sanity check passes!" in result.stdout
