"""The palette's Screenshot: an SVG of the screen, saved where it can be, and said where.

Textual's own saved to ~/Downloads and, when there was none, failed without a word.
"""

from __future__ import annotations

from pathlib import Path

from textual.app import App

__all__ = ["save_screenshot"]


def save_screenshot(app: App, filename: str | None = None, path: str | None = None,
                    time_format: str | None = None) -> str | None:
    """Save an SVG of `app`'s screen in `path`, else the Downloads folder, else (there is none) the
    current folder, written as every file memtui writes (atomically, 0600); the notification says
    where, or why it could not. The path written, or None."""
    from platformdirs import user_downloads_path
    from textual._files import generate_datetime_filename

    from memtui_core.store.fileio import atomic_write

    folder = Path(path).expanduser() if path else user_downloads_path()
    if not folder.is_dir():
        folder = Path.cwd()
    target = folder / (filename or generate_datetime_filename(app.title, ".svg", time_format))
    try:
        atomic_write(target, app.export_screenshot().encode("utf-8"))
    except OSError as exc:
        app.notify(f"Not saved: cannot write {target}: {exc.strerror or exc}", title="Screenshot",
                   severity="error", markup=False)
        return None
    app.notify(f"Saved to {target}", title="Screenshot", markup=False)
    return str(target)
