"""What the training probes (probes_training.py) run with: the bundled treebank loaded once,
seeding and one thread, and the instruments that record what student code does while it trains
(forward and backward passes, ``zero_grad``, the optimizer, the loss, dev parsing), and the
stand-in for ``Parser.parse`` while the student's code trains (see ``instrumented_parsing``).

Runs next to untrusted student code, in the worker.
"""

from __future__ import annotations

import builtins
import contextlib
import copy
import dis
import importlib
import os
import random
import sys
import tempfile
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from .probes_model import build_model

# The stand-in model train_loop and train_setup use when the student's ParserModel cannot be
# built or run: a linear classifier over feature ids (not the assignment's model). The student kit
# does not ship it; there those checks say to fix the model checks first.
try:
    from .standin_model import linear_stand_in
except ImportError:
    linear_stand_in = None  # type: ignore[assignment]

N_FEATURES = 36
N_CLASSES = 3
HIDDEN_SIZE = 200
DROPOUT_PROB = 0.5
DEBUG_ARGV = ["run.py", "-d"]

_DATA: dict[str, tuple[Any, ...]] = {}
"""The loaded treebank, per data folder and support module (one entry in a worker)."""



def get_torch() -> Any:
    import torch  # lazily: only the model and training checks need it

    return torch


def treebank() -> tuple[Any, np.ndarray, list[Any], list[Any]]:
    """(parser, embeddings, train_examples, dev_data) of the reduced treebank, loaded once."""
    parser_utils: Any = importlib.import_module("utils.parser_utils")
    key = os.path.realpath("data")
    # The parser is an instance of this module's Parser (which the probes instrument), so a
    # re-imported module (a new submission in the same process) needs a new load.
    if key not in _DATA or _DATA[key][0] is not parser_utils:
        state = np.random.get_state()
        np.random.seed(0)  # the vectors of words without a pretrained one are random
        try:
            loaded = parser_utils.load_and_preprocess_data(reduced=True)
        finally:
            np.random.set_state(state)
        _DATA[key] = (parser_utils, *loaded[:4])
    return _DATA[key][1:]


def slices(n_train: int | None, n_dev: int | None) -> tuple[Any, np.ndarray, list[Any], list[Any]]:
    """A private parser copy and fresh lists (student code may mutate what it is given)."""
    parser, embeddings, train, dev = treebank()
    train = list(train if n_train is None else train[:int(n_train)])
    dev = copy.deepcopy(dev if n_dev is None else dev[:int(n_dev)])
    return copy.copy(parser), embeddings, train, dev


def seed_all(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed % 2**32)
    get_torch().manual_seed(seed)


@contextlib.contextmanager
def one_thread() -> Iterator[None]:
    """Train on one thread (as in the sandbox): reproducible, and fastest for this small model."""
    torch = get_torch()
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


def qualname(obj: Any) -> str:
    kind = obj if isinstance(obj, type) else type(obj)
    return f"{kind.__module__}.{kind.__qualname__}"


def plain(value: Any, depth: int = 0) -> Any:
    """A returned value as plain data: numbers as float, str, short lists; else its type name."""
    torch = get_torch()
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, float, np.generic)):
        return float(value)
    if isinstance(value, np.ndarray) and value.size == 1:
        return float(value.reshape(()))
    if isinstance(value, torch.Tensor) and value.numel() == 1:
        return float(value.detach().cpu().reshape(()))
    if isinstance(value, (tuple, list)) and depth == 0:
        return [plain(v, 1) for v in value[:5]]
    return f"<{type(value).__name__}>"


# -- instrumentation --------------------------------------------------------------------------


class Recorder:
    """What happened, in order. Events: F1/F0 a training-time forward in train/eval mode, P1/P0
    a forward during parser.parse, B a backward through the logits, Z zero_grad, S step."""

    def __init__(self) -> None:
        self.events: list[str] = []
        self.in_parse = 0
        self.uas: list[float] = []
        self.losses: list[float] = []
        self.last_output: Any = None  # the model's last training-time output (detached)
        self.loss_inputs: list[str] = []  # per loss call: what it was given (loss_input_kind)


