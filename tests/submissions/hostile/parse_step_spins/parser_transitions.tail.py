

def _parse_step(self, transition):
    """RIGHT-ARC written with `while` where `if` was meant, on a condition its body never changes:
    every RIGHT-ARC spins forever."""
    if transition == "S":
        self.stack.append(self.buffer.pop(0))
    elif transition == "LA":
        self.dependencies.append((self.stack[-1], self.stack.pop(-2)))
    elif transition == "RA":
        dependent = self.stack[-1]
        while self.stack[-1] == dependent:
            head = self.stack[-2]
        self.dependencies.append((head, self.stack.pop()))


PartialParse.parse_step = _parse_step
