"""Independent solutions of the student regions, for the similarity corpus (tools/similarity_corpus.py).

Each author below wrote every stub of the template (``### YOUR CODE HERE`` ... ``### END YOUR CODE``)
apart from the others and from ``reference/``, ``tests/submissions/alternative/`` and
``tests/submissions/independent/``, in a style of their own: explicit loops, vectorised algebra,
helpers and another order of statements, terse one-liners. They are what a class of students who
did not share code looks like: alike where the assignment leaves one way to write a thing (a
parse step is a dozen lines every correct solution shares), apart elsewhere. The regions of each
file are in the template's order; the indentation of the stub is added when they are filled in.
"""

from __future__ import annotations

AUTHORS: dict[str, dict[str, tuple[str, ...]]] = {}

AUTHORS["loops"] = {
    "word2vec.py": (
        """
        arr = np.array(x, dtype=np.float64)
        flat = arr.reshape(-1)
        res = np.zeros_like(flat)
        for i in range(flat.shape[0]):
            v = flat[i]
            if v >= 0:
                res[i] = 1.0 / (1.0 + np.exp(-v))
            else:
                e = np.exp(v)
                res[i] = e / (1.0 + e)
        s = res.reshape(arr.shape)
        if arr.ndim == 0:
            s = float(res[0])
        """,
        """
        V = outsideVectors.shape[0]
        raw = np.zeros(V)
        for w in range(V):
            raw[w] = np.dot(outsideVectors[w], centerWordVec)
        probs = softmax(raw)
        loss = -np.log(probs[outsideWordIdx])
        gradCenterVec = np.zeros_like(centerWordVec)
        gradOutsideVecs = np.zeros_like(outsideVectors)
        for w in range(V):
            coef = probs[w] - (1.0 if w == outsideWordIdx else 0.0)
            gradCenterVec += coef * outsideVectors[w]
            gradOutsideVecs[w] = coef * centerWordVec
        """,
        """
        gradCenterVec = np.zeros_like(centerWordVec)
        gradOutsideVecs = np.zeros_like(outsideVectors)
        pos = sigmoid(np.dot(outsideVectors[outsideWordIdx], centerWordVec))
        loss = -np.log(pos)
        gradCenterVec += (pos - 1.0) * outsideVectors[outsideWordIdx]
        gradOutsideVecs[outsideWordIdx] += (pos - 1.0) * centerWordVec
        for k in negSampleWordIndices:
            neg = sigmoid(-np.dot(outsideVectors[k], centerWordVec))
            loss -= np.log(neg)
            gradCenterVec += (1.0 - neg) * outsideVectors[k]
            gradOutsideVecs[k] += (1.0 - neg) * centerWordVec
        """,
        """
        c = word2Ind[currentCenterWord]
        for word in outsideWords:
            j, gv, gu = word2vecLossAndGradient(centerWordVectors[c], word2Ind[word], outsideVectors, dataset)
            loss = loss + j
            gradCenterVecs[c, :] = gradCenterVecs[c, :] + gv
            gradOutsideVectors = gradOutsideVectors + gu
        """,
    ),
    "sgd.py": (
        """
        cost, g = f(x)
        loss = cost
        for i in range(len(x)):
            x[i] = x[i] - step * g[i]
        """,
    ),
    "parser_transitions.py": (
        """
        self.stack = []
        self.stack.append("ROOT")
        self.buffer = []
        for word in sentence:
            self.buffer.append(word)
        self.dependencies = list()
        """,
        """
        if transition == "LA":
            head = self.stack[len(self.stack) - 1]
            child = self.stack[len(self.stack) - 2]
            del self.stack[len(self.stack) - 2]
            self.dependencies.append((head, child))
        if transition == "RA":
            head = self.stack[len(self.stack) - 2]
            child = self.stack[len(self.stack) - 1]
            del self.stack[len(self.stack) - 1]
            self.dependencies.append((head, child))
        if transition == "S":
            first = self.buffer[0]
            del self.buffer[0]
            self.stack.append(first)
        """,
        """
        parses = []
        for s in sentences:
            parses.append(PartialParse(s))
        active = []
        for p in parses:
            active.append(p)
        while len(active) > 0:
            chunk = []
            for i in range(min(batch_size, len(active))):
                chunk.append(active[i])
            moves = model.predict(chunk)
            for i in range(len(chunk)):
                chunk[i].parse_step(moves[i])
            still = []
            for p in active:
                done = len(p.buffer) == 0 and len(p.stack) == 1
                if not done:
                    still.append(p)
            active = still
        dependencies = []
        for p in parses:
            dependencies.append(p.dependencies)
        """,
    ),
    "parser_model.py": (
        """
        n_in = self.n_features * self.embed_size
        W1 = torch.empty(n_in, self.hidden_size)
        nn.init.xavier_uniform_(W1)
        self.embed_to_hidden_weight = nn.Parameter(W1)
        b1 = torch.empty(self.hidden_size)
        nn.init.uniform_(b1)
        self.embed_to_hidden_bias = nn.Parameter(b1)
        W2 = torch.empty(self.hidden_size, self.n_classes)
        nn.init.xavier_uniform_(W2)
        self.hidden_to_logits_weight = nn.Parameter(W2)
        b2 = torch.empty(self.n_classes)
        nn.init.uniform_(b2)
        self.hidden_to_logits_bias = nn.Parameter(b2)
        self.dropout = nn.Dropout(self.dropout_prob)
        """,
        """
        rows = []
        for b in range(w.shape[0]):
            feats = []
            for f in range(w.shape[1]):
                feats.append(self.embeddings[w[b, f]])
            rows.append(torch.cat(feats))
        x = torch.stack(rows)
        """,
        """
        emb = self.embedding_lookup(w)
        pre = torch.matmul(emb, self.embed_to_hidden_weight) + self.embed_to_hidden_bias
        act = torch.relu(pre)
        dropped = self.dropout(act)
        logits = torch.matmul(dropped, self.hidden_to_logits_weight) + self.hidden_to_logits_bias
        """,
    ),
    "run.py": (
        """
        params = parser.model.parameters()
        optimizer = torch.optim.Adam(params, lr)
        loss_func = torch.nn.CrossEntropyLoss(reduction="mean")
        """,
        """
        out = parser.model.forward(train_x)
        err = loss_func(out, train_y)
        optimizer.zero_grad()
        err.backward()
        optimizer.step()
        loss = err
        """,
    ),
}

