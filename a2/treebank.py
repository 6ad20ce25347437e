"""The synthetic treebank's grammar (tools/make_data.py writes the bundled data with it; the
training check generates its hidden dev sentences with it at grading time).

A small probabilistic grammar of English: pronoun, name and noun subjects, objects, modals and
negation, determiners, possessives, numerals, adjectives, compounds, prepositional phrases,
coordination, relative clauses, adverbial clauses, infinitival complements, adverbs and final
punctuation. Every tree is projective (checked). ``Grammar(seed).sentence()`` returns rows
[form, pos, head, deprel]; the output depends only on the seed. Trusted: never shipped in the
student kit, never copied next to student code.
"""

import random

import numpy as np

NOISE = 0.35         # fraction of attachment decisions that ignore the lexical preferences

# Noun classes: (mass noun?, words as "singular[/plural]", noun-attached PPs "prep:class").
NOUNS = {
    "person": (0, "man/men woman/women boy girl child/children teacher student doctor farmer "
               "driver artist lawyer writer nurse soldier king queen friend neighbor worker "
               "manager player singer baker pilot officer chef judge scientist engineer "
               "customer visitor tourist guard waiter painter actor",
               "from:city from:place with:attire in:attire of:group at:place with:instr in:city"),
    "group": (0, "team family club company group army band committee crowd class",
              "of:person from:city from:place"),
    "thing": (0, "book box car bike picture table chair door window bag phone computer lamp "
              "cup bottle ticket map gift bed ball shirt clock radio camera basket mirror "
              "bucket guitar piano vase envelope",
              "with:part from:city on:thing for:person in:place near:place at:place"),
    "food": (0, "pizza bread soup cake apple sandwich salad fish/fish pie cookie steak pasta "
             "burger potato/potatoes egg",
             "with:topping from:place from:city for:person without:topping in:place"),
    "topping": (1, "cheese sauce butter honey sugar salt pepper cream chocolate garlic rice", ""),
    "instr": (0, "knife/knives fork spoon hammer pen pencil brush telescope rope stick shovel "
              "needle wrench tool", "with:part from:place"),
    "part": (0, "handle lid label button cover screen wheel stripe pocket corner edge roof "
             "garden lock", ""),
    "attire": (0, "hat coat jacket dress uniform scarf boot glove sweater suit", "with:part"),
    "place": (0, "park kitchen office school library station market hospital restaurant "
              "museum village forest beach street hotel church bank room shop airport theater "
              "factory farm harbor", "near:place in:city with:part"),
    "event": (0, "meeting party concert dinner lunch game festival wedding trip match show "
              "ceremony exam interview", "in:city at:place for:person about:topic with:person in:place after:event"),
    "info": (0, "story film report article song letter speech lecture poem joke message email "
             "novel question", "about:topic about:name by:name by:person on:topic for:person from:city"),
    "topic": (1, "history music science politics art poetry religion football weather money "
              "nature travel philosophy chemistry", ""),
    "name": (2, "John Mary James Anna David Sarah Michael Laura Peter Emma Paul Lucy Mark Alice "
             "Tom Kate Daniel Julia George Helen Robert Linda Steven Nancy Frank Susan Henry "
             "Karen Jack Maria Oliver Sophie Adam Grace Martin Clara Simon Rachel Victor Nora "
             "Oscar Irene Hugo Diana Felix Rosa Leo Vera Ivan Olga Carlos Lena Pedro Hanna Marco "
             "Elena Luca Ingrid Ahmed Fatima Omar Leila Raj Priya Kenji Yuki Chen Mei Jonas "
             "Greta Pablo Ines Tariq Amara Bruno Freya Dmitri Katya Emil Astrid Joel Miriam "
             "Silas Ruth Amos Esther Cyrus Naomi Felipe Lucia Tobias Selma Anton Berit", ""),
    "city": (2, "London Paris Rome Berlin Madrid Tokyo Boston Chicago Dublin Vienna Prague "
             "Lisbon Athens Cairo Delhi Sydney Toronto Denver Seattle Houston Oslo Warsaw Lagos "
             "Lima Quito Kyoto Hanoi Nairobi Geneva Munich Naples Porto Bergen Krakow Tunis", ""),
}
# Verb classes: (weight, words as "base[/past]", object classes, verb-attached PPs).
VERBS = {
    "eat": (10, "eat/ate cook bake taste order share serve prepare finish heat", "food",
            "with:instr with:person in:place at:place after:event during:event in:city for:person"),
    "fix": (10, "fix repair paint clean open close build/built break/broke make/made move "
            "carry wash lift push", "thing",
            "with:instr in:place for:person before:event in:city for:name with:person at:place"),
    "see": (10, "see/saw watch notice find/found meet/met visit call help follow thank greet",
            "person name place",
            "with:instr in:place at:place near:place after:event during:event in:city"),
    "buy": (10, "buy/bought sell/sold bring/brought send/sent give/gave steal/stole borrow "
            "lend/lent take/took keep/kept choose/chose", "thing food instr",
            "for:person for:name from:place from:city from:person at:place to:person to:name in:city"),
    "read": (7, "read/read write/wrote discuss publish review print translate explain "
             "understand/understood", "info",
             "in:place for:person during:event with:person before:event to:person about:topic"),
    "attend": (5, "attend miss organize plan/planned cancel host leave/left join start describe",
               "event", "with:person in:place in:city for:person after:event at:place"),
    "go": (9, "sleep/slept arrive smile laugh wait work live stay walk swim/swam sit/sat travel "
           "run/ran dance cry/cried", "", "in:place at:place near:place with:person with:name "
           "after:event during:event in:city"),
    "talk": (4, "talk argue complain think/thought speak/spoke", "",
             "about:topic about:info with:person to:person to:name during:event"),
    "ctrl": (3, "want decide try/tried hope need refuse agree promise", "", ""),
}
CLOSED = {  # closed classes: (POS, words); repeated words are more frequent
    "det_sg": ("DET", "the the the the the a a a this that every each"),
    "det_pl": ("DET", "the the the these those some"), "det_mass": ("DET", "the the some"),
    "poss": ("PRON", "my your his her our their"), "nom": ("PRON", "I you he she we they"),
    "acc": ("PRON", "me you him her us them"), "rel": ("PRON", "who which that"),
    "num": ("NUM", "two three four five six seven ten twenty 3 5 12 100"),
    "modal": ("AUX", "will would can could should might must did"), "part": ("PART", "not to"),
    "cconj": ("CCONJ", "and and and or"), "sconj": ("SCONJ", "because when although if while "
                                                     "since before after"),
    "manner": ("ADV", "quickly slowly carefully quietly happily easily badly"),
    "freq": ("ADV", "often never always sometimes usually rarely also"),
    "time": ("ADV", "yesterday today later again soon tomorrow"),
    "degree": ("ADV", "very really quite too so"), "punct": ("PUNCT", ". . . . . . . . . ! ,"),
    "adj": ("ADJ", "old new big small young good bad red blue green white black long short tall "
            "happy sad hot cold cheap expensive beautiful strange famous quiet busy empty heavy "
            "dark bright fresh clean dirty rich poor nice great little large early late modern "
            "ancient local foreign strong weak warm soft hard sweet tiny huge simple wooden "
            "broken lucky angry friendly brave clever lazy"),
}
ANIMATE = {"person", "group", "name"}
VOCAB: dict[str, tuple[str, str, str]] = {}  # every lower-cased word the grammar can write: (POS, class, lemma)


