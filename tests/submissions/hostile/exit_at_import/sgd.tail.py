import sys as _sys

_sys.exit(0)
