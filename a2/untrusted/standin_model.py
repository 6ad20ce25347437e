"""The model train_loop and train_setup run the student's run.py with when their ParserModel
cannot be built or run: a linear classifier over the feature ids (one weight row per token id,
summed over the 36 features), deliberately not the assignment's model (no embedding lookup, no
hidden layer, no dropout). It only has to take a (batch, 36) id tensor to (batch, 3) logits that
require grad, with parameters for Adam and a state_dict to save.

Runs next to untrusted student code, in the worker. Not shipped in the student kit: there those
checks say to fix the model checks first.
"""

from __future__ import annotations

from typing import Any


def linear_stand_in(n_tokens: int, n_classes: int) -> Any:
    import torch  # noqa: PLC0415 - lazily: only the training checks need it

    class LinearStandIn(torch.nn.Module):  # type: ignore[name-defined]  # torch is imported lazily
        def __init__(self) -> None:
            super().__init__()
            self.weight_per_id = torch.nn.Parameter(0.01 * torch.randn(n_tokens, n_classes))
            self.bias = torch.nn.Parameter(torch.zeros(n_classes))

        def forward(self, w: Any) -> Any:
            return self.weight_per_id[w].sum(dim=1) + self.bias

    return LinearStandIn()
