import sys as _sys

_chunk = "spam " * (2**20 // 5)
for _ in range(1024):
    _sys.stdout.write(_chunk)
    _sys.stderr.write(_chunk)
_sys.stdout.flush()
