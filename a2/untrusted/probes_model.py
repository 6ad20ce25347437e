"""Probes for parser_model.py (3(e)(iii)). Runs next to untrusted student code, in the worker.

Every probe builds the student's ``ParserModel`` with every constructor argument passed
explicitly (students change the defaults), optionally overwrites some of its parameters with
values the grader sent (``assign``: parameter name -> array already in the student's layout),
runs it, and returns plain data: parameter names and shapes, outputs, gradients. Which student
parameter plays which role, what the outputs should be, and whether they are right is decided
by the trusted grader. torch is imported on first use, so workers that never grade the model
do not pay for it.
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np


def _torch() -> Any:
    import torch  # lazily: only the model and training checks need it

    return torch


def build_model(*, embeddings: np.ndarray, n_features: int, hidden_size: int, n_classes: int,
                dropout_prob: float) -> Any:
    """The student's ParserModel, every argument given explicitly (also used by probes_training)."""
    module = importlib.import_module("parser_model")
    return module.ParserModel(np.array(embeddings, dtype=np.float32), n_features=int(n_features),
                              hidden_size=int(hidden_size), n_classes=int(n_classes),
                              dropout_prob=float(dropout_prob))


def _as_array(value: Any) -> np.ndarray:
    """A tensor (or anything array-like) as a float64 numpy array, detached from the graph."""
    torch = _torch()
    if isinstance(value, torch.Tensor):
        return value.detach().cpu().double().numpy()
    return np.asarray(value, dtype=np.float64)


def _output(value: Any) -> dict[str, Any]:
    """What a student method returned: its type and, when it is numeric, its values."""
    torch = _torch()
    kind = "tensor" if isinstance(value, torch.Tensor) else type(value).__name__
    try:
        return {"type": kind, "value": _as_array(value)}
    except (TypeError, ValueError, RuntimeError):
        return {"type": kind, "value": None}


def _assign(model: Any, assign: dict[str, np.ndarray] | None) -> None:
    """Overwrite the named parameters in place with the grader's values (same layout)."""
    if not assign:
        return
    torch = _torch()
    params = {**_plain_tensors(model), **dict(model.named_parameters())}
    with torch.no_grad():
        for name, value in assign.items():
            param = params[name]
            param.copy_(torch.as_tensor(np.asarray(value)).reshape(param.shape).to(param.dtype))


def _index_tensor(w: np.ndarray) -> Any:
    return _torch().as_tensor(np.asarray(w, dtype=np.int64))


def model_describe(*, embeddings: np.ndarray, n_features: int, hidden_size: int, n_classes: int,
                   dropout_prob: float, values: bool = False) -> dict[str, Any]:
    """Construct the model and report its parameters, submodules, ``embeddings`` and ``dropout``.

    values: also return every parameter's values (for the initialisation statistics).
    """
    torch = _torch()
    nn = torch.nn
    model = build_model(embeddings=embeddings, n_features=n_features, hidden_size=hidden_size,
                        n_classes=n_classes, dropout_prob=dropout_prob)
    if not isinstance(model, nn.Module):
        return {"is_module": False, "type": type(model).__name__}
    params = []
    for name, param in model.named_parameters():
        entry: dict[str, Any] = {"name": str(name), "shape": [int(s) for s in param.shape],
                                 "requires_grad": bool(param.requires_grad)}
        if values:
            entry["value"] = _as_array(param)
        params.append(entry)
    modules = [{"name": str(name), "type": f"{type(m).__module__}.{type(m).__qualname__}",
                "linear": isinstance(m, nn.Linear), "embedding": isinstance(m, nn.Embedding)}
               for name, m in model.named_modules() if name]

    emb = getattr(model, "embeddings", None)
    if isinstance(emb, nn.Parameter):
        emb_info: dict[str, Any] = {"kind": "parameter", "value": _as_array(emb),
                                    "requires_grad": bool(emb.requires_grad)}
    elif isinstance(emb, torch.Tensor):
        emb_info = {"kind": "tensor", "value": _as_array(emb)}
    elif emb is None:
        emb_info = {"kind": "missing"}
    else:
        emb_info = {"kind": f"{type(emb).__module__}.{type(emb).__qualname__}"}

    drop = getattr(model, "dropout", None)
    p = getattr(drop, "p", None) if drop is not None else None
    drop_info = {"exists": drop is not None,
                 "type": None if drop is None else f"{type(drop).__module__}.{type(drop).__qualname__}",
                 "is_module": isinstance(drop, nn.Module),
                 "p": float(p) if isinstance(p, (int, float)) and not isinstance(p, bool) else None}
    tensors = [{"name": n, "shape": [int(s) for s in t.shape]} for n, t in _plain_tensors(model).items()]
    return {"is_module": True, "parameters": params, "modules": modules,
            "embeddings": emb_info, "dropout": drop_info, "tensors": tensors}


