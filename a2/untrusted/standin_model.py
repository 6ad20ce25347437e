"""The model train_loop and train_setup run the student's run.py with when their ParserModel
cannot be built or run: a linear classifier over the feature ids (one weight row per token id,
summed over the 36 features), deliberately not the assignment's model (no hidden layer, no
dropout in forward). It takes a (batch, 36) id tensor to (batch, 3) logits that require grad,
with parameters for Adam and a state_dict to save.

It has the whole public API of the assignment's ParserModel, so that a run.py reading any of it
(``parser.model.embeddings``, ``.dropout``, ``.hidden_size``, ``embedding_lookup(w)``, the four
weight and bias parameters...) runs as with a right model: the constructor's arguments under their
names, ``embeddings`` as a trainable parameter, the assignment's parameters in their shapes (forward
does not use them), ``dropout`` and ``embedding_lookup``. tests/test_standins.py enumerates
the reference's names and fails when one is missing here.

Runs next to untrusted student code, in the worker. Not shipped in the student kit: there those
checks say to fix the model checks first.
"""

from __future__ import annotations

from typing import Any


def _lookup(model: Any, w: Any) -> Any:
    """(batch, n_features) ids -> (batch, n_features * embed_size): each row's vectors end to end."""
    return model.embeddings[w].reshape(w.shape[0], -1)


def linear_stand_in(embeddings: Any, n_features: int = 36, hidden_size: int = 200, n_classes: int = 3,
                    dropout_prob: float = 0.5) -> Any:
    """The stand-in, built with the arguments the student's ParserModel was given."""
    import torch  # lazily: only the training checks need it

    nn = torch.nn
    n_tokens, embed_size = int(embeddings.shape[0]), int(embeddings.shape[1])

    class LinearStandIn(nn.Module):  # type: ignore[name-defined]  # torch is imported lazily
        embedding_lookup = _lookup

        def __init__(self) -> None:
            super().__init__()
            self.n_features, self.n_classes, self.hidden_size = n_features, n_classes, hidden_size
            self.dropout_prob, self.embed_size = dropout_prob, embed_size
            self.embeddings = nn.Parameter(torch.as_tensor(embeddings, dtype=torch.float32).clone())
            self.embed_to_hidden_weight = nn.Parameter(torch.zeros(n_features * embed_size, hidden_size))
            self.embed_to_hidden_bias = nn.Parameter(torch.zeros(hidden_size))
            self.dropout = nn.Dropout(dropout_prob)
            self.hidden_to_logits_weight = nn.Parameter(torch.zeros(hidden_size, n_classes))
            self.hidden_to_logits_bias = nn.Parameter(torch.zeros(n_classes))
            self.weight_per_id = nn.Parameter(0.01 * torch.randn(n_tokens, n_classes))
            self.bias = nn.Parameter(torch.zeros(n_classes))

        def forward(self, w: Any) -> Any:
            return self.weight_per_id[w].sum(dim=1) + self.bias

    return LinearStandIn()
