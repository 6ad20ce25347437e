"""Disguised copies of a solution for the similarity class of make_class.py (--similarity).

Each function takes a student file's text and returns it changed the way a student hiding a copy
changes it, still valid Python: ``rename`` (local variables and parameters, consistently),
``reorder`` (top-level functions and classes shuffled, with what a default argument needs kept
before it), ``recomment`` (comments dropped or rewritten, new ones added), ``reformat``
(indentation, blank lines, spaces around operators), ``extract_helper`` (statements of a
function body moved into a helper it calls). ``student_markers`` turns the reference's solution
markers into the template's, as a student's file has them.
"""

from __future__ import annotations

import ast
import io
import keyword
import random
import re
import tokenize

WORDS = ("val", "tmp", "acc", "res", "cur", "item", "buf", "part", "vec", "mat", "out", "idx", "num", "arr")
COMMENTS = ("# compute it", "# as in lecture", "# TODO tidy", "# step", "# vectorised", "# see handout",
            "# works now", "# helper values")


def student_markers(text: str) -> str:
    return text.replace("### BEGIN SOLUTION", "### YOUR CODE HERE").replace("### END SOLUTION", "### END YOUR CODE")


def _protected(tree: ast.AST) -> set[str]:
    """Names a rename must keep: attributes, keyword arguments, globals, imports, builtins."""
    keep = set(dir(__builtins__)) | set(keyword.kwlist) | {"self", "cls"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            keep.add(node.attr)
        elif isinstance(node, ast.keyword) and node.arg:
            keep.add(node.arg)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            keep.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            keep.add(node.name)
    assert isinstance(tree, ast.Module)
    for stmt in tree.body:   # module-level names
        for target in ast.walk(stmt) if isinstance(stmt, (ast.Assign, ast.AnnAssign)) else ():
            if isinstance(target, ast.Name):
                keep.add(target.id)
    return keep


def rename(text: str, rng: random.Random) -> str:
    """Every local variable and parameter renamed (consistently, in code only)."""
    tree = ast.parse(text)
    keep = _protected(tree)
    local: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            local.add(node.id)
        elif isinstance(node, ast.arg):
            local.add(node.arg)
    names = sorted(local - keep)
    taken = {n for n in ast.walk(tree) for n in ([n.id] if isinstance(n, ast.Name) else [])} | keep
    mapping: dict[str, str] = {}
    for name in names:
        new = f"{rng.choice(WORDS)}_{len(mapping)}"
        while new in taken:
            new += "_"
        mapping[name] = new
        taken.add(new)
    out = []
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.NAME and tok.string in mapping:
            tok = tok._replace(string=mapping[tok.string])
        out.append(tok)
    return _untokenize(text, out)


def _untokenize(text: str, tokens: list[tokenize.TokenInfo]) -> str:
    """Tokens written back in place (line by line), so that only the changed ones move."""
    lines = text.splitlines(keepends=True)
    edits: dict[int, list[tuple[int, int, str]]] = {}
    for tok in tokens:
        if tok.type == tokenize.NAME or tok.type == tokenize.COMMENT:
            (r0, c0), (r1, c1) = tok.start, tok.end
            if r0 == r1:
                edits.setdefault(r0, []).append((c0, c1, tok.string))
    for row, changes in edits.items():
        line = lines[row - 1]
        for c0, c1, new in sorted(changes, reverse=True):
            line = line[:c0] + new + line[c1:]
        lines[row - 1] = line
    return "".join(lines)


def recomment(text: str, rng: random.Random) -> str:
    """Every comment dropped or rewritten; a few new ones."""
    out = []
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.COMMENT:
            tok = tok._replace(string=rng.choice(COMMENTS) if rng.random() < 0.5 else "#")
        out.append(tok)
    lines = _untokenize(text, out).splitlines(keepends=True)
    result = []
    for line in lines:
        stripped = line.strip()
        if stripped == "#":
            continue
        if stripped.endswith("#"):
            line = line.rstrip()[:-1].rstrip() + "\n"
        result.append(line)
        if line.rstrip().endswith(":") and not stripped.startswith(("#", '"', "'")) and rng.random() < 0.3:
            indent = len(line) - len(line.lstrip()) + 4
            result.append(" " * indent + rng.choice(COMMENTS) + "\n")
    return "".join(result)


def reformat(text: str, rng: random.Random) -> str:
    """Two-space indentation, blank lines added and removed, spaces around ``=`` and ``,`` changed."""
    out = []
    for line in text.splitlines(keepends=True):
        body = line.lstrip(" ")
        indent = len(line) - len(body)
        if body.strip() and '"' not in body and "'" not in body and not body.startswith("#"):
            body = re.sub(r"(?<=[\w\])])\s*=\s*(?=[\w\[(\-])", " = " if rng.random() < 0.5 else "=", body)
            body = re.sub(r",[ \t]*(?=\S)", ", " if rng.random() < 0.5 else ",", body)
        out.append(" " * (indent // 2) + body)
        if not body.strip() and rng.random() < 0.3:
            out.append("\n")
    return "".join(out)


def _segments(text: str) -> tuple[list[str], list[tuple[ast.stmt, str]], list[str]]:
    lines = text.splitlines(keepends=True)
    tree = ast.parse(text)
    body = tree.body
    defs = [i for i, s in enumerate(body) if isinstance(s, (ast.FunctionDef, ast.ClassDef))]
    if len(defs) < 2:
        return lines, [], []
    first, last = defs[0], defs[-1]
    start = lambda s: min([s.lineno, *(d.lineno for d in getattr(s, "decorator_list", []))]) - 1
    head = lines[:start(body[first])]
    end_of_defs = start(body[last + 1]) if last + 1 < len(body) else len(lines)
    segs = []
    for j, i in enumerate(range(first, last + 1)):
        s = body[i]
        nxt = start(body[i + 1]) if i + 1 <= last else end_of_defs
        segs.append((s, "".join(lines[start(s):nxt])))
        del j
    return head, segs, lines[end_of_defs:]


def _needs(stmt: ast.stmt) -> set[str]:
    """Names a def needs defined before it: in its default arguments, decorators and bases."""
    parts: list[ast.AST] = []
    if isinstance(stmt, ast.FunctionDef):
        parts += stmt.args.defaults + stmt.args.kw_defaults + stmt.decorator_list  # type: ignore[operator]
    elif isinstance(stmt, ast.ClassDef):
        parts += stmt.bases + stmt.decorator_list
    return {n.id for p in parts if p is not None for n in ast.walk(p) if isinstance(n, ast.Name)}


def reorder(text: str, rng: random.Random) -> str:
    """The top-level functions and classes in another order (one that still runs)."""
    head, segs, tail = _segments(text)
    if not segs:
        return text
    for _ in range(200):
        order = segs[:]
        rng.shuffle(order)
        defined: set[str] = set()
        ok = True
        for stmt, _src in order:
            if _needs(stmt) & ({s.name for s, _ in segs} - defined):   # type: ignore[attr-defined]
                ok = False
                break
            defined.add(stmt.name)   # type: ignore[attr-defined]
        if ok and order != segs:
            break
    else:
        order = segs
    body = "".join(src if src.endswith("\n\n\n") else src.rstrip("\n") + "\n\n\n" for _, src in order)
    return "".join(head) + body + "".join(tail)


#: (file, statements to move, the helper's def and the call that replaces them): each applies
#: where its statements are found verbatim (reference and alternative solutions).
HELPERS = (
    ("word2vec.py",
     "    delta = y_hat.copy()                               # y_hat - y\n"
     "    delta[outsideWordIdx] -= 1.0\n",
     "def _residual(probs, index):\n    out = probs.copy()\n    out[index] -= 1.0\n    return out\n\n\n",
     "    delta = _residual(y_hat, outsideWordIdx)\n"),
    ("word2vec.py",
     "        s = sigmoid(-outsideVectors[k].dot(centerWordVec))\n",
     "def _negative_score(vectors, row, center):\n    return sigmoid(-vectors[row].dot(center))\n\n\n",
     "        s = _negative_score(outsideVectors, k, centerWordVec)\n"),
    ("parser_transitions.py",
     "            dependent = self.stack.pop(-2)\n"
     "            self.dependencies.append((self.stack[-1], dependent))\n",
     "def _left_arc(parse):\n    dependent = parse.stack.pop(-2)\n    parse.dependencies.append((parse.stack[-1], dependent))\n\n\n",
     "            _left_arc(self)\n"),
)


def extract_helper(name: str, text: str) -> str:
    """Statements of a solution moved into a helper function defined before the first def."""
    for file, moved, helper, call in HELPERS:
        if file == name and moved in text:
            text = text.replace(moved, call)
            at = re.search(r"^(def|class) ", text, re.M)
            pos = at.start() if at else len(text)
            return text[:pos] + helper + text[pos:]
    return text


SYNONYMS = (("the model", "our model"), ("because", "since"), ("vector", "vec"), ("gradient", "grad"),
            ("probability", "prob."), ("moves", "shifts"), ("word", "token"), ("So ", "Thus "))


def reword(text: str, rng: random.Random) -> str:
    """Written answers copied with a few words swapped and the lines wrapped differently."""
    for old, new in SYNONYMS:
        if rng.random() < 0.6:
            text = text.replace(old, new)
    out = []
    for line in text.splitlines(keepends=True):
        if len(line) > 90 and not line.lstrip().startswith(("|", "#", ">", "<!--", "$$")) and rng.random() < 0.7:
            cut = line.find(". ", 40)
            if cut > 0:
                line = line[:cut + 1] + "\n" + line[cut + 2:]
        out.append(line)
    return "".join(out)


TRANSFORMS = {"rename": rename, "reorder": reorder, "recomment": recomment, "reformat": reformat}


def disguise(name: str, text: str, steps: tuple[str, ...], rng: random.Random) -> str:
    """``text`` of the student file ``name`` with each of ``steps`` applied in order."""
    for step in steps:
        text = extract_helper(name, text) if step == "helper" else TRANSFORMS[step](text, rng)
    ast.parse(text, name)     # still Python
    return text
