

def train_for_epoch(parser, train_data, dev_data, optimizer, loss_func, batch_size):
    """A loop that looks right but learns nothing: every minibatch's gold transitions are
    shuffled among its examples before the loss, so no feature predicts its label."""
    parser.model.train()
    for train_x, train_y in minibatches(train_data, batch_size):
        train_x = torch.from_numpy(train_x).long()
        gold = train_y.nonzero()[1]
        train_y = torch.from_numpy(np.random.permutation(gold)).long()
        optimizer.zero_grad()
        loss = loss_func(parser.model(train_x), train_y)
        loss.backward()
        optimizer.step()
    parser.model.eval()
    dev_UAS, _ = parser.parse(dev_data)
    print("- dev UAS: {:.2f}".format(dev_UAS * 100.0))
    return dev_UAS
