"""What a write stores of an entry: the text stripped, control and invisible-only text refused,
secrets redacted in every field, the text cut to max_text, scanned; and the entry it would be
deduped against. The checks a write makes before it writes, apart from the writes themselves
(writing.py); `MemoryStore` is a `Cleaning` through `Writing`.
"""

from __future__ import annotations

TYPE_CHECKING = False

from ..errors import InvalidInput
from ..safety.redaction import Redacted, redact_entry
from ..safety.threats import scan_text, strip_controls, strip_invisible, threat_flags
from .entries import _entry
from .records import Record, normalize

if TYPE_CHECKING:
    from typing import Any

    from ..limits import Limits
    from ..model import TextCheck

__all__ = ["Cleaning", "refuse_fragments"]


class Cleaning:
    """How a write cleans and checks an entry before it writes (no state of its own)."""

    if TYPE_CHECKING:
        limits: Limits

        def _snap(self) -> Any: ...

    def check_text(self, text: str, exclude_id: str | None = None) -> TextCheck:
        """What a write of `text` would do: its stored length, whether it is cut, which entry it
        would be deduped against, and what the threat scan finds. Used for live warnings."""
        from ..model import TextCheck

        stored, secrets_found, cut_from = self._clean_text(text)
        duplicate = None
        if stored:
            match = self._find_duplicate(self._snap().records, normalize(stored), exclude_id)
            duplicate = _entry(match) if match else None
        found = [f for f in scan_text(stored, second_opinion=True) if f.category != "secret"]
        findings = [f.as_dict() for f in secrets_found + found]
        return TextCheck(length=len(stored), cut=cut_from is not None, original_length=cut_from, duplicate_of=duplicate, findings=findings)

    # ------------------------------------------------------------------ writing

    def _clean_text(self, text: str) -> tuple[str, list, int | None]:
        """The text a write would store: stripped, secrets redacted, cut to max_text. Returns it,
        the secrets found, and the length before the cut (None when it was not cut)."""
        clean, _source, redacted, cut_from = self._clean_entry(text)
        return clean, redacted.findings, cut_from

    def _clean_entry(self, text: str, source: str = "", keywords: list[str] | tuple[str, ...] = ()
                     ) -> tuple[str, str, Redacted, int | None]:
        """The text and source a write would store, with the secrets of the whole entry redacted in
        both (core/safety/redaction.py: a value found secret in one field is redacted in all, and a
        secret split across them is found), the text cut to max_text; and what was found (which
        keywords hold part of a secret: `fragments`)."""
        text = text.lstrip("\ufeff").strip()  # a byte-order mark pasted in front is noise, not a threat
        text = strip_controls(text)  # NUL, ESC, backspace...: never stored, so never printed raw
        if not strip_invisible(text).strip():  # zero-width spaces, tag characters...: nothing a person sees
            text = ""
        redacted = redact_entry(text, strip_controls(source) if source else "", keywords)
        text = redacted.text
        cut_from = len(text) if len(text) > self.limits.max_text else None
        return text[: self.limits.max_text].strip(), redacted.source, redacted, cut_from

    def _prepare_text(self, text: object) -> tuple[str, list[str], int | None]:
        """The text a write stores, its threat flags, and its length before it was cut to
        max_text (None when it was not cut); bad text is an InvalidInput."""
        return self._prepare_entry(text)[:3]

    def _prepare_entry(self, text: object, source: str = "", keywords: list[str] | tuple[str, ...] = ()
                       ) -> tuple[str, list[str], int | None, str, list[str]]:
        """`_prepare_text` of an entry's text, source and keywords: also the source to store and the
        secret values found anywhere in the entry; a keyword holding part of one is an InvalidInput."""
        if not isinstance(text, str):
            raise InvalidInput(f"text must be a string, got {type(text).__name__}")
        if not text.lstrip("\ufeff").strip():
            raise InvalidInput("text is empty")
        text, source, redacted, cut_from = self._clean_entry(text, source, keywords)
        if not text:
            raise InvalidInput("text is empty once control and invisible characters are removed")
        _require_unicode(text, "text")
        refuse_fragments(redacted.fragments, keywords)
        flags = ["secret-redacted"] if redacted.changed else []
        flags += threat_flags(scan_text(text, second_opinion=True))
        return text, flags, cut_from, source, redacted.values

    def _find_duplicate(self, records: list[Record], key: str, exclude_id: str | None = None) -> Record | None:
        min_bytes = self.limits.dedupe_min_bytes
        key_long = len(key.encode("utf-8", "surrogatepass")) >= min_bytes
        for record in records:
            if record.id == exclude_id:
                continue
            old = record.norm
            if old == key or (key_long and key in old) or (
                old in key and len(old.encode("utf-8", "surrogatepass")) >= min_bytes
            ):
                return record
        return None


def refuse_fragments(fragments: list[int], keywords: list[str] | tuple[str, ...], values: list[str] = ()) -> None:
    """An InvalidInput naming the first keyword that holds part of a secret of the entry (the
    `fragments` redact_entry found, or a keyword holding one of `values`, the secrets of a new
    text): keywords are indexed."""
    positions = list(fragments)
    positions += [i for i, keyword in enumerate(keywords) if len(keyword) >= 4
                  and any(keyword.lower() in value.lower() or value.lower() in keyword.lower() for value in values)]
    if positions:
        first = min(positions)
        raise InvalidInput(f"keyword {first + 1} is part of a secret in the entry; keywords are indexed, never put "
                           "secrets in them")


def _require_unicode(value: str, what: str) -> None:
    """A lone UTF-16 surrogate (half of an emoji, say) cannot be written as UTF-8: refuse it here
    rather than fail inside the write."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInput(
            f"{what} is not valid Unicode: lone surrogate U+{ord(value[exc.start]):04X} at position {exc.start}"
        ) from None
