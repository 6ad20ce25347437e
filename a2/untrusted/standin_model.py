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
    import torch  # noqa: PLC0415 - lazily: only the training checks need it

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


# -- the counterfactual of train_uas (5.9) ---------------------------------------------------------
# When 5.9 fails and a check of the model, of train_for_epoch or of train fails too, 5.9 runs once
# more with working code below in place of the failing part (grader.run.settle): if it then
# passes, that part's bug explains 5.9's failure. The worker returns only the trained parameters;
# the trusted grader scores them (a2/dev_parse.py), so nothing here reaches the feedback. The loop
# and train are the generic PyTorch training loop of the handout.


def assignment_model(embeddings: Any, n_features: int, hidden_size: int, n_classes: int,
                     dropout_prob: float) -> Any:
    """A model with the function of the assignment's ParserModel (embeddings, affine, ReLU,
    dropout, affine) built from torch's own layers, as any PyTorch tutorial builds an MLP: not the
    assignment's solution (no parameters of its own, no embedding_lookup), which stays out of the
    worker. Its parameters carry the 2019-style names 5.1 matches (embeddings.weight, ...)."""
    import torch  # noqa: PLC0415

    class LayerModel(torch.nn.Module):  # type: ignore[name-defined]
        def __init__(self) -> None:
            super().__init__()
            table = torch.tensor(embeddings, dtype=torch.float32)
            self.embeddings = torch.nn.Embedding.from_pretrained(table, freeze=False)
            self.embed_to_hidden = torch.nn.Linear(n_features * table.shape[1], hidden_size)
            self.hidden_to_logits = torch.nn.Linear(hidden_size, n_classes)
            self.dropout = torch.nn.Dropout(dropout_prob)

        def forward(self, w: Any) -> Any:
            h = torch.relu(self.embed_to_hidden(self.embeddings(w).flatten(1)))
            return self.hidden_to_logits(self.dropout(h))

    return LayerModel()


def course_train_for_epoch(parser: Any, train_data: Any, dev_data: Any, optimizer: Any, loss_func: Any,
                           batch_size: int) -> float:
    """The course's train_for_epoch: per minibatch zero_grad, forward, loss, backward, step."""
    import torch  # noqa: PLC0415
    from utils.parser_utils import minibatches  # noqa: PLC0415 - the course's support code

    parser.model.train()
    for train_x, train_y in minibatches(train_data, batch_size):
        optimizer.zero_grad()
        targets = torch.from_numpy(train_y.nonzero()[1]).long()
        loss = loss_func(parser.model(torch.from_numpy(train_x).long()), targets)
        loss.backward()
        optimizer.step()
    parser.model.eval()
    return parser.parse(dev_data)[0]


def course_train(loop: Any) -> Any:
    """The course's train (Adam with lr, mean cross-entropy, n_epochs of ``loop()``, which is the
    train_for_epoch to use, looked up when each epoch starts)."""
    import torch  # noqa: PLC0415

    def train(parser: Any, train_data: Any, dev_data: Any, output_path: str, batch_size: int = 1024,
              n_epochs: int = 10, lr: float = 0.0005) -> None:
        optimizer = torch.optim.Adam(parser.model.parameters(), lr=lr)
        loss_func = torch.nn.CrossEntropyLoss()
        for _epoch in range(n_epochs):
            loop()(parser, train_data, dev_data, optimizer, loss_func, batch_size)
    return train
