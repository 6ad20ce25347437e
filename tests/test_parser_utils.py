"""Support code: the CoNLL reader, the oracle, the 36 features, the loaders, the bundled data."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import REFERENCE

DATA = REFERENCE / "data"


@pytest.fixture(scope="module")
def treebank(ref):
    pu = ref.parser_utils
    return {name: pu.read_conll(DATA / f"{name}.conll", lowercase=True)
            for name in ("train", "dev", "test")}


def is_projective(heads):
    arcs = [(min(h, d), max(h, d)) for d, h in enumerate(heads, start=1)]
    return not any(a < c < b < e for a, b in arcs for c, e in arcs)


def test_bundled_treebank_is_well_formed(treebank):
    for name, sentences in treebank.items():
        assert len(sentences) >= 300, name
        for s in sentences:
            n = len(s["word"])
            assert 3 <= n <= 25
            assert s["head"].count(0) == 1
            assert all(0 <= h <= n and h != d for d, h in enumerate(s["head"], start=1))
            assert is_projective(s["head"])


def test_bundled_treebank_has_the_constructions_that_make_parsing_hard(treebank):
    labels = {lab for s in treebank["train"] for lab in s["label"]}
    assert {"case", "conj", "cc", "amod", "acl:relcl"} <= labels
    tags = {t for s in treebank["train"] for t in s["pos"]}
    assert {"NOUN", "VERB", "ADP", "DET", "ADJ", "PUNCT"} <= tags


def test_oracle_derives_every_gold_tree_in_2n_steps(ref, treebank):
    pu = ref.parser_utils
    parser = pu.Parser(treebank["train"][:300])
    sentences = parser.vectorize(treebank["train"][:300])
    instances = parser.create_instances(sentences)
    assert len(instances) == sum(2 * (len(s["word"]) - 1) for s in sentences)
    assert all(len(features) == 36 for features, _, _ in instances)
    assert all(legal[t] == 1 for _, legal, t in instances)


def test_features_of_a_hand_built_configuration(ref):
    pu = ref.parser_utils
    sent = {"word": ["the", "cat", "sat", "on", "mats"], "pos": ["DET", "NOUN", "VERB", "ADP", "NOUN"],
            "head": [2, 3, 0, 5, 3], "label": ["det", "nsubj", "root", "case", "obl"]}
    parser = pu.Parser([sent])
    ex = parser.vectorize([sent])[0]
    # Stack [ROOT, cat, sat], buffer [on, mats], after the arc cat -> the.
    stack, buf, arcs = [0, 2, 3], [4, 5], [(2, 1)]
    f = parser.extract_features(stack, buf, arcs, ex)
    tok = parser.tok2id
    words, tags = f[:18], f[18:]
    assert words[:6] == [tok["<ROOT>"], tok["cat"], tok["sat"], tok["on"], tok["mats"], tok["<NULL>"]]
    # Second stack item 'cat' (position 2) has leftmost child 'the'.
    assert words[12] == tok["the"]
    assert tags[12] == tok["<p>:DET"]
    assert len(f) == parser.n_features == 36


def test_read_conll_skips_comments_and_multiword_tokens(ref, tmp_path):
    path = tmp_path / "ud.conllu"
    path.write_text(
        "# sent_id = 1\n"
        "1-2\tdon't\t_\t_\t_\t_\t_\t_\t_\t_\n"
        "1\tdo\tdo\tAUX\tVBP\t_\t3\taux\t_\t_\n"
        "2\tn't\tnot\tPART\tRB\t_\t3\tadvmod\t_\t_\n"
        "3\tgo\tgo\tVERB\tVB\t_\t0\troot\t_\t_\n"
        "\n"
        "1\tHi\thi\tINTJ\tUH\t_\t0\troot\t_\t_\n")
    pu = ref.parser_utils
    sents = pu.read_conll(path)
    assert [s["word"] for s in sents] == [["do", "n't", "go"], ["Hi"]]
    assert sents[0]["pos"] == ["VBP", "RB", "VB"] and sents[0]["head"] == [3, 3, 0]
    assert pu.read_conll(path, pos_column=3)[0]["pos"] == ["AUX", "PART", "VERB"]
    assert len(pu.read_conll(path, max_example=1)) == 1


def test_loaders_follow_configured_paths(ref, tmp_path, monkeypatch):
    (tmp_path / "d").mkdir()
    line = "1\tdogs\t_\tNOUN\tNOUN\t_\t2\tnsubj\t_\t_\n2\tbark\t_\tVERB\tVERB\t_\t0\troot\t_\t_\n\n"
    for name in ("train", "dev", "test"):
        (tmp_path / "d" / f"{name}.conll").write_text(line * 3)
    vectors = tmp_path / "vectors.txt"
    vectors.write_text("dogs " + " ".join(["0.5"] * 50) + "\nunused " + " ".join(["1"] * 50) + "\n")
    monkeypatch.setenv("PARSER_DATA_DIR", str(tmp_path / "d"))
    monkeypatch.setenv("PARSER_EMBEDDING_FILE", str(vectors))
    parser, emb, train, dev, test = ref.parser_utils.load_and_preprocess_data(reduced=False)
    assert emb.shape == (parser.n_tokens, 50) and emb.dtype == np.float32
    assert np.all(emb[parser.tok2id["dogs"]] == 0.5)
    assert len(train) == 3 * 4 and len(dev) == len(test) == 3


def test_bundled_embeddings_cover_most_training_words(ref, treebank):
    parser = ref.parser_utils.Parser(treebank["train"])
    _, found = ref.parser_utils.load_embeddings(DATA / "en-cw.txt", parser.tok2id, 50)
    n_words = parser.n_tokens - parser.n_pos - 3
    assert 0.8 * n_words <= found < n_words


def test_minibatches_one_hot_and_cover_data(ref):
    data = [([i] * 36, [1, 1, 1], i % 3) for i in range(10)]
    batches = list(ref.parser_utils.minibatches(data, 4))
    assert [len(x) for x, _ in batches] == [4, 4, 2]
    xs = np.concatenate([x for x, _ in batches])
    ys = np.concatenate([y for _, y in batches])
    assert sorted(xs[:, 0]) == list(range(10))
    assert np.all(ys.sum(axis=1) == 1) and np.all(ys.argmax(axis=1) == xs[:, 0] % 3)


def test_average_meter(ref):
    meter = ref.parser_utils.AverageMeter()
    meter.update(2.0)
    meter.update(5.0, n=3)
    assert meter.avg == pytest.approx(17 / 4) and meter.count == 4
