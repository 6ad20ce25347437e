

def minibatch_parse(sentences, model, batch_size):
    """Finished parses are skipped but never removed from the unfinished ones: once the first
    batch_size parses are done, every minibatch is empty and the loop spins forever."""
    partial_parses = [PartialParse(sentence) for sentence in sentences]
    unfinished_parses = partial_parses[:]
    while unfinished_parses:
        minibatch = [parse for parse in unfinished_parses[:batch_size]
                     if parse.buffer or len(parse.stack) > 1]
        if minibatch:
            for parse, transition in zip(minibatch, model.predict(minibatch)):
                parse.parse_step(transition)
    return [parse.dependencies for parse in partial_parses]
