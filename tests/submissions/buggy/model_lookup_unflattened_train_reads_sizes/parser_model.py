#!/usr/bin/env python
"""Part 3(e)(iii) (coding): the feed-forward network that scores transitions.

Run the checks from this folder:  python parser_model.py -e -f
"""

import argparse

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class ParserModel(nn.Module):
    """Feed-forward network with one hidden layer for arc-standard parsing.

    For a batch of feature-id rows w (batch, n_features):
        x = the embeddings of the features, concatenated: (batch, n_features * embed_size)
        h = ReLU(x W + b1)
        l = dropout(h) U + b2        (logits over the 3 transitions; no softmax here)

    Implement the layers with your own parameters: using torch.nn.Linear or
    torch.nn.Embedding is not allowed in this assignment.
    """

    def __init__(self, embeddings, n_features=36, hidden_size=200, n_classes=3, dropout_prob=0.5):
        """Create the parameters.

        embeddings   -- numpy array (n_tokens, embed_size): pretrained vectors, to be held
                        as a trainable nn.Parameter named self.embeddings
        n_features   -- features per configuration
        hidden_size  -- width of the hidden layer
        n_classes    -- number of transitions
        dropout_prob -- dropout probability, applied to the hidden layer

        Define:
        self.embed_to_hidden_weight (n_features * embed_size, hidden_size), Xavier-uniform
        self.embed_to_hidden_bias   (hidden_size,), uniform on [0, 1)
        self.dropout                nn.Dropout(dropout_prob)
        self.hidden_to_logits_weight (hidden_size, n_classes), Xavier-uniform
        self.hidden_to_logits_bias   (n_classes,), uniform on [0, 1)
        """
        super(ParserModel, self).__init__()
        self.n_features = n_features
        self.n_classes = n_classes
        self.dropout_prob = dropout_prob
        self.embed_size = embeddings.shape[1]
        self.hidden_size = hidden_size
        self.embeddings = nn.Parameter(torch.tensor(embeddings))

        ### BEGIN SOLUTION
        self.embed_to_hidden_weight = nn.Parameter(
            nn.init.xavier_uniform_(torch.empty(self.n_features * self.embed_size, self.hidden_size)))
        self.embed_to_hidden_bias = nn.Parameter(nn.init.uniform_(torch.empty(self.hidden_size)))
        self.dropout = nn.Dropout(p=self.dropout_prob)
        self.hidden_to_logits_weight = nn.Parameter(
            nn.init.xavier_uniform_(torch.empty(self.hidden_size, self.n_classes)))
        self.hidden_to_logits_bias = nn.Parameter(nn.init.uniform_(torch.empty(self.n_classes)))
        ### END SOLUTION

    def embedding_lookup(self, w):
        """Map feature ids to concatenated embeddings.

        w -- LongTensor (batch_size, n_features) of token ids
        Returns x, a tensor (batch_size, n_features * embed_size): row b is the embeddings of
        w[b, 0], w[b, 1], ... laid end to end. Index self.embeddings directly (no nn.Embedding)
        so that gradients reach it.
        """
        ### BEGIN SOLUTION
        x = self.embeddings[w]
        ### END SOLUTION
        return x

    def forward(self, w):
        """Logits (batch_size, n_classes) for a batch of feature ids w (batch_size, n_features).

        embedding_lookup, then the hidden layer with ReLU, dropout, then the output layer.
        Return raw logits: torch.nn.CrossEntropyLoss applies the softmax itself.
        """
        ### BEGIN SOLUTION
        x = self.embedding_lookup(w)
        h = F.relu(x @ self.embed_to_hidden_weight + self.embed_to_hidden_bias)
        logits = self.dropout(h) @ self.hidden_to_logits_weight + self.hidden_to_logits_bias
        ### END SOLUTION
        return logits


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Simple sanity checks of ParserModel.")
    parser.add_argument("-e", "--embedding", action="store_true", help="check embedding_lookup")
    parser.add_argument("-f", "--forward", action="store_true", help="check forward")
    args = parser.parse_args()

    embeddings = np.zeros((100, 30), dtype=np.float32)
    model = ParserModel(embeddings)

    def check_embedding():
        inds = torch.randint(0, 100, (4, 36), dtype=torch.long)
        selected = model.embedding_lookup(inds)
        assert np.all(selected.data.numpy() == 0), \
            "The result of embedding lookup: " + repr(selected) + " contains non-zero elements."

    def check_forward():
        inputs = torch.randint(0, 100, (4, 36), dtype=torch.long)
        out = model(inputs)
        expected_out_shape = (4, 3)
        assert out.shape == expected_out_shape, \
            "The result shape of forward is: " + repr(out.shape) + \
            " which doesn't match expected " + repr(expected_out_shape)

    if args.embedding:
        check_embedding()
        print("Embedding_lookup sanity check passes!")

    if args.forward:
        check_forward()
        print("Forward sanity check passes!")