def inflect(word, suffix):
    """The regular plural (suffix "s") or past tense (suffix "ed") of a word."""
    if word.endswith("y") and word[-2] not in "aeiou":
        return word[:-1] + ("ies" if suffix == "s" else "ied")
    if suffix == "s":
        return word + ("es" if word.endswith(("s", "sh", "ch", "x")) else "s")
    return word + ("d" if word.endswith("e") else "ed")


def ing(word):
    if word.endswith("e") and not word.endswith(("ee", "ye")):
        return word[:-1] + "ing"
    return word + (word[-1] if word in ("run", "swim", "sit", "plan") else "") + "ing"


def table(cls, pos, text, suffix, s=1.0):
    """Entries (base, inflected) with cumulative Zipf weights; also fills VOCAB."""
    items = []
    for entry in dict.fromkeys(text.split()):
        base, _, other = entry.partition("/")
        items.append((base, other or (inflect(base, suffix) if suffix else base)))
        for w in items[-1]:
            VOCAB.setdefault(w.lower(), (pos, cls, base.lower()))
    return items, np.cumsum([1.0 / (k + 1) ** s for k in range(len(items))]).tolist()


LEX = {c: table(c, "PROPN" if m == 2 else "NOUN", w, "s" if m == 0 else "", 1.5 if m == 2 else 1.0)
       for c, (m, w, _) in NOUNS.items()}
