"""``python -m grader`` and the ``grader`` command."""

from grader.cli import main

if __name__ == "__main__":
    main()
