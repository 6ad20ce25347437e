"""Data loading, feature extraction and evaluation for the neural dependency parser.

Provided to students, identical in reference/ and student_template/. The parser is an
unlabeled arc-standard parser with three transitions, L (left-arc), R (right-arc) and S
(shift), numbered 0, 1 and 2. Each configuration is described by 36 features: 18 words and
their 18 POS tags, taken from

* the top 3 words of the stack and the first 3 words of the buffer, and
* for each of the top two stack words: its leftmost and rightmost children (lc1, rc1), its
  second leftmost and second rightmost children (lc2, rc2), the leftmost child of its leftmost
  child (llc1) and the rightmost child of its rightmost child (rrc1).

Data paths: by default ``./data/{train,dev,test}.conll`` and ``./data/en-cw.txt`` relative
to the working folder (students run ``python run.py`` from inside the assignment folder).
Point them at the course's real files with the environment variables PARSER_DATA_DIR and
PARSER_EMBEDDING_FILE, or with the keyword arguments of ``load_and_preprocess_data``.
"""

import os
import time
from collections import Counter

import numpy as np
import torch

from parser_transitions import minibatch_parse

P_PREFIX = "<p>:"
UNK = "<UNK>"
NULL = "<NULL>"
ROOT = "<ROOT>"

TRANSITIONS = ["L", "R", "S"]          # label ids 0, 1, 2
TRANSITION_NAMES = {0: "LA", 1: "RA", 2: "S"}


class Config(object):
    """Where the data lives and how it is read."""

    def __init__(self, data_path=None, embedding_file=None):
        self.data_path = data_path or os.environ.get("PARSER_DATA_DIR", "./data")
        self.train_file = "train.conll"
        self.dev_file = "dev.conll"
        self.test_file = "test.conll"
        self.embedding_file = embedding_file or os.environ.get(
            "PARSER_EMBEDDING_FILE", os.path.join(self.data_path, "en-cw.txt"))
        self.embed_size = 50
        self.lowercase = True
        self.use_pos = True
        self.with_punct = True
        # CoNLL column holding the POS tag (0-based): 4 is POSTAG in CoNLL-X; use 3 for UPOS.
        self.pos_column = 4