VLEX = {c: table(c, "VERB", v[1], "ed") for c, v in VERBS.items()}
for c, (items, _) in VLEX.items():
    VOCAB.update((ing(base), ("VERB", c, base)) for base, _ in items)
for c, (pos, w) in CLOSED.items():
    table(c, pos, w, "")
for text in [v[2] for v in NOUNS.values()] + [v[3] for v in VERBS.values()]:
    table("ADP", "ADP", " ".join(f.split(":")[0] for f in text.split()), "")
VOCAB["an"] = VOCAB["a"]


def frames(text):
    return [tuple(f.split(":")) for f in text.split()]


class Node:
    def __init__(self, form, pos, cls=None):
        self.form, self.pos, self.cls, self.rel = form, pos, cls, None
        self.left, self.right = [], []

    def dep(self, child, rel, left=False, front=False):
        child.rel = rel
        side = self.left if left else self.right
        at = 0 if front else len(side)
        if not left and rel not in ("conj", "punct"):  # modifiers go before coordinated items
            at = next((i for i, c in enumerate(side) if c.rel == "conj"), at)
        side.insert(at, child)
        return child


class Grammar:
    def __init__(self, seed):
        self.r = random.Random(seed)

    def p(self, prob):
        return self.r.random() < prob

    def word(self, name):
        return Node(self.r.choice(CLOSED[name][1].split()), CLOSED[name][0])

    def flip(self, site, cands):
        """The preferred site, or with probability NOISE another candidate."""
        others = [c for c in cands if c is not site]
        return self.r.choice(others) if others and self.p(NOISE) else site

    def lemma(self, table):
        return self.r.choices(table[0], cum_weights=table[1])[0]

    def np(self, cls, pron=None, simple=False):
        r = self.r
        if pron and cls == "person" and self.p(0.25):
            return Node(self.word(pron).form, "PRON", cls)
        sg, pl = self.lemma(LEX[cls])
        mass = NOUNS[cls][0]
        if mass == 2:
            return Node(sg, "PROPN", cls)
        many = not mass and self.p(0.3)
        head = Node(pl if many else sg, "NOUN", cls)
        u = r.random()
        if many and u < 0.15:
            head.dep(self.word("num"), "nummod", left=True)
        elif (many and u < 0.25) or (mass and u < 0.5):
            pass
        elif u < 0.32:
            head.dep(self.word("poss"), "nmod:poss", left=True)
        else:
            head.dep(self.word("det_mass" if mass else "det_pl" if many else "det_sg"), "det",
                     left=True)
        if self.p(0.18):
            adjs = CLOSED["adj"][1].split()
            for adj in r.sample(adjs[:40] if self.p(0.7) else adjs, 2 if self.p(0.2) else 1):
                a = head.dep(Node(adj, "ADJ"), "amod", left=True)
                if self.p(0.1):
                    a.dep(self.word("degree"), "advmod", left=True)
            if self.p(0.06):  # "big and red"
                self.coord(a, self.word("adj"))
        comp = {"person": "topic", "thing": "place", "food": "topping", "event": "topic",
                "place": "city"}.get(cls)
        if comp and self.p(0.1):  # "the history teacher", "the London museum"
            head.dep(Node(self.lemma(LEX[comp])[0], "PROPN" if comp == "city" else "NOUN"),
                     "compound", left=True)
        if not simple and self.p(0.05):
            self.coord(head, self.np(cls, simple=True))
        return head

    def coord(self, site, conj):
        conj.dep(self.word("cconj"), "cc", left=True, front=True)
        return site.dep(conj, "conj")

    def predicate(self, depth, form=None, vcls=None):
        """A verb with its auxiliaries, object, PPs and modifiers: (verb, nouns after it)."""
        r = self.r
        weights = [v[0] if c != "ctrl" or depth < 2 else 0 for c, v in VERBS.items()]
        vcls = vcls or r.choices(list(VERBS), weights)[0]
        u = r.random() if form is None else 0
        form = form or ("past" if u < 0.62 else "base")
        base, past_form = self.lemma(VLEX[vcls])
        v = Node({"base": base, "past": past_form, "ing": ing(base)}[form], "VERB", vcls)
        self.verbs.append(v)
        if u >= 0.62:
            v.dep(Node("did", "AUX") if u > 0.9 else self.word("modal"), "aux", left=True)
        if u > 0.85:
            v.dep(Node("not", "PART"), "advmod", left=True)
        if self.p(0.08):
            v.dep(self.word("freq"), "advmod", left=True)
        if vcls == "ctrl":  # "wanted to eat the cake"
            comp, nouns = self.predicate(depth + 1, "base", r.choice(list(VERBS)[:7]))
            v.dep(comp, "xcomp").dep(Node("to", "PART"), "mark", left=True, front=True)
            return v, nouns
        nouns = []
        if VERBS[vcls][2]:
            obj_cls = r.choice(VERBS[vcls][2].split())
            nouns.append(v.dep(self.np(obj_cls, pron="acc"), "obj"))
        n_pp = r.choices([0, 1, 2, 3], [0.1, 0.35, 0.35, 0.2] if depth == 0 else [0.5, 0.35, 0.15, 0])[0]
        self.add_pps(n_pp, nouns, v, vcls)
        if len(nouns) >= 2 and self.p(0.3):  # scope of "and": conjoin like with like
            site = r.choice(nouns)
            self.coord(self.flip(site, nouns), self.np(site.cls, simple=True))
        sites = [n for n in nouns if n.pos != "PRON"][-3:]
        if depth == 0 and sites and self.p(0.2):  # "saw the man [,] sitting in the park"
            site, comma = sites[-1], self.p(0.3)
            part, _ = self.predicate(2, "ing", r.choice(["go", "go", "talk", "see", "eat", "read"]))
            if comma:
                part.dep(Node(",", "PUNCT"), "punct", left=True, front=True)
            prefer_noun = site.cls in ANIMATE and not comma
            site = self.flip(site if prefer_noun else v, [v, site])
            site.dep(part, "acl" if site is not v else "advcl")
        if depth < 2 and sites and self.p(0.25 if depth == 0 else 0.05):
            site = r.choice(sites)
            self.flip(site, sites).dep(self.relcl(site.cls, depth + 1), "acl:relcl")
        if self.p(0.12):
            v.dep(self.word("manner"), "advmod")
        if depth == 0 and self.p(0.1):  # verb phrase coordination
            conj, more = self.predicate(1, form)
            self.coord(v, conj)
            nouns += more
        return v, nouns

    def add_pps(self, n, nouns, v=None, vcls=None):
        """Add n PPs, each on the verb v (if any) or one of the last two nouns."""
        for _ in range(n):
            cands = ([v] if v else []) + [x for x in nouns if x.pos != "PRON"][-2:]
            on_noun = [x for x in cands if x is not v and NOUNS[x.cls][2]]
            if on_noun and (v is None or self.p(0.55)):
                site = self.r.choice(on_noun)
                options = frames(NOUNS[site.cls][2])
            elif v is not None:
                site, options = v, frames(VERBS[vcls][3])
            else:
                return
            prep, pobj_cls = self.r.choice(options)
            pobj = self.np(pobj_cls, simple=True)
            pobj.dep(Node(prep, "ADP"), "case", left=True, front=True)
            site = self.flip(site, cands)
            nouns.append(site.dep(pobj, "obl" if site is v else "nmod"))

    def subject(self, depth):
        if self.p(0.25 if depth == 0 else 0.4):
            return Node(self.word("nom").form, "PRON", "person")
        cls = self.r.choices(["person", "name", "group"], [6, 3, 1])[0]
        subj = self.np(cls)
        if depth == 0 and subj.pos == "NOUN" and self.p(0.4):
            self.add_pps(self.r.choice([1, 1, 2]), [subj])
        if depth == 0 and self.p(0.08):
            subj.dep(self.relcl(cls, 1), "acl:relcl")
        return subj

    def relcl(self, head_cls, depth):
        """A subject or object relative clause on a noun of class head_cls."""
        rel = "that" if self.p(0.4) else "who" if head_cls in ANIMATE else "which"
        verbs = [c for c, v in VERBS.items() if head_cls in v[2].split()]
        if verbs and self.p(0.35):  # "the cake that John ate"
            v = Node(self.lemma(VLEX[self.r.choice(verbs)])[1], "VERB")
            v.dep(Node(rel, "PRON"), "obj", left=True)
            v.dep(self.subject(2), "nsubj", left=True)
            return v
        v, _ = self.predicate(depth, "past")
        v.dep(Node(rel, "PRON"), "nsubj", left=True, front=True)
        return v

    def clause(self, depth):
        v, nouns = self.predicate(depth)
        v.dep(self.subject(depth), "nsubj", left=True, front=True)
        return v

    def final_site(self, root, prefer_root):
        """The root, or (dispreferred unless not prefer_root) the last verb on the right edge."""
        n, edge = root, [root]
        while n.right:
            n = n.right[-1]
            edge += [n] if n.pos == "VERB" else []
        return self.flip(root if prefer_root else edge[-1], [root, edge[-1]])

    def sentence(self):
        self.verbs = []
        root = self.clause(0)
        if self.p(0.15):  # adverbial clause, before (with a comma) or after the main clause
            mark = self.word("sconj")
            sub = self.clause(1)
            sub.dep(mark, "mark", left=True, front=True)
            if self.p(0.4):
                sub.dep(Node(",", "PUNCT"), "punct")
                root.dep(sub, "advcl", left=True, front=True)
            else:  # "because", "although", "since" prefer the main verb
                site = self.final_site(root, mark.form in ("because", "although", "since"))
                site.dep(sub, "advcl")
        if self.p(0.1):
            self.final_site(root, True).dep(self.word("time"), "advmod")
        elif self.p(0.06):  # "Yesterday , ..."
            root.dep(Node(",", "PUNCT"), "punct", left=True, front=True)
            root.dep(self.word("time"), "advmod", left=True, front=True)
        root.dep(Node("." if self.p(0.9) else "!", "PUNCT"), "punct")
        root.rel = "root"
        return linearize(root)


