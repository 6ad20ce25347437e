#!/usr/bin/env python
"""Part 3(c)-(d) (coding): the arc-standard transition system and minibatch parsing.

Run the self-tests from this folder:  python parser_transitions.py part_c
                                      python parser_transitions.py part_d
"""

import sys


class PartialParse(object):
    def __init__(self, sentence):
        """Start the parse of ``sentence``.

        sentence -- the words of the sentence, a list of strings; it must not be modified.

        Sets three attributes:
        self.stack        -- a list, initially ['ROOT']; its last element is the top
        self.buffer       -- a list, initially the words of the sentence in order
                             (a copy: changing the buffer must not change the sentence)
        self.dependencies -- a list of (head, dependent) tuples, initially empty
        """
        # The sentence is kept for reference by the parser's feature extraction.
        self.sentence = sentence

        ### BEGIN SOLUTION
        self.stack = ["ROOT"]
        self.buffer = list(sentence)
        self.dependencies = []
        ### END SOLUTION

    def is_complete(self):
        """Whether nothing is left to parse."""
        return not self.buffer and len(self.stack) == 1

    def parse_step(self, transition):
        """Apply one transition to this partial parse.

        transition -- "S" (shift), "LA" (left-arc) or "RA" (right-arc). Only legal
                      transitions are given: shift with a non-empty buffer, arcs with at
                      least two items on the stack.

        SHIFT moves the first buffer word to the top of the stack. LEFT-ARC makes the second
        stack item a dependent of the top one and removes it; RIGHT-ARC makes the top item a
        dependent of the second one and removes it. Each arc is appended to
        self.dependencies as (head, dependent).
        """
        ### BEGIN SOLUTION
        if transition == "S":
            self.stack.append(self.buffer.pop(0))
        elif transition == "LA":
            dependent = self.stack[-2]
            self.stack.remove(dependent)
            self.dependencies.append((self.stack[-1], dependent))
        elif transition == "RA":
            dependent = self.stack.pop()
            self.dependencies.append((self.stack[-1], dependent))
        else:
            raise ValueError("unknown transition %r: expected 'S', 'LA' or 'RA'" % (transition,))
        ### END SOLUTION

    def parse(self, transitions):
        """Apply the transitions in order and return the dependencies (provided)."""
        for transition in transitions:
            self.parse_step(transition)
        return self.dependencies


def minibatch_parse(sentences, model, batch_size):
    """Parse the sentences in minibatches.

    sentences  -- a list of sentences, each a list of words
    model      -- an object whose ``predict(partial_parses)`` returns one transition
                  ("S", "LA" or "RA") for each partial parse it is given
    batch_size -- the most partial parses ``predict`` may be given at once

    Returns a list with, for each sentence in the order given, the list of its
    (head, dependent) tuples. Work on a list of unfinished parses: take up to batch_size of
    them, predict a transition for each, apply it, and drop the ones that are finished
    (empty buffer, stack of size 1) until none is left.
    """
    parses = [PartialParse(words) for words in sentences]
    todo = parses[:]
    while todo:
        head = todo[:batch_size]
        for pp, step in zip(head, model.predict(head)):
            pp.parse_step(transition=step)
        todo = [pp for pp in todo if not pp.is_complete()]
    dependencies = [pp.dependencies for pp in parses]

    return dependencies


# ---------------------------------------------------------------------------
# Self-tests: provided, keep them unchanged.
# ---------------------------------------------------------------------------

def test_step(name, transition, stack, buf, deps, ex_stack, ex_buf, ex_deps):
    """Apply one transition to a hand-made configuration and compare with the expected one."""
    pp = PartialParse([])
    pp.stack, pp.buffer, pp.dependencies = stack, buf, deps

    pp.parse_step(transition)
    stack, buf, deps = (tuple(pp.stack), tuple(pp.buffer), tuple(sorted(pp.dependencies)))
    assert stack == ex_stack, \
        "{:} test resulted in stack {:}, expected {:}".format(name, stack, ex_stack)
    assert buf == ex_buf, \
        "{:} test resulted in buffer {:}, expected {:}".format(name, buf, ex_buf)
    assert deps == ex_deps, \
        "{:} test resulted in dependency list {:}, expected {:}".format(name, deps, ex_deps)
    print("{:} test passed!".format(name))