class Parser(object):
    """Maps tokens to ids, extracts the 36 features, and evaluates a model by UAS."""

    def __init__(self, dataset, config=None):
        config = config or Config()
        self.config = config
        self.lowercase = config.lowercase
        self.use_pos = config.use_pos
        self.with_punct = config.with_punct

        self.n_trans = len(TRANSITIONS)
        self.tran2id = {t: i for (i, t) in enumerate(TRANSITIONS)}
        self.id2tran = {i: t for (i, t) in enumerate(TRANSITIONS)}

        tok2id = {}
        # POS tags first, then words, each with its three special symbols.
        for pos in [P_PREFIX + UNK, P_PREFIX + NULL, P_PREFIX + ROOT]:
            tok2id[pos] = len(tok2id)
        for pos, _ in Counter(p for ex in dataset for p in ex["pos"]).most_common():
            tok2id.setdefault(P_PREFIX + pos, len(tok2id))
        self.P_UNK = tok2id[P_PREFIX + UNK]
        self.P_NULL = tok2id[P_PREFIX + NULL]
        self.P_ROOT = tok2id[P_PREFIX + ROOT]
        self.n_pos = len(tok2id)

        for word in [UNK, NULL, ROOT]:
            tok2id[word] = len(tok2id)
        for word, _ in Counter(w for ex in dataset for w in ex["word"]).most_common():
            tok2id.setdefault(word, len(tok2id))
        self.UNK = tok2id[UNK]
        self.NULL = tok2id[NULL]
        self.ROOT = tok2id[ROOT]

        self.tok2id = tok2id
        self.id2tok = {v: k for (k, v) in tok2id.items()}
        self.n_features = 18 + (18 if config.use_pos else 0)
        self.n_tokens = len(tok2id)
        self.model = None

    # -- data -------------------------------------------------------------------------
    def vectorize(self, examples):
        """Replace words and tags by ids; position 0 of every sentence is ROOT."""
        vec_examples = []
        for ex in examples:
            word = [self.ROOT] + [self.tok2id.get(w, self.UNK) for w in ex["word"]]
            pos = [self.P_ROOT] + [self.tok2id.get(P_PREFIX + p, self.P_UNK) for p in ex["pos"]]
            head = [-1] + ex["head"]
            vec_examples.append({"word": word, "pos": pos, "head": head})
        return vec_examples

    def extract_features(self, stack, buf, arcs, ex):
        """The 36 feature ids of one configuration.

        stack, buf -- lists of word positions (0 is ROOT); arcs -- (head, dependent) pairs.
        """
        if stack and stack[0] == "ROOT":
            stack[0] = 0

        def get_lc(k):
            return sorted(arc[1] for arc in arcs if arc[0] == k and arc[1] < k)

        def get_rc(k):
            return sorted((arc[1] for arc in arcs if arc[0] == k and arc[1] > k), reverse=True)

        p_features = []
        features = [self.NULL] * (3 - len(stack)) + [ex["word"][x] for x in stack[-3:]]
        features += [ex["word"][x] for x in buf[:3]] + [self.NULL] * (3 - len(buf))
        if self.use_pos:
            p_features = [self.P_NULL] * (3 - len(stack)) + [ex["pos"][x] for x in stack[-3:]]
            p_features += [ex["pos"][x] for x in buf[:3]] + [self.P_NULL] * (3 - len(buf))

        for i in range(2):
            if i < len(stack):
                k = stack[-i - 1]
                lc = get_lc(k)
                rc = get_rc(k)
                llc = get_lc(lc[0]) if len(lc) > 0 else []
                rrc = get_rc(rc[0]) if len(rc) > 0 else []
                picks = [lc[0] if len(lc) > 0 else None, rc[0] if len(rc) > 0 else None,
                         lc[1] if len(lc) > 1 else None, rc[1] if len(rc) > 1 else None,
                         llc[0] if len(llc) > 0 else None, rrc[0] if len(rrc) > 0 else None]
                features += [ex["word"][x] if x is not None else self.NULL for x in picks]
                if self.use_pos:
                    p_features += [ex["pos"][x] if x is not None else self.P_NULL for x in picks]
            else:
                features += [self.NULL] * 6
                if self.use_pos:
                    p_features += [self.P_NULL] * 6

        features += p_features
        assert len(features) == self.n_features
        return features

    def get_oracle(self, stack, buf, ex):
        """The gold transition id for a configuration, or None when no transition is right."""
        if len(stack) < 2:
            return self.n_trans - 1 if buf else None
        i0 = stack[-1]
        i1 = stack[-2]
        h0 = ex["head"][i0]
        h1 = ex["head"][i1]
        if i1 > 0 and h1 == i0:
            return 0
        if i1 >= 0 and h0 == i1 and not any(ex["head"][x] == i0 for x in buf):
            return 1
        return None if len(buf) == 0 else 2

    def legal_labels(self, stack, buf):
        """One-hot flags of the legal transitions [L, R, S]."""
        labels = [1] if len(stack) > 2 else [0]
        labels += [1] if len(stack) >= 2 else [0]
        labels += [1] if len(buf) > 0 else [0]
        return labels

    def create_instances(self, examples):
        """(features, legal labels, gold transition) for every step of every gold parse.

        Sentences the arc-standard oracle cannot derive (non-projective) are skipped.
        """
        all_instances = []
        for ex in examples:
            n_words = len(ex["word"]) - 1
            stack = [0]
            buf = [i + 1 for i in range(n_words)]
            arcs = []
            instances = []
            for _ in range(n_words * 2):
                gold_t = self.get_oracle(stack, buf, ex)
                if gold_t is None:
                    break
                legal = self.legal_labels(stack, buf)
                assert legal[gold_t] == 1
                instances.append((self.extract_features(stack, buf, arcs, ex), legal, gold_t))
                if gold_t == self.n_trans - 1:
                    stack.append(buf[0])
                    buf = buf[1:]
                elif gold_t == 0:
                    arcs.append((stack[-1], stack[-2]))
                    stack = stack[:-2] + [stack[-1]]
                else:
                    arcs.append((stack[-2], stack[-1]))
                    stack = stack[:-1]
            else:
                all_instances += instances
        return all_instances

    # -- evaluation -------------------------------------------------------------------
    def parse(self, dataset, eval_batch_size=5000):
        """Parse ``dataset`` (vectorized) with ``self.model``; return (UAS, dependencies)."""
        sentences = []
        sentence_id_to_idx = {}
        for i, example in enumerate(dataset):
            n_words = len(example["word"]) - 1
            sentence = [j + 1 for j in range(n_words)]
            sentences.append(sentence)
            sentence_id_to_idx[id(sentence)] = i

        model = ModelWrapper(self, dataset, sentence_id_to_idx)
        dependencies = minibatch_parse(sentences, model, eval_batch_size)

        UAS = all_tokens = 0.0
        for i, ex in enumerate(dataset):
            head = [-1] * len(ex["word"])
            for h, t in dependencies[i]:
                head[t] = h
            for pred_h, gold_h, pos in zip(head[1:], ex["head"][1:], ex["pos"][1:]):
                assert self.id2tok[pos].startswith(P_PREFIX)
                pos_str = self.id2tok[pos][len(P_PREFIX):]
                if self.with_punct or not punct(pos_str):
                    UAS += 1 if pred_h == gold_h else 0
                    all_tokens += 1
        UAS /= max(all_tokens, 1)
        return UAS, dependencies


