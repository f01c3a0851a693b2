"""The app's start loads what its first screen (Browse) needs: the other screens, the dialogs and
the editor (Textual's TextArea, tree-sitter) are imported the first time the person opens them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

# Each of these is opened by a key or a command, never to draw the first screen.
LATER = {
    "memtui.screens.explain", "memtui.screens.curation", "memtui.screens.audit", "memtui.screens.backups",
    "memtui.screens.injections", "memtui.screens.probes", "memtui.screens.help",
    "memtui.modals.edit", "memtui.modals.edit_checks", "memtui.modals.keywords", "memtui.modals.conflict",
    "memtui.modals.transfer", "memtui_core.agents.probes", "textual.widgets._text_area", "tree_sitter",
}


def run_python(code: str, cwd) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "MEMTUI_DIR"}
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=60, cwd=cwd, env=env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_importing_the_app_loads_only_the_first_screen(tmp_path):
    result = run_python(
        """
        import json, sys
        import memtui.app
        print(json.dumps({"modules": sorted(sys.modules)}))
        """,
        tmp_path,
    )
    loaded = set(result["modules"])
    assert "memtui.screens.browse" in loaded and "textual.app" in loaded  # it did import the app
    assert sorted(LATER & loaded) == []


def test_each_mode_makes_its_screen_when_first_opened(tmp_path):
    result = run_python(
        """
        import json, sys
        from memtui.app import MemtuiApp
        before = sorted(m for m in sys.modules if m.startswith("memtui.screens."))
        screens = {mode: type(make()).__name__ for mode, make in MemtuiApp.MODES.items()}
        after = sorted(m for m in sys.modules if m.startswith("memtui.screens."))
        print(json.dumps({"before": before, "after": after, "screens": screens}))
        """,
        tmp_path,
    )
    assert result["screens"] == {"browse": "BrowseScreen", "explain": "ExplainScreen", "backups": "BackupsScreen",
                                 "audit": "AuditScreen", "injections": "InjectionsScreen", "probes": "ProbesScreen"}
    assert "memtui.screens.explain" not in result["before"] and "memtui.screens.explain" in result["after"]


def test_importing_the_app_builds_no_pydantic_validator(tmp_path):
    """The models defer their validators and serializers to first use; each still validates then."""
    result = run_python(
        """
        import json
        import memtui.app
        import memtui_core.model as model
        from pydantic import BaseModel, ValidationError
        models = [c for c in vars(model).values() if isinstance(c, type) and issubclass(c, BaseModel) and c is not BaseModel]
        built = sorted(c.__name__ for c in models if c.__pydantic_complete__)
        try:
            model.Entry(id="not-an-id", kind="fact", text="x")
            refused = False
        except ValidationError:
            refused = True
        print(json.dumps({"models": len(models), "built": built, "refused": refused,
                          "entry": model.Entry(id="a" * 12, kind="fact", text="x").model_dump()["kind"]}))
        """,
        tmp_path,
    )
    assert result["models"] >= 10 and result["built"] == []
    assert result["refused"] and result["entry"] == "fact"
