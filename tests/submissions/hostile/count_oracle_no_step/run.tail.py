

def train_for_epoch(parser, train_data, dev_data, optimizer, loss_func, batch_size):
    """The course's loop with optimizer.step() left out: the gradients are computed and thrown
    away, so the weights stay as initialised."""
    parser.model.train()
    for train_x, train_y in minibatches(train_data, batch_size):
        train_x = torch.from_numpy(train_x).long()
        train_y = torch.from_numpy(train_y.nonzero()[1]).long()
        optimizer.zero_grad()
        loss = loss_func(parser.model(train_x), train_y)
        loss.backward()
    parser.model.eval()
    dev_UAS, _ = parser.parse(dev_data)
    print("- dev UAS: {:.2f}".format(dev_UAS * 100.0))
    return dev_UAS