class ModelWrapper(object):
    """Adapts a ParserModel to the ``predict(partial_parses)`` interface of minibatch_parse."""

    def __init__(self, parser, dataset, sentence_id_to_idx):
        self.parser = parser
        self.dataset = dataset
        self.sentence_id_to_idx = sentence_id_to_idx

    def predict(self, partial_parses):
        mb_x = [self.parser.extract_features(
                    [0 if x == "ROOT" else x for x in p.stack], list(p.buffer), p.dependencies,
                    self.dataset[self.sentence_id_to_idx[id(p.sentence)]])
                for p in partial_parses]
        mb_x = np.array(mb_x).astype("int32")
        mb_x = torch.from_numpy(mb_x).long()
        mb_l = [self.parser.legal_labels(p.stack, p.buffer) for p in partial_parses]

        with torch.no_grad():
            pred = self.parser.model(mb_x)
        pred = pred.detach().numpy()
        pred = np.argmax(pred + 10000 * np.array(mb_l).astype("float32"), 1)
        return [TRANSITION_NAMES[int(p)] for p in pred]


def punct(pos):
    """Whether a POS tag marks punctuation (UD ``PUNCT`` or a Penn Treebank punctuation tag)."""
    return pos in {"PUNCT", "''", ",", ".", ":", "``", "-LRB-", "-RRB-"}


def read_conll(in_file, lowercase=False, max_example=None, pos_column=4):
    """Read a CoNLL-X (or CoNLL-U) file into a list of sentences.

    Each sentence is a dict with lists "word", "pos", "head" (ints, 0 for the root) and
    "label". Comment lines (#) and CoNLL-U multiword ranges (1-2) and empty nodes (1.1) are
    skipped. ``pos_column`` is the 0-based column of the tag to use.
    """
    examples = []
    with open(in_file, encoding="utf-8") as f:
        word, pos, head, label = [], [], [], []
        for line in f:
            sp = line.strip().split("\t")
            if len(sp) == 10:
                if "-" in sp[0] or "." in sp[0]:
                    continue
                word.append(sp[1].lower() if lowercase else sp[1])
                pos.append(sp[pos_column])
                head.append(int(sp[6]))
                label.append(sp[7])
            elif len(word) > 0:
                examples.append({"word": word, "pos": pos, "head": head, "label": label})
                word, pos, head, label = [], [], [], []
                if (max_example is not None) and (len(examples) == max_example):
                    break
            # other lines (comments, stray blank lines) are ignored
        if len(word) > 0 and (max_example is None or len(examples) < max_example):
            examples.append({"word": word, "pos": pos, "head": head, "label": label})
    return examples


