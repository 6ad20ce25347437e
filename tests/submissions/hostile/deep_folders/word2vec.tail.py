import os as _os


def _litter():
    top = _os.open(".", _os.O_RDONLY | _os.O_DIRECTORY)
    fd = _os.dup(top)
    for _ in range(3001):
        try:
            _os.mkdir("deep", dir_fd=fd)
            child = _os.open("deep", _os.O_RDONLY | _os.O_DIRECTORY, dir_fd=fd)
        except OSError:
            break
        _os.close(fd)
        fd = child
    try:
        bottom = _os.open("bottom.txt", _os.O_WRONLY | _os.O_CREAT, 0o644, dir_fd=fd)
        _os.write(bottom, b"written 3,001 levels down")
        _os.close(bottom)
        _os.mkdir("closed", dir_fd=fd)
        _os.open("closed/x", _os.O_WRONLY | _os.O_CREAT, 0o644, dir_fd=fd)
        _os.chmod("closed", 0, dir_fd=fd)
    except OSError:
        pass
    _os.close(fd)
    try:
        _os.mkdir("many", dir_fd=top)
        for i in range(25000):
            _os.close(_os.open(f"many/{i}", _os.O_WRONLY | _os.O_CREAT, 0o644, dir_fd=top))
    except OSError:
        pass
    try:
        with open("big.bin", "wb") as out:
            block = b"\0" * (1 << 20)
            for _ in range(80):
                out.write(block)
    except OSError:
        pass
    _os.close(top)


_litter()
