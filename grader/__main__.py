"""``python -m grader`` and the ``grader`` command.

The course repository is chosen here, before any other module of the grader is imported (their
paths are read once, from ``grader.common.paths``): see :func:`grader.common.paths.choose_root`.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path


def main() -> None:
    from grader.common import paths

    root, how, problem = paths.choose_root(sys.argv[1:], Path.cwd(), dict(os.environ))
    if problem:
        print(f"Error: {problem}", file=sys.stderr)
        sys.exit(2)
    if root is not None and (root != paths.REPO_ROOT or how != paths.ROOT_FROM):
        os.environ[paths.ROOT_VARIABLE] = str(root)
        os.environ[paths.ROOT_FROM_VARIABLE] = how
        import importlib

        importlib.reload(paths)
    from grader.cli import main as cli

    cli()


if __name__ == "__main__":
    main()
