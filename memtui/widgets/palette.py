"""The colours of everything the app draws itself, taken from the current Textual theme.

The stylesheet uses theme variables (`$text-muted`, `$warning`, ...); the rich `Text` the screens
build needs concrete styles, so `use()` derives them from the same variables whenever the theme
changes, and every screen redraws. Nothing here is a fixed colour: a light theme gets dark text.
`P` is one shared object, changed in place, so `from .palette import P` always sees the current one.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from textual.color import Color

__all__ = ["P", "Palette", "use"]


@dataclass
class Palette:
    """Rich style strings by meaning. The defaults are those of textual-dark (the app's default)."""

    text: str = "#E0E0E0"
    muted: str = "#8D8D8D"  # secondary text: ids, times, hints
    faint: str = "#5A5A5A"  # an empty bar, a separator
    primary: str = "#57A5E2"
    secondary: str = "#5684A5"
    accent: str = "#FFC473"
    success: str = "#8AD4A1"
    warning: str = "#FFC473"
    error: str = "#D17E92"
    pin: str = "#B58AE0"  # the pinned entry in explain
    chip: str = "#E0E0E0 on #2B2B2B"  # a query term
    # badges: text on a filled background
    on_success: str = "#000000 on #4EBF71"
    on_warning: str = "#000000 on #FEA62B"
    on_accent: str = "#000000 on #FE7B2B"
    on_error: str = "#FFFFFF on #B93C5B"
    on_pin: str = "#000000 on #B58AE0"
    warning_line: str = "bold #FFC473"  # a warning in the status bar, on $warning-muted


P = Palette()


def _rich(value: str, fallback: str) -> str:
    """A theme colour as rich understands it: `#RRGGBB`, or an ANSI name for the ansi themes."""
    if value.startswith("ansi_"):
        name = value[5:]
        return fallback if name == "default" else name
    try:
        return Color.parse(value).hex
    except Exception:
        return fallback


def _blend(base: str, other: str, factor: float, fallback: str) -> str:
    try:
        a, b = Color.parse(base), Color.parse(other)
    except Exception:
        return fallback
    if a.ansi is not None or b.ansi is not None:
        return fallback
    return a.blend(b, factor).hex


def _on(background: str, fallback: str) -> str:
    """Readable text on `background`, as `FG on BG`."""
    try:
        colour = Color.parse(background)
    except Exception:
        return fallback
    if colour.ansi is not None:
        return f"reverse {_rich(background, 'default')}"
    return f"{colour.get_contrast_text(1.0).hex} on {colour.hex}"


def use(variables: dict[str, str]) -> Palette:
    """Derive every style from the theme's CSS variables (`App.get_css_variables()`)."""
    v = variables.get
    background = v("background", "#121212")
    foreground = v("foreground", "#E0E0E0")
    surface = v("surface", background)
    ansi = background.startswith("ansi_") or foreground.startswith("ansi_")
    warning_fill, error_fill = v("warning", "#FEA62B"), v("error", "#B93C5B")
    accent_fill = _blend(warning_fill, error_fill, 0.45, v("accent", warning_fill))
    pin_fill = _blend(v("primary", "#0178D4"), error_fill, 0.5, v("secondary", "#5684A5"))
    new = Palette(
        text=_rich(foreground, "default"),
        muted="dim" if ansi else _blend(background, foreground, 0.7, "dim"),
        faint="dim" if ansi else _blend(background, foreground, 0.3, "dim"),
        primary=_rich(v("text-primary", v("primary", "blue")), "blue"),
        secondary=_rich(v("text-secondary", v("secondary", "cyan")), "cyan"),
        accent=_rich(v("text-accent", v("accent", "magenta")), "magenta"),
        success=_rich(v("text-success", v("success", "green")), "green"),
        warning=_rich(v("text-warning", v("warning", "yellow")), "yellow"),
        error=_rich(v("text-error", v("error", "red")), "red"),
        pin=_rich(v("text-secondary", "magenta"), "magenta") if ansi else _blend(
            _rich(v("text-primary", "#57A5E2"), "#57A5E2"), _rich(v("text-error", "#D17E92"), "#D17E92"), 0.5,
            "magenta"),
        chip="reverse" if ansi else f"{_rich(foreground, 'default')} on {_blend(surface, foreground, 0.15, surface)}",
        on_success=_on(v("success", "#4EBF71"), "reverse green"),
        on_warning=_on(warning_fill, "reverse yellow"),
        on_accent=_on(accent_fill, "reverse yellow"),
        on_error=_on(error_fill, "reverse red"),
        on_pin=_on(pin_fill, "reverse magenta"),
        warning_line="bold" if ansi else f"bold {_rich(v('text-warning', warning_fill), 'yellow')}",
    )
    for field in fields(Palette):
        setattr(P, field.name, getattr(new, field.name))
    return P