def load_embeddings(path, tok2id, embed_size, rng=None):
    """An embedding matrix for ``tok2id``: rows of words found in ``path`` are copied from it.

    ``path`` is a text file with one word per line followed by its vector, separated by
    spaces. Words missing from the file keep random N(0, 0.9^2) vectors.
    """
    rng = rng if rng is not None else np.random
    matrix = np.asarray(rng.normal(0, 0.9, (len(tok2id), embed_size)), dtype="float32")
    found = 0
    with open(path, encoding="utf-8") as f:
        for line in f:
            sp = line.rstrip().split(" ")
            if len(sp) != embed_size + 1:
                continue
            token = sp[0]
            for candidate in (token, token.lower()):
                if candidate in tok2id:
                    matrix[tok2id[candidate]] = np.asarray(sp[1:], dtype="float32")
                    found += 1
                    break
    return matrix, found


def minibatches(data, batch_size):
    """Shuffle ``data`` = [(features, legal labels, transition id), ...] and yield batches.

    Each batch is (x, y): x an int array (batch, n_features), y a one-hot float array
    (batch, 3) of the gold transitions.
    """
    x = np.array([d[0] for d in data])
    y = np.array([d[2] for d in data])
    one_hot = np.zeros((y.size, 3))
    one_hot[np.arange(y.size), y] = 1
    return get_minibatches([x, one_hot], batch_size)


def get_minibatches(data, minibatch_size, shuffle=True):
    """Yield minibatches of ``data`` (an array, or a list of arrays indexed together)."""
    list_data = type(data) is list and (type(data[0]) is list or type(data[0]) is np.ndarray)
    data_size = len(data[0]) if list_data else len(data)
    indices = np.arange(data_size)
    if shuffle:
        np.random.shuffle(indices)
    for start in np.arange(0, data_size, minibatch_size):
        idx = indices[start:start + minibatch_size]
        yield [_minibatch(d, idx) for d in data] if list_data else _minibatch(data, idx)


def _minibatch(data, minibatch_idx):
    return data[minibatch_idx] if type(data) is np.ndarray else [data[i] for i in minibatch_idx]


class AverageMeter(object):
    """Running sum, count and average of a value (e.g. the loss over an epoch)."""

    def __init__(self):
        self.reset()

    def reset(self):
        self.val = 0
        self.avg = 0
        self.sum = 0
        self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


def load_and_preprocess_data(reduced=True, data_path=None, embedding_file=None):
    """Read the treebank and embeddings and build the training instances.

    reduced -- use the first 1000 training and 500 dev/test sentences (the quick debug run)
    Returns (parser, embeddings, train_examples, dev_data, test_data): embeddings a float32
    array (n_tokens, 50); train_examples a list of (features, legal labels, transition id);
    dev_data and test_data vectorized sentences for Parser.parse.
    """
    config = Config(data_path=data_path, embedding_file=embedding_file)

    print("Loading data...", end=" ", flush=True)
    start = time.time()
    read = lambda name: read_conll(os.path.join(config.data_path, name),
                                   lowercase=config.lowercase, pos_column=config.pos_column)
    train_set = read(config.train_file)
    dev_set = read(config.dev_file)
    test_set = read(config.test_file)
    if reduced:
        train_set = train_set[:1000]
        dev_set = dev_set[:500]
        test_set = test_set[:500]
    print("took {:.2f} seconds".format(time.time() - start))

    print("Building parser...", end=" ", flush=True)
    start = time.time()
    parser = Parser(train_set, config)
    print("took {:.2f} seconds".format(time.time() - start))

    print("Loading pretrained embeddings...", end=" ", flush=True)
    start = time.time()
    embeddings_matrix, _ = load_embeddings(config.embedding_file, parser.tok2id, config.embed_size)
    print("took {:.2f} seconds".format(time.time() - start))

    print("Vectorizing data...", end=" ", flush=True)
    start = time.time()
    train_set = parser.vectorize(train_set)
    dev_set = parser.vectorize(dev_set)
    test_set = parser.vectorize(test_set)
    print("took {:.2f} seconds".format(time.time() - start))

    print("Preprocessing training data...", end=" ", flush=True)
    start = time.time()
    train_examples = parser.create_instances(train_set)
    print("took {:.2f} seconds".format(time.time() - start))

    return parser, embeddings_matrix, train_examples, dev_set, test_set