def linearize(root):
    """Rows [form, pos, head, deprel] in word order; heads 1-based, 0 for the root."""
    order = []

    def visit(n):
        for c in n.left:
            visit(c)
        order.append(n)
        for c in n.right:
            visit(c)
    visit(root)
    index = {id(n): i + 1 for i, n in enumerate(order)}
    heads = {id(c): index[id(n)] for n in order for c in n.left + n.right}
    rows = [[n.form, n.pos, heads.get(id(n), 0), n.rel] for n in order]
    for row, nxt in zip(rows, rows[1:]):
        nxt = nxt[0].lower()
        if row[0] == "a" and (nxt[0] in "aeio" or nxt[0] == "u" and nxt[:3] != "uni"):
            row[0] = "an"
    rows[0][0] = rows[0][0][0].upper() + rows[0][0][1:]
    arcs = [sorted((h, d)) for d, (_, _, h, _) in enumerate(rows, 1)]
    assert not any(a < c < b < d for a, b in arcs for c, d in arcs), rows  # projective
    return rows


def sentences(seed, n, *, min_words=3, max_words=25):
    """``n`` sentences of ``min_words`` to ``max_words`` words drawn from ``Grammar(seed)``."""
    grammar = Grammar(seed)
    out = []
    while len(out) < n:
        rows = grammar.sentence()
        if min_words <= len(rows) <= max_words:
            out.append(rows)
    return out