AUTHORS["einsum"] = {
    "word2vec.py": (
        """
        z = np.clip(np.asarray(x, dtype=np.float64), -500, 500)
        s = np.reciprocal(1 + np.exp(np.negative(z)))
        """,
        """
        logit = np.einsum("vd,d->v", outsideVectors, centerWordVec)
        logit = logit - logit.max()
        p = np.exp(logit) / np.exp(logit).sum()
        loss = float(-np.log(p[outsideWordIdx]))
        err = p - np.eye(outsideVectors.shape[0])[outsideWordIdx]
        gradCenterVec = np.einsum("v,vd->d", err, outsideVectors)
        gradOutsideVecs = np.einsum("v,d->vd", err, centerWordVec)
        """,
        """
        idx = np.concatenate([[outsideWordIdx], np.asarray(negSampleWordIndices)])
        sign = np.concatenate([[1.0], -np.ones(len(negSampleWordIndices))])
        U = outsideVectors[idx]
        sig = sigmoid(sign * np.einsum("kd,d->k", U, centerWordVec))
        loss = -np.sum(np.log(sig))
        coef = -sign * (1 - sig)
        gradCenterVec = np.einsum("k,kd->d", coef, U)
        gradOutsideVecs = np.zeros(outsideVectors.shape)
        np.add.at(gradOutsideVecs, idx, np.einsum("k,d->kd", coef, centerWordVec))
        """,
        """
        vc = centerWordVectors[word2Ind[currentCenterWord]]
        results = [word2vecLossAndGradient(vc, word2Ind[o], outsideVectors, dataset) for o in outsideWords]
        if results:
            losses, gcs, gos = zip(*results)
            loss = float(np.sum(losses))
            gradCenterVecs[word2Ind[currentCenterWord]] = np.sum(gcs, axis=0)
            gradOutsideVectors = np.sum(gos, axis=0)
        """,
    ),
    "sgd.py": (
        """
        loss, dx = f(x)
        x -= dx * step
        """,
    ),
    "parser_transitions.py": (
        """
        self.dependencies, self.stack, self.buffer = [], ["ROOT"], sentence[:]
        """,
        """
        kind = {"S": 0, "LA": 1, "RA": 2}[transition]
        if kind == 0:
            self.stack += [self.buffer[0]]
            self.buffer = self.buffer[1:]
        else:
            left, right = self.stack[-2], self.stack[-1]
            self.stack = self.stack[:-2] + ([right] if kind == 1 else [left])
            self.dependencies += [(right, left)] if kind == 1 else [(left, right)]
        """,
        """
        pending = [PartialParse(s) for s in sentences]
        order = list(pending)
        while pending:
            head, tail = pending[:batch_size], pending[batch_size:]
            for pp, t in zip(head, model.predict(head)):
                pp.parse_step(t)
            pending = [pp for pp in head if pp.buffer or len(pp.stack) > 1] + tail
        dependencies = [pp.dependencies for pp in order]
        """,
    ),
    "parser_model.py": (
        """
        d_in, d_h, d_out = self.n_features * self.embed_size, self.hidden_size, self.n_classes
        self.embed_to_hidden_weight = nn.Parameter(torch.empty(d_in, d_h))
        self.embed_to_hidden_bias = nn.Parameter(torch.empty(d_h))
        self.hidden_to_logits_weight = nn.Parameter(torch.empty(d_h, d_out))
        self.hidden_to_logits_bias = nn.Parameter(torch.empty(d_out))
        for p in (self.embed_to_hidden_weight, self.hidden_to_logits_weight):
            nn.init.xavier_uniform_(p)
        for p in (self.embed_to_hidden_bias, self.hidden_to_logits_bias):
            nn.init.uniform_(p)
        self.dropout = nn.Dropout(p=self.dropout_prob)
        """,
        """
        x = torch.index_select(self.embeddings, 0, w.reshape(-1)).view(w.size(0), self.n_features * self.embed_size)
        """,
        """
        h = torch.einsum("bi,ih->bh", self.embedding_lookup(w), self.embed_to_hidden_weight)
        h = F.relu(h + self.embed_to_hidden_bias)
        logits = torch.einsum("bh,hc->bc", self.dropout(h), self.hidden_to_logits_weight) + self.hidden_to_logits_bias
        """,
    ),
    "run.py": (
        """
        loss_func, optimizer = nn.CrossEntropyLoss(), optim.Adam(lr=lr, params=parser.model.parameters())
        """,
        """
        for group in optimizer.param_groups:
            for p in group["params"]:
                p.grad = None
        loss = loss_func(parser.model(train_x), train_y)
        loss.backward()
        optimizer.step()
        """,
    ),
}

