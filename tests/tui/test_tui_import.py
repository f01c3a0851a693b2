"""An import confirmed in the dialog is a write like any other: run in the write worker, reported by
the app, and refused whole with a clear line when the file changed after its preview."""

from __future__ import annotations

from memtui_core.memory import MemoryStore
from memtui.app import MemtuiApp
from memtui.modals.transfer import TransferModal

from .helpers import run_command, screen_text, type_text, wait_for_text, wait_loaded, wait_until


async def open_import(pilot, app, path) -> None:
    await run_command(pilot, "Import memories")
    await wait_until(pilot, lambda: isinstance(app.screen, TransferModal) and app.screen.mode == "import")
    await type_text(pilot, str(path))
    await pilot.press("enter")


async def test_a_confirmed_import_is_reported_and_shown(seeded, tmp_path):
    source = tmp_path / "MEMORY.md"
    source.write_text("Always run migrations inside a transaction\n")
    app = MemtuiApp(seeded.store())
    async with app.run_test(size=(140, 40), notifications=True) as pilot:
        await wait_loaded(pilot)
        await open_import(pilot, app, source)
        await wait_for_text(pilot, "would import MEMORY.md (hermes): 1 added")
        await pilot.press("y")
        await wait_for_text(pilot, "Imported MEMORY.md (hermes): 1 added")
        assert not isinstance(app.screen, TransferModal)
        await wait_until(pilot, lambda: app.snapshot is not None and len(app.snapshot.entries) == len(seeded.ids) + 1,
                         what="the imported entry on screen")


async def test_an_import_whose_file_went_bad_after_the_preview_writes_nothing(seeded, tmp_path):
    source = tmp_path / "MEMORY.md"
    source.write_text("Always run migrations inside a transaction\n")
    before = (seeded.dir / "memory.json").read_bytes()
    app = MemtuiApp(seeded.store())
    async with app.run_test(size=(140, 40), notifications=True) as pilot:
        await wait_loaded(pilot)
        await open_import(pilot, app, source)
        await wait_for_text(pilot, "would import MEMORY.md (hermes): 1 added")
        source.unlink()  # between the preview and the confirmation
        await pilot.press("y")
        await wait_for_text(pilot, "Not saved")
        assert "Traceback" not in screen_text(app)
    assert (seeded.dir / "memory.json").read_bytes() == before
    assert len(MemoryStore(seeded.dir).entries()) == len(seeded.ids)


async def test_inside_a_project_the_preview_says_the_global_store_takes_them(tmp_path):
    from memtui_core.scopes import Scoped

    project = MemoryStore(tmp_path / "repo" / ".memtui")
    home = MemoryStore(tmp_path / "global")
    project.remember("fact", "the service is deployed with helm")
    source = tmp_path / "MEMORY.md"
    source.write_text("Always run migrations inside a transaction\n")
    app = MemtuiApp(home, scoped=Scoped([("project", project), ("global", home)]))
    async with app.run_test(size=(140, 40), notifications=True) as pilot:
        await wait_loaded(pilot)
        await open_import(pilot, app, source)
        await wait_for_text(pilot, "Into the global store")
        await pilot.press("y")
        await wait_until(pilot, lambda: len(home.entries()) == 1, what="the import in the global store")
        assert len(project.entries()) == 1