def gold_transition_score(parser: Any, dataset: Any, eval_batch_size: int = 5000) -> tuple[float, list[Any]]:
    """What ``Parser.parse`` returns while student code trains: the share of the gold transitions
    of ``dataset`` the model picks (the most likely legal one) at each configuration of the gold
    parse, which the support code's ``create_instances`` lists; no parsing, so neither 3(c) nor 3(d)
    matters here. The dev UAS that counts is the grader's own parse of the trained model."""
    torch = get_torch()
    instances = parser.create_instances(dataset)
    if not instances:
        return 0.0, [[] for _ in dataset]
    right = 0
    size = max(1, int(eval_batch_size))
    for start in range(0, len(instances), size):
        chunk = instances[start:start + size]
        features = torch.from_numpy(np.array([f for f, _legal, _gold in chunk], dtype=np.int64))
        legal = np.array([legal for _f, legal, _gold in chunk], dtype=np.float32)
        with torch.no_grad():
            logits = parser.model(features)
        picked = np.argmax(np.asarray(logits.detach().cpu().numpy(), dtype=np.float64) + 10000 * legal, axis=1)
        right += int((picked == np.array([gold for _f, _legal, gold in chunk])).sum())
    return right / len(instances), [[] for _ in dataset]


@contextlib.contextmanager
def instrumented_parsing(rec: Recorder) -> Iterator[None]:
    """Parser.parse is gold_transition_score (its forwards marked, its score recorded)."""
    parser_utils: Any = importlib.import_module("utils.parser_utils")
    original_parse = parser_utils.Parser.parse

    def parse(self: Any, dataset: Any, eval_batch_size: int = 5000, device: Any = None) -> Any:  # device: placement
        rec.in_parse += 1
        try:
            result = gold_transition_score(self, dataset, eval_batch_size)
        finally:
            rec.in_parse -= 1
        rec.uas.append(float(result[0]))
        return result

    parser_utils.Parser.parse = parse
    try:
        yield
    finally:
        parser_utils.Parser.parse = original_parse


def instrument_model(model: Any, rec: Recorder) -> None:
    """Record every forward (with the model's mode), every backward through it, model.zero_grad."""
    torch = get_torch()
    original_forward = model.forward
    original_zero_grad = model.zero_grad

    def forward(*args: Any, **kwargs: Any) -> Any:
        rec.events.append(("P" if rec.in_parse else "F") + ("1" if model.training else "0"))
        out = original_forward(*args, **kwargs)
        if isinstance(out, torch.Tensor) and out.requires_grad:
            out.register_hook(lambda grad: rec.events.append("B"))
        if isinstance(out, torch.Tensor) and not rec.in_parse:
            rec.last_output = out.detach()
        return out

    def zero_grad(*args: Any, **kwargs: Any) -> Any:
        rec.events.append("Z")
        return original_zero_grad(*args, **kwargs)

    model.forward = forward
    model.zero_grad = zero_grad


def spy_adam(rec: Recorder) -> type:
    torch = get_torch()

    class SpyAdam(torch.optim.Adam):  # type: ignore[name-defined]  # torch is imported lazily
        """torch.optim.Adam that records its zero_grad and step calls."""

        def zero_grad(self, *args: Any, **kwargs: Any) -> Any:
            rec.events.append("Z")
            return super().zero_grad(*args, **kwargs)

        def step(self, *args: Any, **kwargs: Any) -> Any:
            rec.events.append("S")
            return super().step(*args, **kwargs)

    return SpyAdam