AUTHORS["helpers"] = {
    "word2vec.py": (
        """
        def _stable(v):
            return np.where(v >= 0, 1 / (1 + np.exp(-np.abs(v))), np.exp(-np.abs(v)) / (1 + np.exp(-np.abs(v))))
        s = _stable(np.asarray(x, dtype=float))
        """,
        """
        def _scores_to_grad(theta):
            y = np.zeros_like(theta)
            y[outsideWordIdx] = 1
            return softmax(theta) - y
        theta = outsideVectors.dot(centerWordVec)
        gradOutsideVecs = _scores_to_grad(theta)[:, None] * centerWordVec[None, :]
        gradCenterVec = outsideVectors.T.dot(_scores_to_grad(theta))
        loss = -np.log(softmax(theta)[outsideWordIdx])
        """,
        """
        def _term(row, sgn):
            sg = sigmoid(sgn * row.dot(centerWordVec))
            return -np.log(sg), -sgn * (1 - sg)
        gradOutsideVecs = np.zeros(outsideVectors.shape)
        gradCenterVec = np.zeros(centerWordVec.shape)
        loss = 0.0
        pairs = [(outsideWordIdx, 1.0)] + [(n, -1.0) for n in negSampleWordIndices]
        for row_id, sgn in pairs:
            part, factor = _term(outsideVectors[row_id], sgn)
            loss += part
            gradOutsideVecs[row_id] += factor * centerWordVec
            gradCenterVec += factor * outsideVectors[row_id]
        """,
        """
        def _one(word):
            return word2vecLossAndGradient(centerWordVectors[word2Ind[currentCenterWord]],
                                           word2Ind[word], outsideVectors, dataset)
        for piece in map(_one, outsideWords):
            gradOutsideVectors += piece[2]
            gradCenterVecs[word2Ind[currentCenterWord]] += piece[1]
            loss += piece[0]
        """,
    ),
    "sgd.py": (
        """
        value_and_grad = f(x)
        loss = value_and_grad[0]
        x = np.subtract(x, np.multiply(step, value_and_grad[1]))
        """,
    ),
    "parser_transitions.py": (
        """
        self.buffer = [token for token in sentence]
        self.dependencies = []
        self.stack = ['ROOT']
        """,
        """
        def _arc(head_pos, dep_pos):
            head, dep = self.stack[head_pos], self.stack[dep_pos]
            self.stack.remove(dep) if self.stack.count(dep) == 1 else self.stack.pop(dep_pos)
            self.dependencies.append((head, dep))
        if transition == 'S':
            self.stack.extend(self.buffer[:1])
            self.buffer[:1] = []
        elif transition == 'RA':
            _arc(-2, -1)
        elif transition == 'LA':
            _arc(-1, -2)
        """,
        """
        def _finished(parse):
            return not parse.buffer and len(parse.stack) < 2
        all_parses = list(map(PartialParse, sentences))
        queue = list(all_parses)
        while queue:
            current = queue[0:batch_size]
            predicted = model.predict(current)
            for k, parse in enumerate(current):
                parse.parse_step(predicted[k])
            queue = [q for q in queue if not _finished(q)]
        dependencies = [parse.dependencies for parse in all_parses]
        """,
    ),
    "parser_model.py": (
        """
        def _param(*shape, init):
            t = torch.zeros(*shape)
            init(t)
            return nn.Parameter(t)
        self.dropout = nn.Dropout(self.dropout_prob)
        self.hidden_to_logits_bias = _param(self.n_classes, init=nn.init.uniform_)
        self.hidden_to_logits_weight = _param(self.hidden_size, self.n_classes, init=nn.init.xavier_uniform_)
        self.embed_to_hidden_bias = _param(self.hidden_size, init=nn.init.uniform_)
        self.embed_to_hidden_weight = _param(self.n_features * self.embed_size, self.hidden_size,
                                             init=nn.init.xavier_uniform_)
        """,
        """
        batch = w.shape[0]
        looked = self.embeddings[w.flatten()]
        x = looked.reshape(batch, -1)
        """,
        """
        def _affine(inp, weight, bias):
            return inp.mm(weight) + bias
        hidden = _affine(self.embedding_lookup(w), self.embed_to_hidden_weight, self.embed_to_hidden_bias).clamp(min=0)
        logits = _affine(self.dropout(hidden), self.hidden_to_logits_weight, self.hidden_to_logits_bias)
        """,
    ),
    "run.py": (
        """
        def _make_optimizer(model):
            return optim.Adam(model.parameters(), lr=lr)
        loss_func = nn.CrossEntropyLoss()
        optimizer = _make_optimizer(parser.model)
        """,
        """
        def _step(inputs, gold):
            optimizer.zero_grad()
            value = loss_func(parser.model(inputs), gold)
            value.backward()
            optimizer.step()
            return value
        loss = _step(train_x, train_y)
        """,
    ),
}