def test_parse_step():
    """Simple tests for PartialParse.parse_step."""
    test_step("SHIFT", "S", ["ROOT", "the"], ["cat", "sat"], [],
              ("ROOT", "the", "cat"), ("sat",), ())
    test_step("LEFT-ARC", "LA", ["ROOT", "the", "cat"], ["sat"], [],
              ("ROOT", "cat",), ("sat",), (("cat", "the"),))
    test_step("RIGHT-ARC", "RA", ["ROOT", "run", "fast"], [], [],
              ("ROOT", "run",), (), (("run", "fast"),))


def test_parse():
    """Simple tests for PartialParse.parse."""
    sentence = ["parse", "this", "sentence"]
    dependencies = PartialParse(sentence).parse(["S", "S", "S", "LA", "RA", "RA"])
    dependencies = tuple(sorted(dependencies))
    expected = (("ROOT", "parse"), ("parse", "sentence"), ("sentence", "this"))
    assert dependencies == expected, \
        "parse test resulted in dependencies {:}, expected {:}".format(dependencies, expected)
    assert tuple(sentence) == ("parse", "this", "sentence"), \
        "parse test failed: the input sentence should not be modified"
    print("parse test passed!")


class DummyModel(object):
    """A stand-in model for testing minibatch_parse.

    "unidirectional": shift everything, then right-arc when the word below the top is
    "right" and left-arc otherwise. "interleave": shift everything, then alternate by stack
    size.
    """

    def __init__(self, mode="unidirectional"):
        self.mode = mode

    def predict(self, partial_parses):
        if self.mode == "unidirectional":
            return [("RA" if pp.stack[1] == "right" else "LA") if len(pp.buffer) == 0 else "S"
                    for pp in partial_parses]
        if self.mode == "interleave":
            return [("RA" if len(pp.stack) % 2 == 0 else "LA") if len(pp.buffer) == 0 else "S"
                    for pp in partial_parses]
        raise NotImplementedError(self.mode)


def test_dependencies(name, deps, ex_deps):
    """Compare a dependency list with the expected one, ignoring order."""
    deps = tuple(sorted(deps))
    assert deps == ex_deps, \
        "{:} test resulted in dependency list {:}, expected {:}".format(name, deps, ex_deps)


def test_minibatch_parse():
    """Simple tests for minibatch_parse."""
    sentences = [["right", "arcs", "only"],
                 ["right", "arcs", "only", "again"],
                 ["left", "arcs", "only"],
                 ["left", "arcs", "only", "again"]]
    deps = minibatch_parse(sentences, DummyModel(), 2)
    test_dependencies("minibatch_parse", deps[0],
                      (("ROOT", "right"), ("arcs", "only"), ("right", "arcs")))
    test_dependencies("minibatch_parse", deps[1],
                      (("ROOT", "right"), ("arcs", "only"), ("only", "again"), ("right", "arcs")))
    test_dependencies("minibatch_parse", deps[2],
                      (("only", "ROOT"), ("only", "arcs"), ("only", "left")))
    test_dependencies("minibatch_parse", deps[3],
                      (("again", "ROOT"), ("again", "arcs"), ("again", "left"), ("again", "only")))

    # Sentences of different lengths finish at different steps.
    sentences = [["right"]]
    deps = minibatch_parse(sentences, DummyModel(), 2)
    test_dependencies("minibatch_parse", deps[0], (("ROOT", "right"),))

    sentences = [["this", "is", "interleaving", "dependency", "test"]]
    deps = minibatch_parse(sentences, DummyModel(mode="interleave"), 1)
    test_dependencies("minibatch_parse", deps[0],
                      (("ROOT", "is"), ("dependency", "interleaving"),
                       ("dependency", "test"), ("is", "dependency"), ("is", "this")))
    print("minibatch_parse test passed!")


if __name__ == "__main__":
    usage = "usage: python parser_transitions.py part_c|part_d"
    if len(sys.argv) != 2 or sys.argv[1] not in ("part_c", "part_d"):
        raise SystemExit(usage)
    if sys.argv[1] == "part_c":
        test_parse_step()
        test_parse()
    else:
        test_minibatch_parse()