@contextlib.contextmanager
def loss_spy(rec: Recorder) -> Iterator[None]:
    """Record every value torch.nn.CrossEntropyLoss computes (information for the feedback)."""
    loss_class = get_torch().nn.CrossEntropyLoss
    original = loss_class.forward

    def forward(self: Any, *args: Any, **kwargs: Any) -> Any:
        loss = original(self, *args, **kwargs)
        with contextlib.suppress(Exception):
            rec.losses.append(float(loss.detach()))
        if args or "input" in kwargs:  # loss_func(input=..., target=...) is real too
            rec.loss_inputs.append(loss_input_kind(args[0] if args else kwargs["input"], rec.last_output))
        return loss

    loss_class.forward = forward
    try:
        yield
    finally:
        loss_class.forward = original


def loss_input_kind(given: Any, logits: Any) -> str:
    """What the loss was given, next to the model's last training output: "logits" (that output),
    "softmax" or "log_softmax" of it, or "other" (anything else, or nothing to compare with)."""
    torch = get_torch()
    try:
        given = given.detach()
        if logits is None or given.shape != logits.shape or given.dim() != 2:
            return "other"
        for kind, value in (("logits", logits), ("softmax", torch.softmax(logits, dim=1)),
                            ("log_softmax", torch.log_softmax(logits, dim=1))):
            if torch.allclose(given.to(value.dtype), value, rtol=1e-4, atol=1e-6):
                return kind
    except Exception:  # a value that cannot be compared is "other"
        pass
    return "other"


class ModelUnusable(Exception):
    """The student's ParserModel cannot be built or run, and there is no stand-in (student kit)."""


def model_for_training(embeddings: np.ndarray) -> tuple[Any, str]:
    """The student's ParserModel if it builds and maps a batch to (batch, 3) logits, else the
    linear stand-in; and '' or why the stand-in was used. Without a stand-in (the student kit)
    raises ModelUnusable."""
    torch = get_torch()
    try:
        model = build_model(embeddings=embeddings, n_features=N_FEATURES, hidden_size=HIDDEN_SIZE,
                            n_classes=N_CLASSES, dropout_prob=DROPOUT_PROB)
        out = model(torch.zeros((2, N_FEATURES), dtype=torch.long))
        ok = (isinstance(model, torch.nn.Module) and isinstance(out, torch.Tensor)
              and tuple(out.shape) == (2, N_CLASSES) and out.requires_grad and bool(torch.isfinite(out).all()))
        if not ok:
            raise ValueError(f"forward on a (2, {N_FEATURES}) batch returned {type(out).__name__} "
                             f"{tuple(getattr(out, 'shape', ()))}, not finite (2, {N_CLASSES}) logits "
                             "that require grad")
        return model, ""
    except Exception as exc:  # any failure: judge run.py with the stand-in
        reason = f"{type(exc).__name__}: {exc}"[:500]
    if linear_stand_in is None:
        raise ModelUnusable(reason)
    return linear_stand_in(embeddings, N_FEATURES, HIDDEN_SIZE, N_CLASSES, DROPOUT_PROB), reason


def run_main(argv: list[str], replace: dict[str, Callable[[Any], Any]],
             stop: type[BaseException] | None = None) -> dict[str, Any]:
    """Execute run.py as ``__main__`` (``python -O run.py -d``: no assert runs, an older course's torch
    version check say); each module-level name in ``replace`` is passed, when run.py defines it, through
    its function (to wrap or replace it). Returns the namespace; ``stop``, raised by one, ends it there."""
    path = os.path.join(os.getcwd(), "run.py")
    with open(path, encoding="utf-8") as f:
        code = compile(f.read(), path, "exec", optimize=1)  # as python -O: an assert defines nothing

    class Namespace(dict):  # module-level assignments go through __setitem__
        def __setitem__(self, key: str, value: Any) -> None:
            if key in replace and callable(value):
                value = replace[key](value)
            super().__setitem__(key, value)

    namespace = Namespace(__name__="__main__", __file__=path, __builtins__=builtins)
    saved_argv = sys.argv
    sys.argv = list(argv)
    try:
        exec(code, namespace)  # student code runs here anyway; this is its own file
    except BaseException as exc:
        if stop is None or not isinstance(exc, stop):
            raise
    finally:
        sys.argv = saved_argv
    return dict(namespace)


