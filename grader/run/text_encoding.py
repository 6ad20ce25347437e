"""Decoding a written file's bytes into text whatever encoding the student's editor saved it in.

Editors do not all save UTF-8: Windows Notepad's "Unicode" is UTF-16 (little-endian, with a byte
order mark), Word's "Plain Text" and older Notepad save the Windows code page (Windows-1252 in
western locales: an en dash, smart quotes, "×" and "·" are single bytes that are not UTF-8). Read
as UTF-8 with replacement, the first is a run of NUL bytes the reader finds no heading in, and the
second loses every such character to U+FFFD; a careful TA opening the file sees neither problem.
The rule, in order: a byte order mark names the encoding; text with NUL bytes at every other
position is UTF-16 without a mark; bytes that are valid UTF-8 are UTF-8; otherwise Windows-1252
(whose undefined bytes are kept as U+FFFD). A note says when the file was not UTF-8, so that
what was read can be checked against the file."""

from __future__ import annotations

import codecs

BOMS = ((codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF32_BE, "utf-32-be"),
        (codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))
"""Byte order marks and the encodings they name (UTF-32's first: its little-endian mark starts with UTF-16's)."""
NAMES = {"utf-16-le": "UTF-16", "utf-16-be": "UTF-16", "utf-32-le": "UTF-32", "utf-32-be": "UTF-32",
         "cp1252": "Windows-1252"}
"""How a note names an encoding other than UTF-8."""


def _utf16_without_mark(data: bytes) -> str | None:
    """'utf-16-le'/'utf-16-be' when at least 40% of the even (odd) bytes of ``data`` are NUL and almost
    none of the others are: ASCII-heavy text in UTF-16 without a byte order mark."""
    if len(data) < 4:
        return None
    even, odd = data[0::2], data[1::2]
    zeros_even, zeros_odd = even.count(0) / len(even), odd.count(0) / len(odd)
    if zeros_odd >= 0.4 and zeros_even < 0.05:
        return "utf-16-le"
    if zeros_even >= 0.4 and zeros_odd < 0.05:
        return "utf-16-be"
    return None


def decode_text(data: bytes) -> tuple[str, str | None]:
    """(text, encoding's name for a note, or None when the file was UTF-8 or ASCII). A UTF-8 byte
    order mark is kept (the reader drops it), so that a UTF-8 file reads exactly as before."""
    for bom, codec in BOMS:
        if data.startswith(bom):
            if codec == "utf-8":
                return data.decode("utf-8", errors="replace"), None
            return data[len(bom):].decode(codec, errors="replace"), NAMES[codec]
    unmarked = _utf16_without_mark(data) if b"\x00" in data else None
    if unmarked:
        return data.decode(unmarked, errors="replace"), NAMES[unmarked]
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        if exc.start >= len(data) - 3 and exc.reason == "unexpected end of data":
            return data.decode("utf-8", errors="replace"), None   # a multi-byte character cut by the size cap
    return data.decode("cp1252", errors="replace"), NAMES["cp1252"]
