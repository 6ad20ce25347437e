#!/usr/bin/env python
"""Generate the synthetic treebank and word vectors bundled in reference/data/.

From the repository root:

    python tools/make_data.py                       # writes reference/data/
    python tools/make_data.py --seed 7 --out /tmp/data

Writes, in the formats of the course's real files:

* train.conll (5000 sentences), dev.conll (600), test.conll (600): CoNLL-X, one token per
  line with 10 tab-separated columns ID FORM LEMMA CPOSTAG POSTAG FEATS HEAD DEPREL DEPS MISC
  (the UD tag in columns 4 and 5, unused columns "_"), a blank line after every sentence;
* en-cw.txt: 50-dimensional word vectors, one "word v1 ... v50" line per lower-cased word.

The sentences come from a small probabilistic grammar of English: pronoun, name and noun
subjects, objects, modals and negation, determiners, possessives, numerals, adjectives,
compounds, prepositional phrases, coordination of nouns, adjectives and verb phrases, relative
clauses, adverbial clauses, infinitival complements, adverbs and final punctuation. Every tree
is projective (checked). Attachment is ambiguous (a PP after "verb noun", the scope of "and",
the noun a relative clause modifies) but mostly predictable from the words: each verb and noun
class prefers its own prepositions and complements, and a fraction NOISE of those decisions
ignores the preferences. The vectors are weakly informative (a centroid per POS tag, per word
class and per lemma, plus noise), and about 5% of the training word types have none.
The output depends only on --seed: two runs write byte-identical files.
"""

import argparse
import os

import numpy as np

from a2.treebank import VOCAB, Grammar

SIZES = {"train": 5000, "dev": 600, "test": 600}
DIM = 50


def write_conll(path, sentences):
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        for rows in sentences:
            for i, (form, pos, head, rel) in enumerate(rows, 1):
                f.write(f"{i}\t{form}\t_\t{pos}\t{pos}\t_\t{head}\t{rel}\t_\t_\n")
            f.write("\n")


def write_vectors(path, train, seed):
    """Vectors for VOCAB except ~5% of the open-class training types; returns those left out."""
    rs = np.random.RandomState(seed)
    types = sorted({row[0].lower() for rows in train for row in rows})
    assert all(w in VOCAB for w in types), [w for w in types if w not in VOCAB]
    open_class = [w for w in types if VOCAB[w][0] in ("NOUN", "PROPN", "VERB", "ADJ")]
    left_out = set(rs.choice(open_class, round(0.05 * len(types)), replace=False))
    centroids = {}

    def centroid(key, scale):
        return centroids.setdefault(key, rs.normal(0, scale, DIM))
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        for w in sorted(VOCAB):
            pos, cls, lemma = VOCAB[w]
            vec = (centroid(pos, 0.5) + centroid((pos, cls), 0.4) + centroid((pos, lemma), 0.4)
                   + rs.normal(0, 0.35, DIM))
            if w not in left_out:
                f.write(w + " " + " ".join(f"{x:.5f}" for x in vec) + "\n")
    return left_out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=224, help="random seed (default 224)")
    ap.add_argument("--out", default=os.path.join("reference", "data"), help="output folder")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    grammar = Grammar(args.seed)
    data = {}
    for split, n in SIZES.items():
        data[split] = []
        while len(data[split]) < n:
            rows = grammar.sentence()
            if 3 <= len(rows) <= 25:
                data[split].append(rows)
        write_conll(os.path.join(args.out, split + ".conll"), data[split])
        types = {row[0].lower() for rows in data[split] for row in rows}
        print(f"{split}.conll: {n} sentences, {sum(map(len, data[split]))} tokens, "
              f"{len(types)} word types")
    left_out = write_vectors(os.path.join(args.out, "en-cw.txt"), data["train"], args.seed)
    print(f"en-cw.txt: {len(VOCAB) - len(left_out)} vectors; {len(left_out)} training word "
          f"types have none")


if __name__ == "__main__":
    main()
