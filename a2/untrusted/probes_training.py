"""Probes for run.py (3(e)(iii)): train_for_epoch, train, and training on the bundled treebank.

Runs next to untrusted student code, in the worker. The probes load the bundled treebank with
the support code (``utils.parser_utils.load_and_preprocess_data(reduced=True)`` reading
``./data``), run the student's functions with instrumented objects, and report what happened
as plain data: the sequence of forward passes (and the model's mode in each), backward passes,
``zero_grad`` and ``step`` calls, the optimizer and loss function ``train`` created, what it
saved, and the dev UAS of each evaluation. The trusted grader judges all of it.

Isolation: while student code trains, ``Parser.parse`` is a stand-in that scores the model on the
gold transitions of the dev set (no parsing, so neither a 3(c) nor a 3(d) bug costs anything
here, and no parser runs in this process); ``train_for_epoch`` and ``train`` get the student's
ParserModel when it builds and runs, else a linear stand-in (standin_model.py, not in the student
kit); ``train`` is run with a stand-in ``train_for_epoch``. Only ``train_uas`` runs the student's
model, ``train`` and ``train_for_epoch`` together; the dev UAS that counts is the trusted grader's
own parse of a hidden dev set, with the assignment's forward computed there from the trained
parameters this worker returns as arrays (no student function is called while it scores).

A ``train`` (or ``train_for_epoch``) that reads names only run.py's ``__main__`` block defines
(a real pattern: the optimizer built from a global ``model``) gets them from that block, run up to
its call of train (training_support.main_globals): every check calls the functions the same way,
with the same sizing.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import inspect
import math
import os
import time
import types
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from .probes_model import _plain_tensors, build_model
from .training_support import (
    DROPOUT_PROB,
    HIDDEN_SIZE,
    N_CLASSES,
    N_FEATURES,
    Recorder,
    get_torch,
    instrument_model,
    instrumented_parsing,
    loss_spy,
    main_globals,
    model_for_training,
    new_output_path,
    one_thread,
    plain,
    qualname,
    seed_all,
    slices,
    spy_adam,
    treebank,
)

# -- the student's own signature -------------------------------------------------------------------

#: The parameters of the assignment's train_for_epoch; a real run.py adds a ``device`` it passes itself.
LOOP_PARAMETERS = 6


def placed(loop: Callable[..., Any]) -> Callable[..., Any]:
    """The student's train_for_epoch, given a required ``device`` parameter it added beyond the
    assignment's six (a real shape: their train passes the device it chose, and so works with
    ``python run.py``) as the CPU, where the grader trains; unchanged otherwise."""
    try:
        params = list(inspect.signature(loop).parameters.values())
    except (TypeError, ValueError):
        return loop
    extra = [p for p in params[LOOP_PARAMETERS:] if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    if any(p.name == "device" and p.default is p.empty for p in extra):
        return functools.partial(loop, device=get_torch().device("cpu"))
    return loop


# -- train_for_epoch ----------------------------------------------------------------------------


def train_loop(*, seed: int, n_train: int, n_dev: int, batch_size: int, lr: float) -> dict[str, Any]:
    """run.train_for_epoch on a slice of the treebank, with a spy Adam and loss; the model is put
    in eval mode first (as after the previous epoch's evaluation)."""
    torch = get_torch()
    run: Any = importlib.import_module("run")
    parser, embeddings, train, dev = slices(n_train, n_dev)
    rec = Recorder()
    with one_thread():
        seed_all(seed)
        model, stand_in = model_for_training(embeddings)
        parser.model = model
        instrument_model(model, rec)
        optimizer = spy_adam(rec)(model.parameters(), lr=float(lr))
        for param in model.parameters():
            param.grad = None
        model.eval()
        with instrumented_parsing(rec), loss_spy(rec), main_globals(run, parser) as supplied:
            returned = placed(run.train_for_epoch)(parser, train, dev, optimizer, torch.nn.CrossEntropyLoss(),
                                                   int(batch_size))
    return {"events": rec.events, "losses": rec.losses, "uas": rec.uas, "returned": plain(returned),
            "n_minibatches": math.ceil(len(train) / int(batch_size)), "stand_in": stand_in,
            "main_globals": supplied, "loss_inputs": rec.loss_inputs}


# -- train ----------------------------------------------------------------------------------------


class _UAS(float):
    """The stand-in train_for_epoch's return value: a float, which also unpacks as a pair for a
    train written for a train_for_epoch that returns two values (real variants: (UAS, loss) and
    (loss, UAS)): both items are the UAS, so either order reads it where it expects it."""

    def _pair(self) -> tuple[float, float]:
        return (float(self), float(self))

    def __iter__(self) -> Iterator[float]:
        return iter(self._pair())

    def __getitem__(self, index: int) -> float:
        return self._pair()[index]

    def __len__(self) -> int:
        return 2


class _SetupSession:
    """Stands in for train_for_epoch while train runs: records what it is given, changes the
    weights a little (so each epoch's state differs) and returns the grader's UAS sequence."""

    def __init__(self, fake_uas: list[float], logits: np.ndarray, targets: np.ndarray):
        self.fake_uas = [float(u) for u in fake_uas]
        self.logits = logits
        self.targets = targets
        self.calls: list[dict[str, Any]] = []
        self.snapshots: list[dict[str, Any]] = []
        self.given: tuple[Any, Any, Any] | None = None  # (parser, train, dev) passed to train
        self.train_args: dict[str, Any] = {}

    def train_for_epoch(self, parser: Any, train_data: Any, dev_data: Any, optimizer: Any,
                        loss_func: Any, batch_size: Any, *_more: Any, **_named: Any) -> _UAS:
        """(What the student's train passes beyond the assignment's arguments, a device of its own
        say, is taken and not used: it stands in for the student's train_for_epoch, which takes it.)"""
        torch = get_torch()
        model = getattr(parser, "model", None)
        info: dict[str, Any] = {"batch_size": plain(batch_size), "optimizer": qualname(optimizer),
                                "is_adam": isinstance(optimizer, torch.optim.Adam),
                                "loss": qualname(loss_func)}
        if self.given is not None:
            info["same_data"] = (parser is self.given[0] and train_data is self.given[1]
                                 and dev_data is self.given[2])
        groups = getattr(optimizer, "param_groups", None) or []
        info["lrs"] = [plain(g.get("lr")) for g in groups]
        given = {id(p) for g in groups for p in g.get("params", [])}
        wanted = {id(p) for p in model.parameters()} if isinstance(model, torch.nn.Module) else set()
        info["params_wanted"] = len(wanted)
        info["params_missing"] = len(wanted - given)
        info["params_foreign"] = len(given - wanted)
        try:
            value = loss_func(torch.as_tensor(self.logits, dtype=torch.float32),
                              torch.as_tensor(self.targets, dtype=torch.long))
            info["loss_value"] = plain(value)
        except Exception as exc:  # reported as data
            info["loss_error"] = f"{type(exc).__name__}: {exc}"[:300]
        if isinstance(model, torch.nn.Module):
            with torch.no_grad():
                for param in model.parameters():
                    param.add_(0.01 * torch.randn_like(param))
            self.snapshots.append({k: v.detach().clone() for k, v in model.state_dict().items()})
        uas = self.fake_uas[min(len(self.calls), len(self.fake_uas) - 1)]
        self.calls.append(info)
        return _UAS(uas)

    def saved(self, path: str) -> dict[str, Any]:
        """What is at ``path`` after training, and which epochs' weights it equals."""
        torch = get_torch()
        if not isinstance(path, str) or not os.path.isfile(path):
            return {"exists": False}
        try:
            obj = torch.load(path, map_location="cpu", weights_only=True)
        except Exception as exc:  # reported as data
            return {"exists": True, "error": f"{type(exc).__name__}: {exc}"[:300]}
        if not isinstance(obj, dict):
            return {"exists": True, "type": qualname(obj)}
        matches = [i for i, snap in enumerate(self.snapshots)
                   if set(snap) == set(obj) and all(isinstance(obj[k], torch.Tensor) and obj[k].shape == v.shape
                                                    and torch.equal(obj[k], v) for k, v in snap.items())]
        return {"exists": True, "keys": sorted(str(k) for k in obj), "matches": matches}


def train_setup(*, seed: int, n_train: int, n_dev: int, batch_size: int, n_epochs: int, lr: float,
                fake_uas: list[float], logits: np.ndarray, targets: np.ndarray) -> dict[str, Any]:
    """run.train with a stand-in train_for_epoch (names train reads that only run.py's main block
    defines are supplied from that block: main_globals)."""
    run: Any = importlib.import_module("run")
    parser, embeddings, train, dev = slices(n_train, n_dev)
    session = _SetupSession(fake_uas, logits, targets)
    result: dict[str, Any] = {}
    with one_thread():
        seed_all(seed)
        model, result["stand_in"] = model_for_training(embeddings)
        parser.model = model
        result["state_keys"] = sorted(model.state_dict())
        session.given = (parser, train, dev)
        output_path = new_output_path()
        session.train_args = {"output_path": output_path, "batch_size": float(batch_size),
                              "n_epochs": float(n_epochs), "lr": float(lr)}
        with main_globals(run, parser) as result["main_globals"]:
            original = run.train_for_epoch
            run.train_for_epoch = session.train_for_epoch
            try:
                run.train(parser, train, dev, output_path, batch_size=int(batch_size),
                          n_epochs=int(n_epochs), lr=float(lr))
            finally:
                run.train_for_epoch = original
    result.update(calls=session.calls, train_args=session.train_args,
                  saved=session.saved(str(session.train_args.get("output_path"))))
    return result


# -- training end to end ---------------------------------------------------------------------------


def train_cost(*, seed: int, n_train: int, n_dev: int, batch_size: int, lr: float,
               eval_rows: int, substitute: tuple[str, ...] = (), course_code: str = "") -> dict[str, Any]:
    """What training costs with the student's model and train_for_epoch, measured on its first
    minibatches: wall seconds per training example (one train_for_epoch on ``n_train`` examples,
    its dev evaluation on ``n_dev`` sentences), per evaluated configuration (the model's eval-mode
    forward on ``eval_rows`` rows), and the bundled dev set's configurations per sentence. Wall
    time, so that a container's CPU quota is in it; the grader sizes train_uas's training by it.
    ``substitute``, ``course_code``: as for train_uas."""
    torch = get_torch()
    run: Any = importlib.import_module("run")
    parser, embeddings, train, dev = slices(n_train, n_dev)
    _all_parser, _emb, _train, all_dev = treebank()
    with one_thread(), course_parts(run, substitute, course_code) as (build, _train_fn):
        seed_all(seed)
        model = build(embeddings=embeddings, n_features=N_FEATURES, hidden_size=HIDDEN_SIZE,
                      n_classes=N_CLASSES, dropout_prob=DROPOUT_PROB)
        parser.model = model
        optimizer = torch.optim.Adam(model.parameters(), lr=float(lr))
        with instrumented_parsing(Recorder()), main_globals(run, parser):
            started = time.monotonic()
            placed(run.train_for_epoch)(parser, train, dev, optimizer, torch.nn.CrossEntropyLoss(), int(batch_size))
            train_seconds = time.monotonic() - started
        features = np.stack([row[0] for row in train[:int(eval_rows)]]).astype(np.int64)
        model.eval()
        started = time.monotonic()
        with torch.no_grad():
            model(torch.from_numpy(features))
        eval_seconds = time.monotonic() - started
    configurations = sum(2 * len(sentence["word"]) for sentence in all_dev) / max(len(all_dev), 1)
    return {"train_per_example": train_seconds / max(len(train), 1),
            "eval_per_row": eval_seconds / max(len(features), 1),
            "rows_per_sentence": configurations}


def train_uas(*, seed: int, n_epochs: int, batch_size: int, lr: float, own_parse: bool = False,
              n_train: int | None = None, n_dev: int | None = None,
              substitute: tuple[str, ...] = (), course_code: str = "") -> dict[str, Any]:
    """The student's ParserModel trained by their train() on the reduced treebank; the score of
    every evaluation (the stand-in parse of ``instrumented_parsing``), and, when ``own_parse`` (the
    student kit, which has no other parser), the dev UAS of the student's own parse of the final
    model in eval mode. The full grader parses its hidden dev set itself, from the trained model's
    parameters returned as plain arrays (``arrays``: trained_arrays). Names train reads that only
    run.py's main block defines are supplied from that block (main_globals): one route, one
    sizing. ``substitute``: the parts ("model", "loop", "setup") the course's code replaces, for
    the counterfactual run of check 5.9; ``course_code``: that code's text (course_parts)."""
    torch = get_torch()
    run: Any = importlib.import_module("run")
    parser, embeddings, train, dev = slices(n_train, n_dev)
    rec = Recorder()
    result: dict[str, Any] = {}
    started = time.monotonic()
    with one_thread(), course_parts(run, substitute, course_code) as (build, train_fn):
        with instrumented_parsing(rec), loss_spy(rec):
            seed_all(seed)
            model = build(embeddings=embeddings, n_features=N_FEATURES, hidden_size=HIDDEN_SIZE,
                          n_classes=N_CLASSES, dropout_prob=DROPOUT_PROB)
            parser.model = model
            with main_globals(run, parser) as result["main_globals"]:
                train_fn(parser, train, dev, new_output_path(), batch_size=int(batch_size),
                         n_epochs=int(n_epochs), lr=float(lr))
        n_evaluations = len(rec.uas)
        final = None
        arrays = None
        if isinstance(getattr(parser, "model", None), torch.nn.Module):
            parser.model.eval()
            if own_parse:
                final = parser.parse(dev)[0]
            arrays = trained_arrays(parser.model, embeddings.shape)
    result.update(uas=rec.uas[:n_evaluations], final_uas=final, losses=rec.losses,
                  seconds=time.monotonic() - started, trained=arrays is not None, arrays=arrays)
    return result


@contextlib.contextmanager
def course_parts(run: Any, substitute: tuple[str, ...] = (),
                 course_code: str = "") -> Iterator[tuple[Callable[..., Any], Callable[..., Any]]]:
    """(the model builder, train) to use: the student's, except the parts named in ``substitute``,
    which the course's code replaces: "model" ParserModel, "loop" train_for_epoch (as run.py's
    global, so the student's train calls it), "setup" train. That code (a2/course_parts.py, the
    assignment's solution) is never in this folder: its text comes with the counterfactual call
    only, ``course_code``, and runs here as a module of its own, kept in no sys.modules. The
    student kit has no course code: there a substitute raises."""
    parts = set(substitute or ())
    course: Any = None
    if parts:
        if not course_code:
            raise RuntimeError("the course's code to run in place of a failing part is not available here")
        course = types.ModuleType("course_parts")
        exec(compile(course_code, "course_parts.py", "exec"), course.__dict__)  # the grader's own code
    build = course.assignment_model if "model" in parts else build_model
    original = run.train_for_epoch
    if "loop" in parts:
        run.train_for_epoch = course.course_train_for_epoch
    train_fn = course.course_train(lambda: placed(run.train_for_epoch)) if "setup" in parts else run.train
    try:
        yield build, train_fn
    finally:
        run.train_for_epoch = original


def trained_arrays(model: Any, embeddings_shape: tuple[int, ...]) -> dict[str, Any]:
    """The trained model's floating-point parameters and plain tensors (buffers, tensor
    attributes) as numpy arrays, by name, as data: the trusted grader maps them to the model's
    roles by name and shape (as check 5.1 does) and computes the dev logits itself. Only arrays
    with as many values as one of the roles holds are sent (a large unrelated tensor must not
    make the reply too big to carry)."""
    torch = get_torch()
    n_tokens, embed_size = (int(d) for d in embeddings_shape)
    sizes = {n_tokens * embed_size, N_FEATURES * embed_size * HIDDEN_SIZE, HIDDEN_SIZE,
             HIDDEN_SIZE * N_CLASSES, N_CLASSES}

    def entry(name: str, tensor: Any) -> dict[str, Any] | None:
        if not (isinstance(tensor, torch.Tensor) and tensor.is_floating_point() and tensor.numel() in sizes):
            return None
        value = tensor.detach().cpu()
        value = value.double() if value.dtype == torch.float64 else value.float()
        return {"name": str(name), "shape": [int(d) for d in tensor.shape], "value": value.numpy().copy()}

    params = [e for n, t in model.named_parameters() if (e := entry(n, t)) is not None]
    named = {p["name"] for p in params}
    tensors = [e for n, t in _plain_tensors(model).items() if n not in named and (e := entry(n, t)) is not None]
    return {"parameters": params, "tensors": tensors}


PROBES = {
    "train_loop": train_loop,
    "train_setup": train_setup,
    "train_cost": train_cost,
    "train_uas": train_uas,
}
