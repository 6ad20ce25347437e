#!/usr/bin/env python
"""A correct ParserModel written differently from the reference: float32 throughout, the
embeddings gathered feature by feature, dropout (functional, only in training) applied before
the ReLU, and the layers as explicit matmul + bias with `torch.mm`."""

import argparse

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class ParserModel(nn.Module):
    def __init__(self, embeddings, n_features=36, hidden_size=200, n_classes=3, dropout_prob=0.5):
        super().__init__()
        self.n_features = n_features
        self.n_classes = n_classes
        self.dropout_prob = dropout_prob
        self.embed_size = embeddings.shape[1]
        self.hidden_size = hidden_size
        self.embeddings = nn.Parameter(torch.tensor(np.asarray(embeddings), dtype=torch.float32))

        ### YOUR CODE HERE
        fan_in = self.n_features * self.embed_size
        self.embed_to_hidden_weight = nn.Parameter(torch.empty(fan_in, self.hidden_size))
        self.embed_to_hidden_bias = nn.Parameter(torch.empty(self.hidden_size))
        self.hidden_to_logits_weight = nn.Parameter(torch.empty(self.hidden_size, self.n_classes))
        self.hidden_to_logits_bias = nn.Parameter(torch.empty(self.n_classes))
        for weight in (self.embed_to_hidden_weight, self.hidden_to_logits_weight):
            nn.init.xavier_uniform_(weight)
        for bias in (self.embed_to_hidden_bias, self.hidden_to_logits_bias):
            nn.init.uniform_(bias)
        self.dropout = nn.Dropout(dropout_prob)
        ### END YOUR CODE

    def embedding_lookup(self, w):
        ### YOUR CODE HERE
        columns = [torch.index_select(self.embeddings, 0, w[:, j]) for j in range(w.shape[1])]
        x = torch.cat(columns, dim=1)
        ### END YOUR CODE
        return x

    def forward(self, w):
        ### YOUR CODE HERE
        x = self.embedding_lookup(w)
        z = torch.mm(x, self.embed_to_hidden_weight) + self.embed_to_hidden_bias
        h = F.relu(F.dropout(z, p=self.dropout_prob, training=self.training))
        logits = torch.mm(h, self.hidden_to_logits_weight) + self.hidden_to_logits_bias
        ### END YOUR CODE
        return logits


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("-e", "--embedding", action="store_true")
    parser.add_argument("-f", "--forward", action="store_true")
    args = parser.parse_args()
    model = ParserModel(np.zeros((100, 30), dtype=np.float32))
    if args.embedding:
        assert np.all(model.embedding_lookup(torch.randint(0, 100, (4, 36))).data.numpy() == 0)
        print("Embedding_lookup sanity check passes!")
    if args.forward:
        assert model(torch.randint(0, 100, (4, 36))).shape == (4, 3)
        print("Forward sanity check passes!")