# -- names only run.py's main block defines ---------------------------------------------------------


class _TrainReached(BaseException):
    """Ends run.py's main block where it calls train (a BaseException: no ``except Exception`` in
    student code swallows it)."""


_MAIN: dict[str, Any] = {}  # run.py's main block up to its train call (once a worker): namespace, parser


def _global_names(code: Any) -> set[str]:
    """The global names ``code`` (and the functions defined in it) reads (not attribute names)."""
    names = {ins.argval for ins in dis.get_instructions(code)
             if ins.opname in ("LOAD_GLOBAL", "LOAD_NAME") and isinstance(ins.argval, str)}
    for const in code.co_consts:
        if hasattr(const, "co_code"):
            names |= _global_names(const)
    return names


def missing_globals(run: Any) -> list[str]:
    """Names run.train and run.train_for_epoch (the student's own) read as globals that run.py's
    module does not define (nor builtins): those the course's ``python run.py`` defines under
    ``if __name__ == "__main__":`` (a real pattern: the optimizer built from a global ``model``)."""
    module_names = vars(run)
    found: set[str] = set()
    for name in ("train", "train_for_epoch"):
        fn = getattr(run, name, None)
        code = getattr(fn, "__code__", None)
        if code is not None and getattr(fn, "__globals__", None) is module_names:
            found |= _global_names(code)
    return sorted(n for n in found if n not in module_names and not hasattr(builtins, n))


def _main_namespace() -> tuple[dict[str, Any], Any]:
    """run.py's main block (``python run.py -d``) up to its call of train, which is not made: its
    names and the parser it passes train."""
    if "namespace" not in _MAIN:
        seen: dict[str, Any] = {}

        def reach(_original: Callable[..., Any]) -> Callable[..., Any]:
            def train(*args: Any, **kwargs: Any) -> Any:
                seen["parser"] = args[0] if args else kwargs.get("parser")
                raise _TrainReached
            return train

        state = np.random.get_state()
        try:
            _MAIN["namespace"] = run_main(DEBUG_ARGV, {"train": reach}, stop=_TrainReached)
        except Exception:  # a main block that fails supplies nothing
            _MAIN["namespace"] = {}
        finally:
            np.random.set_state(state)
        _MAIN["parser"] = seen.get("parser")
    return _MAIN["namespace"], _MAIN["parser"]


@contextlib.contextmanager
def main_globals(run: Any, parser: Any) -> Iterator[list[str]]:
    """While the grader calls train or train_for_epoch: the names they read that only run.py's main
    block defines (missing_globals) are supplied from the student's own main block, run up to its
    train call, as module globals of run.py; main's parser is ``parser`` and main's model is
    ``parser.model`` (the ones the grader trains), any other value is main's own. Yields the names
    supplied (none: nothing was run); a name main does not define either stays missing."""
    missing = missing_globals(run)
    if not missing:
        yield []
        return
    namespace, main_parser = _main_namespace()
    supplied: dict[str, Any] = {}
    for name in missing:
        if name not in namespace:
            continue
        value = namespace[name]
        if main_parser is not None and value is main_parser:
            value = parser
        elif main_parser is not None and value is getattr(main_parser, "model", object()):
            value = getattr(parser, "model", None)
        supplied[name] = value
    for name, value in supplied.items():
        setattr(run, name, value)
    try:
        yield sorted(supplied)
    finally:
        for name in supplied:
            with contextlib.suppress(AttributeError):
                delattr(run, name)


def new_output_path() -> str:
    return os.path.join(tempfile.mkdtemp(prefix="grader-train-", dir=os.getcwd()), "model.weights")
