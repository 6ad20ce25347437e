"""This assignment's probes: the functions a worker runs on student code (word2vec, sgd, the parser,
the model, training). Copied next to the framework's worker (grader/untrusted/) in its private folder;
like it, they import only each other (relatively), the standard library and third-party packages."""
