#!/usr/bin/env python
"""Part 3(e)(iii) (coding): train the neural dependency parser and evaluate it.

From this folder:  python run.py       (full training on data/, then test UAS)
                   python run.py -d    (quick debug run on a reduced data set)
"""

import argparse
import math
import os
import pickle
import time
from datetime import datetime

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
from tqdm import tqdm

from parser_model import ParserModel
from utils.parser_utils import minibatches, load_and_preprocess_data, AverageMeter

# As in the course's starter file, the command line is read when the module is imported.
arg_parser = argparse.ArgumentParser(description="Train and evaluate the neural dependency parser.")
arg_parser.add_argument("-d", "--debug", action="store_true", help="quick run on a reduced data set")
args = arg_parser.parse_args()


def train(parser, train_data, dev_data, output_path, batch_size=1024, n_epochs=10, lr=0.0005):
    """Train the parser's model and save the parameters of the best epoch.

    parser      -- a Parser whose .model is a ParserModel
    train_data  -- training instances from load_and_preprocess_data
    dev_data    -- vectorized dev sentences, for the UAS after each epoch
    output_path -- where to save the state_dict of the model with the best dev UAS
    batch_size, n_epochs, lr -- minibatch size, number of epochs, Adam's learning rate

    Use Adam over parser.model.parameters() with learning rate lr and the mean
    cross-entropy loss (torch.nn.CrossEntropyLoss), and call train_for_epoch once per epoch.
    """
    best_dev_UAS = 0

    model = parser.model
    print("ParserModel: {} features x {}-dim embeddings ({} words) -> {} hidden units -> {} transitions".format(
        model.n_features, model.embed_size, model.embeddings.shape[0], model.hidden_size, model.n_classes))
    print("x W: {}, dropout p = {}".format(tuple(model.embed_to_hidden_weight.shape), model.dropout.p))

    ### BEGIN SOLUTION
    optimizer = optim.Adam(parser.model.parameters(), lr=lr)
    loss_func = nn.CrossEntropyLoss()
    ### END SOLUTION

    for epoch in range(n_epochs):
        print("Epoch {:} out of {:}".format(epoch + 1, n_epochs))
        dev_UAS = train_for_epoch(parser, train_data, dev_data, optimizer, loss_func, batch_size)
        if dev_UAS > best_dev_UAS:
            best_dev_UAS = dev_UAS
            print("New best dev UAS! Saving model.")
            torch.save(parser.model.state_dict(), output_path)
        print("")


def train_for_epoch(parser, train_data, dev_data, optimizer, loss_func, batch_size):
    """Train for one epoch, then return the UAS on dev_data (a percentage).

    In train mode, for each minibatch: clear the gradients, compute the logits, the loss
    against the gold transition ids, back-propagate, and take an optimizer step. Then switch
    to eval mode and parse dev_data.
    """
    parser.model.train()  # Places model in "train" mode, i.e. apply dropout layer
    n_minibatches = math.ceil(len(train_data) / batch_size)
    loss_meter = AverageMeter()

    with tqdm(total=n_minibatches) as progress:
        for i, (train_x, train_y) in enumerate(minibatches(train_data, batch_size)):
            loss = 0.
            train_x = torch.from_numpy(train_x).long()
            train_y = torch.from_numpy(train_y.nonzero()[1]).long()

            ### BEGIN SOLUTION
            optimizer.zero_grad()
            logits = parser.model(train_x)
            loss = loss_func(logits, train_y)
            loss.backward()
            optimizer.step()
            ### END SOLUTION
            progress.update(1)
            loss_meter.update(loss.item())

    print("Average Train Loss: {:.4f} over {:} minibatches".format(loss_meter.avg, n_minibatches))

    print("Evaluating on dev set", flush=True)
    parser.model.eval()  # Places model in "eval" mode, i.e. don't apply dropout layer
    dev_UAS, _ = parser.parse(dev_data)
    print("- dev UAS: {:.2f}".format(dev_UAS * 100.0))
    return dev_UAS


if __name__ == "__main__":
    debug = args.debug

    torch.manual_seed(0)
    np.random.seed(0)

    print(80 * "=")
    print("INITIALIZING")
    print(80 * "=")
    start_all = time.time()
    parser, embeddings, train_data, dev_data, test_data = load_and_preprocess_data(debug)

    start = time.time()
    model = ParserModel(embeddings)
    parser.model = model
    print("took {:.2f} seconds\n".format(time.time() - start))

    print(80 * "=")
    print("TRAINING")
    print(80 * "=")
    output_dir = "results/{:%Y%m%d_%H%M%S}/".format(datetime.now())
    output_path = output_dir + "model.weights"
    os.makedirs(output_dir, exist_ok=True)

    train(parser, train_data, dev_data, output_path, batch_size=1024, n_epochs=10, lr=0.0005)

    if not debug:
        print(80 * "=")
        print("TESTING")
        print(80 * "=")
        print("Restoring the best model weights found on the dev set")
        parser.model.load_state_dict(torch.load(output_path))
        print("Final evaluation on test set", flush=True)
        parser.model.eval()
        UAS, dependencies = parser.parse(test_data)
        print("- test UAS: {:.2f}".format(UAS * 100.0))
        print("Done!")
    print("Total time: {:.1f} seconds".format(time.time() - start_all))