def model_run(*, embeddings: np.ndarray, n_features: int, hidden_size: int, n_classes: int,
              dropout_prob: float, assign: dict[str, np.ndarray], calls: list[dict[str, Any]],
              seed: int = 0) -> list[dict[str, Any]]:
    """Construct the model, set ``assign``, then run each call in order and return its output.

    A call is {"method": "forward" | "embedding_lookup", "mode": "train" | "eval",
    "w": int array (batch, n_features), "assign": optional further parameter values}.
    torch's generator is seeded with ``seed`` first, so train-mode dropout is reproducible.
    """
    torch = _torch()
    model = build_model(embeddings=embeddings, n_features=n_features, hidden_size=hidden_size,
                        n_classes=n_classes, dropout_prob=dropout_prob)
    _assign(model, assign)
    torch.manual_seed(int(seed))
    outputs = []
    for call in calls:
        _assign(model, call.get("assign"))
        model.train(call["mode"] == "train")
        w = _index_tensor(call["w"])
        _replace_lookup(model, call.get("lookup"))
        if call["method"] == "embedding_lookup":
            out = model.embedding_lookup(w)
        else:
            out = model(w)
        outputs.append(_output(out))
    return outputs


def model_gradients(*, embeddings: np.ndarray, n_features: int, hidden_size: int, n_classes: int,
                    assign: dict[str, np.ndarray], w: np.ndarray,
                    upstream: np.ndarray, lookup: np.ndarray | None = None) -> dict[str, Any]:
    """Backward of sum(logits * upstream) in train mode (dropout_prob 0): every parameter's grad.

    A backward that cannot run (the logits do not require grad) is reported as data.
    """
    torch = _torch()
    model = build_model(embeddings=embeddings, n_features=n_features, hidden_size=hidden_size,
                        n_classes=n_classes, dropout_prob=0.0)
    _assign(model, assign)
    _replace_lookup(model, lookup)
    model.train()
    for param in model.parameters():
        param.grad = None
    logits = model(_index_tensor(w))
    result: dict[str, Any] = {"logits": _output(logits)["value"],
        "requires_grad": {str(n): bool(p.requires_grad) for n, p in model.named_parameters()},
        "output_requires_grad": bool(getattr(logits, "requires_grad", False)),
        "backward_error": None, "grads": {}}
    try:
        loss = (logits * torch.as_tensor(np.asarray(upstream), dtype=logits.dtype)).sum()
        loss.backward()
    except Exception as exc:  # reported: "no gradient reaches anything"
        result["backward_error"] = f"{type(exc).__name__}: {exc}"
        return result
    result["grads"] = {str(n): (None if p.grad is None else _as_array(p.grad))
                       for n, p in model.named_parameters()}
    return result


def _plain_tensors(model: Any) -> dict[str, Any]:
    """Tensors the model holds that are not parameters (buffers, plain tensor attributes such as
    ``self.embeddings = torch.tensor(embeddings)``), by dotted name: the grader can place its test
    values in them too, so a representation it can handle costs only the structure check."""
    torch = _torch()
    found: dict[str, Any] = {}
    for prefix, module in model.named_modules():
        for name, value in vars(module).items():
            if isinstance(value, torch.Tensor) and not isinstance(value, torch.nn.Parameter):
                found[f"{prefix}.{name}" if prefix else name] = value
    for name, buf in model.named_buffers():
        found[str(name)] = buf
    return found


def _replace_lookup(model: Any, lookup: np.ndarray | None) -> None:
    """With ``lookup`` (the grader's values of embedding_lookup(w) for this call's w), forward
    gets those values from self.embedding_lookup, so that it is judged apart from a wrong lookup;
    without, the student's own method is used. Data only: no computation is substituted."""
    model.__dict__.pop("embedding_lookup", None)
    if lookup is not None:
        torch = _torch()
        held = getattr(model, "embeddings", None)
        dtype = held.dtype if isinstance(held, torch.Tensor) and held.is_floating_point() else torch.float32
        values = torch.as_tensor(np.asarray(lookup)).to(dtype)
        model.__dict__["embedding_lookup"] = lambda w: values


PROBES = {
    "model_describe": model_describe,
    "model_run": model_run,
    "model_gradients": model_gradients,
}
