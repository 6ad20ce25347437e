"""The import graph of a source tree, read from the code (ast), not by importing it.

Every import statement counts, at module level or inside a function (an import put in a function to
dodge a cycle is still a cycle), relative imports resolved against the importing module. A folder
that is not a package (tools/, and grader/untrusted/ as the worker copies it) imports its files as
top-level names: ``from wire import X`` in grader/untrusted/ is an edge to grader.untrusted.wire.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Import:
    module: str       # as written, without the leading dots
    level: int        # the number of leading dots (0: absolute)
    names: tuple[str, ...]
    line: int


def imports_of(path: Path) -> list[Import]:
    """Every import of ``path``, wherever it stands: import statements, calls of
    ``importlib.import_module`` or ``__import__`` whose module is a string written in the call, and
    the modules a registry lists by name (:func:`_registered`)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found = _registered(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [Import(alias.name, 0, (), node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            found.append(Import(node.module or "", node.level, tuple(a.name for a in node.names), node.lineno))
        elif isinstance(node, ast.Call) and _dynamic_import(node.func) and node.args:
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                level = len(first.value) - len(first.value.lstrip("."))
                found.append(Import(first.value[level:], level, (), node.lineno))
    return found


def _registered(tree: ast.Module) -> list[Import]:
    """The modules a registry imports by name: the strings of a module-level tuple or list whose
    name ends in MODULES (``CHECK_MODULES = ("a2.checks.word2vec", ...)``)."""
    found = []
    for node in tree.body:
        target = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else \
            node.target if isinstance(node, ast.AnnAssign) else None
        if (isinstance(target, ast.Name) and target.id.endswith("MODULES")
                and isinstance(node.value, (ast.Tuple, ast.List))):
            names = [item for item in node.value.elts if isinstance(item, ast.Constant) and isinstance(item.value, str)]
            found += [Import(item.value.lstrip("."), len(item.value) - len(item.value.lstrip(".")), (), item.lineno)
                      for item in names]
    return found


def _dynamic_import(func: ast.expr) -> bool:
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    return name in ("import_module", "__import__")


def module_name(path: Path, root: Path) -> str:
    """``root/a2/checks/model.py`` -> ``a2.checks.model``; a package's __init__ is the package."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _targets(importer: str, is_package: bool, imp: Import, known: set[str], flat: set[str]) -> set[str]:
    """The modules of ``known`` that ``imp``, written in module ``importer``, loads."""
    if imp.level:
        base = importer.split(".") if is_package else importer.split(".")[:-1]
        base = base[: len(base) - (imp.level - 1)]
        stem = ".".join(base + ([imp.module] if imp.module else []))
    else:
        stem = imp.module
        folder = importer.rsplit(".", 1)[0] if "." in importer else ""
        sibling = f"{folder}.{imp.module}"
        if folder in flat and (sibling in known or imp.module == ""):
            stem = sibling   # a folder of scripts: its siblings are top-level names
    targets = {f"{stem}.{name}" for name in imp.names if f"{stem}.{name}" in known}
    if len(targets) < len(imp.names) or not imp.names:
        # names that are not submodules come from the module itself (or its nearest known parent:
        # ``import a2.checks.model`` loads a2.checks.model)
        parts = stem.split(".")
        while parts and ".".join(parts) not in known:
            parts.pop()
        if parts:
            targets.add(".".join(parts))
    targets.discard(importer)
    return targets


def import_graph(root: Path, folders: list[str], flat: tuple[str, ...] = ()) -> dict[str, dict[str, list[int]]]:
    """importer -> {imported module: [lines]} over every .py file under ``root``/``folders``.
    ``flat`` names the folders (relative to ``root``, slashes) whose files import each other as
    top-level names."""
    files = {module_name(path, root): path for folder in folders for path in sorted((root / folder).rglob("*.py"))}
    known = set(files)
    flat_names = {folder.replace("/", ".") for folder in flat}
    graph: dict[str, dict[str, list[int]]] = {}
    for name, path in files.items():
        edges: dict[str, list[int]] = {}
        for imp in imports_of(path):
            for target in _targets(name, path.name == "__init__.py", imp, known, flat_names):
                edges.setdefault(target, []).append(imp.line)
        graph[name] = edges
    return graph


def cycles(graph: dict[str, dict[str, list[int]]]) -> list[list[str]]:
    """The strongly connected components of more than one module, each sorted, the list sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(start: str) -> None:   # Tarjan's algorithm, iterative (no recursion limit to meet)
        work = [(start, iter(sorted(graph.get(start, {}))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, {})))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def describe(graph: dict[str, dict[str, list[int]]], component: list[str]) -> str:
    """A cycle in words: each edge inside it with the lines that draw it."""
    members = set(component)
    edges = [f"{a} -> {b} (line {', '.join(map(str, lines))})"
             for a in component for b, lines in sorted(graph[a].items()) if b in members]
    return f"{len(component)} modules: " + "; ".join(edges)


def room_of(module: str, packages: set[str]) -> str:
    """The room ``module`` belongs to: its folder when the folder holds no sub-folder (a leaf
    package: ``grader.run.engine`` -> ``grader.run``), else the module itself (the modules at the
    top of a folder that has sub-folders, like ``grader.cli`` or ``grader.classroom.batch``, and
    the scripts of a folder that is no package, each stand for themselves)."""
    if module in packages:      # a package's __init__ is its folder
        return module
    folder = module.rsplit(".", 1)[0] if "." in module else ""
    if folder not in packages or any(p.startswith(folder + ".") for p in packages):
        return module
    return folder


def room_graph(graph: dict[str, dict[str, list[int]]]) -> dict[str, dict[str, list[str]]]:
    """The import graph between rooms (:func:`room_of`): room -> {room: ["a -> b (line n)", ...]},
    from every import of :func:`import_graph` (module level or inside a function alike)."""
    packages = {name for name in graph if any(other.startswith(name + ".") for other in graph)}
    rooms: dict[str, dict[str, list[str]]] = {}
    for importer, targets in graph.items():
        mine = room_of(importer, packages)
        edges = rooms.setdefault(mine, {})
        for target, lines in targets.items():
            theirs = room_of(target, packages)
            if theirs != mine:
                edges.setdefault(theirs, []).append(f"{importer} -> {target} (line {lines[0]})")
    return rooms
