"""Secrets redacted across an entry's fields: its text, its source and its keywords.

`threats.redact` redacts what the secret rules find in one string. An entry is more than one
string, and a secret found in one field is as secret in the others, where nothing may name it
as one: "password: S3cr3t!x" in the text and "copied from S3cr3t!x notes" in the source.
`redact_entry` therefore
- redacts each field by the rules;
- reads the fields joined, one per line, so a secret split across them (a text ending in
  "password:" and a source that is the password) is found, and each field's part of it redacted;
- redacts every other occurrence, in every field, of a value found secret anywhere in the entry;
- names the keywords that hold part of a secret (a keyword is indexed: the write refuses it).
docs/threat-scan.md#secrets says what is found.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .threats import Finding

__all__ = ["Redacted", "redact_entry", "redact_values"]

# A value found secret is looked for in the other fields only when it is at least this long: a
# shorter one ("abc") would redact ordinary words of the source.
MIN_VALUE = 4


class Redacted:
    """An entry's fields with their secrets redacted. `findings`: the secrets of the text (as
    `threats.redact` reports them, plus the values found elsewhere); `values`: every secret value
    found in the entry; `fragments`: the positions (from 0) of the keywords that hold part of one."""

    __slots__ = ("text", "source", "keywords", "findings", "values", "fragments")

    def __init__(self, text: str, source: str, keywords: list[str], findings: list[Finding], values: list[str],
                 fragments: list[int]) -> None:
        self.text = text
        self.source = source
        self.keywords = keywords
        self.findings = findings
        self.values = values
        self.fragments = fragments

    @property
    def changed(self) -> bool:
        return bool(self.values)


def redact_entry(text: str, source: str = "", keywords: list[str] | tuple[str, ...] = ()) -> Redacted:
    """`text`, `source` and `keywords` with every secret of any of them redacted in all of them."""
    from .threats import _label, _secrets

    fields = [text, source, *keywords]
    found = [_secrets(field) if field else [] for field in fields]
    spans: list[list[tuple[int, int, str]]] = [[(f.start, f.end, _label(f.rule)) for f in field] for field in found]
    # The fields joined, one per line, and the text and source run together: a secret that runs
    # from one into the next ("password:" ending the text and the password in the source; half a
    # token in each). A finding of the joined fields counts only where it is new in every field it
    # touches: "password is sunflower42" run into a source "sticky note" finds nothing new.
    for separator, count in (("\n", len(fields)), ("", 2)):
        if not any(fields[1:count]):
            continue
        starts, at = [], 0
        for field in fields[:count]:
            starts.append(at)
            at += len(field) + len(separator)
        for finding in _secrets(separator.join(fields[:count])):
            parts = []
            for index, field in enumerate(fields[:count]):
                lo, hi = max(finding.start, starts[index]), min(finding.end, starts[index] + len(field))
                if hi > lo:
                    parts.append((index, lo - starts[index], hi - starts[index]))
            if not any(_touches(spans[index], lo, hi) for index, lo, hi in parts):
                for index, lo, hi in parts:
                    spans[index].append((lo, hi, _label(finding.rule)))
    values = {fields[index][start:end]: label for index, field_spans in enumerate(spans)
              for start, end, label in field_spans}
    values = {value: label for value, label in values.items() if value.strip()}
    if not values:
        return Redacted(text, source, list(keywords), [], [], [])
    longer = {piece: label for value, label in values.items() for piece in _pieces(value)}
    for index, field in enumerate(fields):
        spans[index] += [span for span in _occurrences(field, longer) if not _covered(spans[index], span[0], span[1])]
    redacted = [_apply(field, field_spans) for field, field_spans in zip(fields, spans)]
    fragments = [index - 2 for index in range(2, len(fields)) if spans[index]
                 or any(len(fields[index]) >= MIN_VALUE and fields[index].lower() in value.lower() for value in values)]
    findings = _text_findings(text, found[0], spans[0])
    return Redacted(redacted[0], redacted[1], redacted[2:], findings, sorted(values, key=len, reverse=True),
                    fragments)


def redact_values(value: str, values: list[str], label: str = "secret") -> str:
    """`value` with every occurrence of `values` (secrets found elsewhere in the entry) redacted."""
    if not value or not values:
        return value
    spans = _occurrences(value, {piece: label for found in values for piece in _pieces(found)})
    return _apply(value, spans) if spans else value


def _pieces(value: str) -> list[str]:
    """What of a secret value is looked for in the other fields: the value, each of its words
    (backup codes are a list; a key comes after its name, `AccountKey=...`), and each run of
    letters and digits of eight or more (a key's random body without its prefix: `sk-proj-` and
    what follows). A piece without a digit counts only from 20 characters on: `AccountKey` names
    a key, it is not one."""
    import re

    out = {value.strip()} if len(value.strip()) >= MIN_VALUE else set()
    for word in re.split(r"[\s,;:=]+", value):
        out.add(word)
        out.update(re.findall(r"[A-Za-z0-9]{8,}", word))
    return [piece for piece in out if piece == value.strip() or len(piece) >= MIN_VALUE and
            (any(char.isdigit() for char in piece) or len(piece) >= 20)]


def _occurrences(field: str, values: dict[str, str]) -> list[tuple[int, int, str]]:
    """Where each value occurs in `field`, in any case (the index lower-cases what it keeps)."""
    out: list[tuple[int, int, str]] = []
    if not field:
        return out
    lower = field.lower()
    hay = lower if len(lower) == len(field) else field
    for value, label in values.items():
        needle = value.lower() if hay is lower else value
        at = hay.find(needle)
        while at != -1:
            out.append((at, at + len(needle), label))
            at = hay.find(needle, at + 1)
    # a run of the field that is part of a value: a key's body without its prefix, half a token
    import re

    for run in re.finditer(r"[A-Za-z0-9+/_-]{12,}", field):
        piece = run.group().lower()
        if any(char.isdigit() for char in piece) or len(piece) >= 20:
            for value, label in values.items():
                if piece in value.lower():
                    out.append((run.start(), run.end(), label))
                    break
    return out


def _touches(spans: list[tuple[int, int, str]], start: int, end: int) -> bool:
    return any(lo < end and start < hi for lo, hi, _ in spans)


def _covered(spans: list[tuple[int, int, str]], start: int, end: int) -> bool:
    return any(lo <= start and end <= hi for lo, hi, _ in spans)


def _apply(field: str, spans: list[tuple[int, int, str]]) -> str:
    """`field` with each span replaced by `[REDACTED:<label>]`, overlapping spans merged."""
    if not spans:
        return field
    merged: list[list] = []
    for start, end, label in sorted(spans):
        if merged and start < merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end, label])
    pieces, last = [], 0
    for start, end, label in merged:
        pieces += [field[last:start], f"[REDACTED:{label}]"]
        last = end
    pieces.append(field[last:])
    return "".join(pieces)


def _text_findings(text: str, own: list, spans: list[tuple[int, int, str]]) -> list:
    """The text's own findings, and one for each span a value found elsewhere redacted in it."""
    from .threats import Finding, _mask

    out = list(own)
    for start, end, label in spans:
        if not any(f.start <= start and end <= f.end for f in own):
            out.append(Finding("secret", f"secret.{label}", "holds a value found secret elsewhere in the entry",
                               _mask(text[start:end]), start, end))
    out.sort(key=lambda finding: (finding.start, finding.end))
    return out
