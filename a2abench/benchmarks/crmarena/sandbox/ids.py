"""Salesforce record Ids: the 15-character case-sensitive form and its 18-character twin.

The 3-character suffix encodes, five characters at a time, which letters are upper case, so
an 18-character Id survives case-insensitive systems. Salesforce accepts either form in a
filter; we normalise both to the 18-character form stored in the org tables.
"""

from __future__ import annotations

_SUFFIX_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345"
_BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def _chunk_char(chunk: str) -> str:
    """The suffix character of one 5-character chunk (an Id with non-ASCII text: rare)."""
    return _SUFFIX_ALPHABET[sum(1 << i for i, ch in enumerate(chunk) if "A" <= ch <= "Z")]


# ASCII letters A-Z to "1", every other ASCII character to "0": an Id's upper-case mask.
_UPPER_BITS = str.maketrans({chr(c): "1" if 65 <= c <= 90 else "0" for c in range(128)})


def _suffix(id15: str) -> str:
    if id15.isascii():   # the common case, in C: bit i of the mask is character i
        mask = int(id15.translate(_UPPER_BITS)[::-1], 2)
        return (_SUFFIX_ALPHABET[mask & 31] + _SUFFIX_ALPHABET[mask >> 5 & 31]
                + _SUFFIX_ALPHABET[mask >> 10 & 31])
    return _chunk_char(id15[0:5]) + _chunk_char(id15[5:10]) + _chunk_char(id15[10:15])


def normalize_id(value: str) -> str | None:
    """The canonical 18-character Id for a 15- or 18-character Id, or None if it is not one."""
    if len(value) not in (15, 18) or not value.isascii() or not value.isalnum():
        return None
    if len(value) == 15:
        return value + _suffix(value)
    suffix = value[15:].upper()
    if any(ch not in _SUFFIX_ALPHABET for ch in suffix):
        return None
    chars = list(value[:15])
    for block, ch in enumerate(suffix):
        bits = _SUFFIX_ALPHABET.index(ch)
        for i in range(5):
            pos = block * 5 + i
            chars[pos] = chars[pos].upper() if bits & (1 << i) else chars[pos].lower()
    id15 = "".join(chars)
    return id15 + _suffix(id15)


def make_id(prefix: str, number: int, pod: str = "Sb") -> str:
    """A deterministic, well-formed 18-character Id: key prefix, pod, base-62 serial, suffix."""
    if len(prefix) != 3 or len(pod) != 2:
        raise ValueError("prefix must have 3 characters and pod 2")
    if not 0 <= number < 62 ** 10:
        raise ValueError("serial number too large for an Id")
    digits = []
    n = number
    while n:
        n, r = divmod(n, 62)
        digits.append(_BASE62[r])
    id15 = prefix + pod + "".join(reversed(digits)).rjust(10, "0")
    return id15 + _suffix(id15)
