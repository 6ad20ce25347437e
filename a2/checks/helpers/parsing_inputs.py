"""Random inputs for the parser checks: sentences with repeated words, legal sequences.

Pure functions of a numpy Generator; used by the 3(c) and 3(d) checks (trusted side).
"""

from __future__ import annotations

from typing import Any

import numpy as np

# A small vocabulary, so that words repeat inside a sentence (removing a stack item by value
# instead of by position then goes wrong).
VOCAB = ("the", "dog", "saw", "a", "cat", "with", "the", "big", "dog")


def sentence(rng: np.random.Generator, low: int = 1, high: int = 9, vocab=VOCAB) -> list[str]:
    return [str(w) for w in rng.choice(vocab, size=int(rng.integers(low, high + 1)))]


def legal_sequence(n: int, rng: np.random.Generator) -> list[str]:
    """A random sequence of legal transitions (one shift and one arc per word) ending in the terminal configuration.

    ROOT gets exactly one dependent, attached by the final RIGHT-ARC.
    """
    stack, buf, seq = 1, n, []
    while buf or stack > 1:
        if buf and stack == 2:
            legal = ["S"]
        elif not buf and stack == 2:
            legal = ["RA"]
        else:
            legal = (["S"] if buf else []) + (["LA", "RA"] if stack > 2 else [])
        t = str(rng.choice(legal))
        seq.append(t)
        if t == "S":
            stack, buf = stack + 1, buf - 1
        else:
            stack -= 1
    return seq


def rule_sequence(ref_module: Any, words: list[str], rule: str) -> list[str]:
    """The transitions the course's dummy models choose, simulated with the reference parse.

    "unidirectional": shift all, then RA if the word above ROOT is "right", else LA.
    "interleave": shift all, then RA when the stack size is even, else LA.
    """
    pp = ref_module.PartialParse(list(words))
    seq = []
    while pp.buffer or len(pp.stack) > 1:
        if pp.buffer:
            t = "S"
        elif rule == "unidirectional":
            t = "RA" if pp.stack[1] == "right" else "LA"
        else:
            t = "RA" if len(pp.stack) % 2 == 0 else "LA"
        pp.parse_step(t)
        seq.append(t)
    return seq


def fmt_config(stack: list[str], buffer: list[str], deps: list) -> str:
    return (f"stack {stack}, buffer {buffer}, dependencies "
            f"{[tuple(d) for d in deps]}")