AUTHORS["terse"] = {
    "word2vec.py": (
        """
        s = 0.5 * (1 + np.tanh(0.5 * np.asarray(x)))
        """,
        """
        yh = softmax(centerWordVec @ outsideVectors.T); loss = -np.log(yh[outsideWordIdx]); yh[outsideWordIdx] -= 1
        gradCenterVec, gradOutsideVecs = yh @ outsideVectors, yh.reshape(-1, 1) * centerWordVec.reshape(1, -1)
        """,
        """
        o = outsideVectors[outsideWordIdx]; ns = outsideVectors[negSampleWordIndices]
        a, b = sigmoid(centerWordVec @ o), sigmoid(-ns @ centerWordVec)
        loss = -np.log(a) - np.log(b).sum()
        gradCenterVec = -(1 - a) * o + ((1 - b)[:, None] * ns).sum(0)
        gradOutsideVecs = np.zeros_like(outsideVectors); gradOutsideVecs[outsideWordIdx] = -(1 - a) * centerWordVec
        for n, bn in zip(negSampleWordIndices, b): gradOutsideVecs[n] += (1 - bn) * centerWordVec
        """,
        """
        ci = word2Ind[currentCenterWord]
        for w in outsideWords:
            l_, gc_, go_ = word2vecLossAndGradient(centerWordVectors[ci], word2Ind[w], outsideVectors, dataset)
            loss, gradOutsideVectors = loss + l_, gradOutsideVectors + go_; gradCenterVecs[ci] += gc_
        """,
    ),
    "sgd.py": (
        """
        loss, gr = f(x); x = x - step * gr
        """,
    ),
    "parser_transitions.py": (
        """
        self.stack, self.buffer, self.dependencies = ["ROOT"], list(sentence), []
        """,
        """
        if transition == "S": self.stack.append(self.buffer.pop(0)); return
        d = self.stack.pop(-2 if transition == "LA" else -1)
        self.dependencies.append((self.stack[-1], d))
        """,
        """
        pps = [PartialParse(s) for s in sentences]; live = pps[:]
        while live:
            [p.parse_step(t) for p, t in zip(live[:batch_size], model.predict(live[:batch_size]))]
            live = [p for p in live if p.buffer or len(p.stack) != 1]
        dependencies = [p.dependencies for p in pps]
        """,
    ),
    "parser_model.py": (
        """
        xu, un = nn.init.xavier_uniform_, nn.init.uniform_
        self.embed_to_hidden_weight = nn.Parameter(xu(torch.empty(self.n_features * self.embed_size, self.hidden_size)))
        self.hidden_to_logits_weight = nn.Parameter(xu(torch.empty(self.hidden_size, self.n_classes)))
        self.embed_to_hidden_bias, self.hidden_to_logits_bias = (nn.Parameter(un(torch.empty(n)))
                                                                 for n in (self.hidden_size, self.n_classes))
        self.dropout = nn.Dropout(self.dropout_prob)
        """,
        """
        x = torch.flatten(self.embeddings[w], start_dim=1)
        """,
        """
        logits = torch.addmm(self.hidden_to_logits_bias,
                             self.dropout(torch.addmm(self.embed_to_hidden_bias, self.embedding_lookup(w),
                                                      self.embed_to_hidden_weight).relu()),
                             self.hidden_to_logits_weight)
        """,
    ),
    "run.py": (
        """
        optimizer = optim.Adam(parser.model.parameters(), lr); loss_func = nn.CrossEntropyLoss()
        """,
        """
        optimizer.zero_grad(); loss = loss_func(parser.model(train_x), train_y); loss.backward(); optimizer.step()
        """,
    ),
}
