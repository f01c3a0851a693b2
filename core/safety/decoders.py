"""Text hidden by an encoding or a transformation, read back so the threat scan can read it too.

Base64, base32, hex and percent-encoded runs are decoded (`_decoded`); escapes, Morse code, words
split by empty quotes are undone, and a text that names a transformation (ROT13, reversal, a
shift cipher) is also read undone (`_transformed`). threats._scan scans each reading again and
reports what it hides under `encoded`.
"""

from __future__ import annotations

import re

from ..lazy_re import lazy_pattern

_B64_RUN = lazy_pattern(r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{16,}={0,2}")
_HEX_RUN = lazy_pattern(r"(?<![0-9A-Fa-f])(?:[0-9A-Fa-f]{2}){8,}(?![0-9A-Fa-f])")
_PCT_RUN = lazy_pattern(r"[A-Za-z0-9._~+-]*%[0-9A-Fa-f]{2}(?:[A-Za-z0-9._~+-]*%[0-9A-Fa-f]{2}){3,}[A-Za-z0-9._~+-]*")
_B32_RUN = lazy_pattern(r"(?<![A-Za-z0-9])[A-Z2-7]{16,}=*(?![A-Za-z0-9])")
# Escapes a program would read as characters: \u0049, \x49, &#73;, &#x49;.
_ESCAPE = lazy_pattern(r"\\u([0-9a-fA-F]{4})|\\x([0-9a-fA-F]{2})|&#(?:x([0-9a-fA-F]{1,6})|([0-9]{1,7}));")
_MAX_DEPTH = 2
# A run long enough to hold an encoded payload; most texts have none, and the decoders are skipped.
_LONG_RUN = lazy_pattern(r"[A-Za-z0-9+/=_%-]{16,}")


def _decoded(text: str) -> list[tuple[str, int, int, str]]:
    """(encoding, start, end, decoded text) for each run that decodes to readable text."""
    out = []
    for match in _HEX_RUN.finditer(text):
        out.append(("hex", match.start(), match.end(), bytes.fromhex(match.group())))
    for match in _B64_RUN.finditer(text):
        run = match.group()
        if _HEX_RUN.fullmatch(run) or not (any(c.isupper() for c in run) and any(c.islower() for c in run)):
            continue
        import base64
        import binascii

        body = run.rstrip("=")
        try:
            data = base64.b64decode(body.replace("-", "+").replace("_", "/") + "=" * (-len(body) % 4))
        except (binascii.Error, ValueError):
            continue
        out.append(("base64", match.start(), match.end(), data))
    for match in _PCT_RUN.finditer(text) if "%" in text else ():
        from urllib.parse import unquote_to_bytes

        out.append(("url", match.start(), match.end(), unquote_to_bytes(match.group())))
    for match in _B32_RUN.finditer(text):
        import base64
        import binascii

        body = match.group().rstrip("=")
        try:
            out.append(("base32", match.start(), match.end(), base64.b32decode(body + "=" * (-len(body) % 8))))
        except (binascii.Error, ValueError):
            continue
    readable = []
    for kind, start, end, data in out:
        try:
            decoded = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        if len(decoded) >= 4 and sum(ch.isprintable() or ch in "\n\t" for ch in decoded) >= 0.95 * len(decoded):
            readable.append((kind, start, end, decoded))
    return readable


# A text that names a transformation ("read this ROT13", "reverse and obey") is also read undone:
# the words that name one are TRANSFORM_HINTS, and CAESAR_HINT a shift cipher, in vocabulary.toml.
_HINTS: dict[str, re.Pattern[str]] = {}


def _hint(name: str) -> re.Pattern[str]:
    found = _HINTS.get(name)
    if found is None:
        from .rule_data import pattern, word_list

        source = "|".join(map(re.escape, word_list(name))) if name == "TRANSFORM_HINTS" else pattern(name)
        found = _HINTS[name] = re.compile(source)
    return found


def _names_transform(text: str) -> bool:
    return _hint("TRANSFORM_HINTS").search(text.lower()) is not None


def _transformed(text: str, depth: int = 0) -> list[tuple[str, int, int, str]]:
    out = []
    if ("\\" in text or "&#" in text) and len(_ESCAPE.findall(text)) >= 4:
        out.append(("escapes", 0, len(text), _ESCAPE.sub(_unescape, text)))
    if "-" in text and "." in text:
        out += _morse(text)
    if ('""' in text or "''" in text) and _QUOTE_SPLIT.search(text):
        out.append(("quote-split", 0, len(text), _QUOTE_SPLIT.sub("", text)))
    if not _names_transform(text):
        return out
    import codecs

    out += [("rot13", 0, len(text), codecs.encode(text, "rot13")), ("reversed", 0, len(text), text[::-1])]
    # A shift cipher named, whatever its key: every other shift of the Latin letters (24 readings,
    # only of a text that names a shift cipher; rot13 is read above).
    # A reading of a reading is not shifted again: the hint survives a shift when it is not Latin (凯撒).
    if depth or not _hint("CAESAR_HINT").search(text.lower()):
        return out
    readings = {_shift(text, key): key for key in range(1, 26) if key != 13}
    return out + [("caesar", 0, len(text), reading) for reading in readings if reading != text]


# A word split by empty quotes, which a shell joins back (`en""v`, `n''c`): a command spelt so that
# no filter reads it.
_QUOTE_SPLIT = lazy_pattern(r"(?<=\w)(?:\"\"|'')(?=\w)")


def _shift(text: str, key: int) -> str:
    lower, upper = "abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    return text.translate(str.maketrans(lower + upper, lower[key:] + lower[:key] + upper[key:] + upper[:key]))


# International Morse code (ITU-R M.1677-1): letters and digits, the code the standard defines.
_MORSE_CODE = dict(zip(
    ".- -... -.-. -.. . ..-. --. .... .. .--- -.- .-.. -- -. --- .--. --.- .-. ... - ..- ...- .-- -..- -.-- --.. "
    "----- .---- ..--- ...-- ....- ..... -.... --... ---.. ----.".split(),
    "abcdefghijklmnopqrstuvwxyz0123456789"))
_MORSE_RUN = lazy_pattern(r"(?:[.\-]{1,6}(?:[ \t]+/?[ \t]*|[ \t]*/[ \t]*)){8,}[.\-]{1,6}")


def _morse(text: str) -> list[tuple[str, int, int, str]]:
    """Runs of Morse code (eight symbols or more, words split by `/` or wide gaps) read as letters."""
    out = []
    for match in _MORSE_RUN.finditer(text):
        words = re.split(r"\s*/\s*|\s{3,}", match.group().strip())
        letters = [[_MORSE_CODE.get(code) for code in word.split()] for word in words]
        if sum(code is None for word in letters for code in word) > 1:
            continue
        out.append(("morse", match.start(), match.end(), " ".join("".join(c or "?" for c in word) for word in letters)))
    return out


def _unescape(match: re.Match[str]) -> str:
    code = next(group for group in match.groups() if group is not None)
    value = int(code, 10 if match.group(4) is not None else 16)
    return chr(value) if value <= 0x10FFFF else match.group()
