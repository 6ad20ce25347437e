"""What the check modules of a2/checks/ share and register no check: the model checks' instances
and parameter matching (``model_params``), the bug shapes the model, training and word2vec checks
name (``model_shapes``, ``word2vec_shapes``), the parsing checks' inputs (``parsing_inputs``), the
training size of 5.9 (``training_size``) and 5.9's hidden dev set parsed in the trusted process
(``dev_parse``, never in the kit)."""
