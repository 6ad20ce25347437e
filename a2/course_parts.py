"""The course's working code for 5.9's counterfactual run: the ParserModel, train_for_epoch and train
that run in place of a failing part's (grader.run.settle; a2/checks/training_uas.py SUBSTITUTES).

When 5.9 fails and a check of the model, of train_for_epoch or of train fails too, 5.9 runs once
more with the code below in place of the failing part: if it then passes, that part's bug explains
5.9's failure and the two are charged once. The student's other parts run unchanged beside it, and
they may read anything of the assignment's API on what they are given (``parser.model.embed_size``,
``.embeddings.shape``, ``.embed_to_hidden_weight``, ``.dropout.p``, ``embedding_lookup(w)`` ...),
so the model has the whole public API of the assignment's ParserModel: the constructor's arguments
under their names, ``embeddings`` and the four weights and biases as parameters in their shapes,
``dropout``, ``embedding_lookup`` and ``forward`` (tests/test_standins.py enumerates the
reference's names and loads the reference's state_dict into it).

This is the assignment's solution, so it never sits in the worker's folder: the trusted grader
never imports this module (it needs torch); it reads its text and sends it with the counterfactual
call only (a2/untrusted/probes_training.py ``course_parts`` runs it there). What student code does
in that call reaches no feedback: the grader keeps only whether the check then passed. It imports
nothing of ours: only torch and the course's support code, as run.py does. Not in the student kit.
"""

from __future__ import annotations

from typing import Any


def assignment_model(embeddings: Any, n_features: int = 36, hidden_size: int = 200, n_classes: int = 3,
                     dropout_prob: float = 0.5) -> Any:
    """The assignment's ParserModel (Xavier-uniform weights, uniform biases, dropout after the ReLU)."""
    import torch  # in the worker only

    nn = torch.nn

    class ParserModel(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.n_features, self.n_classes, self.dropout_prob = n_features, n_classes, dropout_prob
            self.embed_size, self.hidden_size = int(embeddings.shape[1]), hidden_size
            self.embeddings = nn.Parameter(torch.tensor(embeddings, dtype=torch.float32))
            width = self.n_features * self.embed_size
            self.embed_to_hidden_weight = nn.Parameter(nn.init.xavier_uniform_(torch.empty(width, hidden_size)))
            self.embed_to_hidden_bias = nn.Parameter(nn.init.uniform_(torch.empty(hidden_size)))
            self.dropout = nn.Dropout(p=dropout_prob)
            self.hidden_to_logits_weight = nn.Parameter(nn.init.xavier_uniform_(torch.empty(hidden_size, n_classes)))
            self.hidden_to_logits_bias = nn.Parameter(nn.init.uniform_(torch.empty(n_classes)))

        def embedding_lookup(self, w: Any) -> Any:
            return self.embeddings[w].reshape(w.shape[0], -1)

        def forward(self, w: Any) -> Any:
            h = torch.relu(self.embedding_lookup(w) @ self.embed_to_hidden_weight + self.embed_to_hidden_bias)
            return self.dropout(h) @ self.hidden_to_logits_weight + self.hidden_to_logits_bias

    return ParserModel()


def course_train_for_epoch(parser: Any, train_data: Any, dev_data: Any, optimizer: Any, loss_func: Any,
                           batch_size: int, *_more: Any, **_named: Any) -> float:
    """The course's train_for_epoch: per minibatch zero_grad, forward, loss, backward, step. What
    the student's train passes beyond the assignment's arguments (a device) is taken, not used."""
    import torch
    from utils.parser_utils import minibatches  # the course's support code

    parser.model.train()
    for train_x, train_y in minibatches(train_data, batch_size):
        optimizer.zero_grad()
        targets = torch.from_numpy(train_y.nonzero()[1]).long()
        loss = loss_func(parser.model(torch.from_numpy(train_x).long()), targets)
        loss.backward()
        optimizer.step()
    parser.model.eval()
    return _UAS(parser.parse(dev_data)[0])


class _UAS(float):
    """The dev UAS, which a student's train written for a train_for_epoch that returns two values
    ((UAS, loss) or (loss, UAS): real variants) can also unpack: both items are the UAS."""

    def __iter__(self) -> Any:
        return iter((float(self), float(self)))

    def __getitem__(self, index: int) -> float:
        return (float(self), float(self))[index]

    def __len__(self) -> int:
        return 2


def course_train(loop: Any) -> Any:
    """The course's train (Adam with lr, mean cross-entropy, n_epochs of ``loop()``, which is the
    train_for_epoch to use, looked up when each epoch starts)."""
    import torch

    def train(parser: Any, train_data: Any, dev_data: Any, output_path: str, batch_size: int = 1024,
              n_epochs: int = 10, lr: float = 0.0005) -> None:
        optimizer = torch.optim.Adam(parser.model.parameters(), lr=lr)
        loss_func = torch.nn.CrossEntropyLoss()
        for _epoch in range(n_epochs):
            loop()(parser, train_data, dev_data, optimizer, loss_func, batch_size)
    return train
