"""`memtui` on a store in PostgreSQL, through real processes: the same commands, a database that is
down (one line and exit 1; `inject` and the hook print nothing and exit 0), `import` moving a
store between a folder and a database both ways, and no password in any output."""

from __future__ import annotations

import json

from pg_server import PASSWORD
from .conftest import run_memtui


def _no_password(*results) -> None:
    for result in results:
        assert PASSWORD not in result.out and PASSWORD not in result.err


def test_the_commands_work_on_a_database_store(pg_url, tmp_path):
    added = run_memtui("--dir", pg_url, "add", "fact", "the deploy uses blue green switching")
    assert added.code == 0, added.err
    listed = run_memtui("--dir", pg_url, "list")
    assert "blue green" in listed.out
    # $MEMTUI_DIR may be the URL too
    injected = run_memtui("inject", "how do we deploy", env={"MEMTUI_DIR": pg_url})
    assert injected.code == 0 and "blue green" in injected.out and injected.err == ""
    hook = run_memtui("hook", "claude-code", "--dir", pg_url,
                      input=json.dumps({"prompt": "how do we deploy", "hook_event_name": "UserPromptSubmit"}).encode())
    assert hook.code == 0 and "blue green" in hook.out, hook.err
    audit = run_memtui("--dir", pg_url, "audit", "--json")
    assert audit.code == 0 and [e["op"] for e in json.loads(audit.out)] == ["add"]
    backups = run_memtui("--dir", pg_url, "backups")
    doctor = run_memtui("--dir", pg_url, "doctor")
    _no_password(added, listed, injected, hook, audit, backups, doctor)
    assert doctor.code == 0 and "postgresql://postgres@127.0.0.1" in doctor.out


def test_a_database_that_is_down_is_one_line_and_a_turn_gets_nothing(tmp_path):
    url = f"postgresql://ann:{PASSWORD}@127.0.0.1:1/mem?store=team"
    env = {"MEMTUI_CACHE_DIR": str(tmp_path / "cache")}
    listed = run_memtui("--dir", url, "list", env=env)
    assert listed.code == 1
    line = listed.error_line
    assert "cannot reach the store's database postgresql://ann@127.0.0.1:1/mem?store=team" in line
    added = run_memtui("--dir", url, "add", "fact", "never written", env=env)
    assert added.code == 1 and added.error_line
    injected = run_memtui("--dir", url, "inject", "anything", env=env)
    assert (injected.code, injected.out, injected.err) == (0, "", "")
    hook = run_memtui("hook", "claude-code", "--dir", url, env=env,
                      input=json.dumps({"prompt": "how do we deploy", "hook_event_name": "UserPromptSubmit"}).encode())
    assert (hook.code, hook.out) == (0, "")
    _no_password(listed, added, injected, hook)


def test_a_url_typo_is_refused_not_made_a_folder(tmp_path):
    typo = run_memtui("--dir", "postgresql:/mem", "list")
    assert typo.code == 1 and "not a PostgreSQL URL" in typo.error_line
    scheme = run_memtui("--dir", "mysql://u:pw@h/db", "list")
    assert scheme.code == 1 and "unsupported store location mysql://" in scheme.error_line and "pw" not in scheme.err


def test_import_moves_a_store_from_a_folder_to_a_database_and_back(pg_url, tmp_path):
    folder, back = tmp_path / "folder", tmp_path / "back"
    for kind, text in (("fact", "kites fly best in steady wind"), ("preference", "tea without sugar")):
        assert run_memtui("add", kind, text, store=folder).code == 0
    up = run_memtui("--dir", pg_url, "import", str(folder))
    assert up.code == 0, up.err
    down = run_memtui("import", pg_url, store=back)
    assert down.code == 0, down.err
    assert PASSWORD not in down.out  # the source is named without its password
    ids = [json.loads(run_memtui("list", "--json", store=where).out) for where in (folder, back)]
    assert [(e["id"], e["kind"], e["text"]) for e in ids[0]] == [(e["id"], e["kind"], e["text"]) for e in ids[1]]
    exported = run_memtui("--dir", pg_url, "export", "--format", "jsonl")
    assert exported.code == 0 and len(exported.out.splitlines()) == 2
    audit = run_memtui("audit", "--json", store=back)
    assert PASSWORD not in audit.out
    _no_password(up, down, exported)


def test_a_turn_does_not_import_the_driver(pg_url):
    """`memtui inject` reads a database store through libpq directly (core/store/pg_lean.py): the
    driver's import would cost a turn more than a folder store's whole turn; and, as a folder's
    turn, without pydantic or numpy (tests/core/test_import_hygiene.py)."""
    import subprocess
    import sys

    assert run_memtui("--dir", pg_url, "add", "fact", "the deploy uses blue green switching").code == 0
    script = ("import sys\nfrom memtui.cli import main\nstatus = main(['--dir', sys.argv[1], 'inject', 'how do we deploy'])\n"
              "heavy = [m for m in ('psycopg', 'pydantic', 'numpy') if m in sys.modules]\n"
              "print('lean' if not heavy else heavy, status)")
    done = subprocess.run([sys.executable, "-c", script, pg_url], capture_output=True, text=True, timeout=60)
    assert done.stdout.splitlines()[-1] == "lean 0", done.stderr
    assert "blue green" in done.stdout


def test_setup_never_writes_a_password_into_a_hosts_settings(tmp_path):
    url = f"postgresql://ann:{PASSWORD}@127.0.0.1:1/mem?store=team"
    refused = run_memtui("setup", "claude-code", "--dir", url, "--dry-run", env={"HOME": str(tmp_path)})
    assert refused.code == 1 and "never written into a host's settings" in refused.error_line
    _no_password(refused)
    plain = run_memtui("setup", "claude-code", "--dir", "postgresql://ann@127.0.0.1:1/mem?store=team", "--dry-run",
                       env={"HOME": str(tmp_path)})
    assert plain.code == 0 and "postgresql://ann@127.0.0.1:1/mem?store=team" in plain.out, plain.err


def test_the_commands_the_app_suggests_name_the_store_without_its_password():
    from types import SimpleNamespace

    from memtui.cli.common import command_prefix

    url = f"postgresql://ann:{PASSWORD}@db.example/mem?store=team"
    assert command_prefix(SimpleNamespace(dir=url)) == "memtui --dir 'postgresql://ann@db.example/mem?store=team'"


def test_a_database_as_the_global_store_is_read_beside_a_project_store(pg_url, tmp_path):
    # $MEMTUI_DIR a URL and a project folder with .memtui/: both read as one, each line labelled.
    project = tmp_path / "app"
    (project / ".git").mkdir(parents=True)
    env = {"MEMTUI_DIR": pg_url}
    made = run_memtui("init-project", str(project), env=env)
    assert made.code == 0, made.err
    assert run_memtui("add", "lesson", "vite needs node 18 or newer on every machine", "--scope", "global", env=env,
                      cwd=project).code == 0
    added = run_memtui("add", "fact", "the frontend of this app builds with vite", "--scope", "project",
                       env=env, cwd=project)
    assert added.code == 0, added.err
    block = run_memtui("inject", "does vite need a newer node to build this app", "--lang", "en", env=env, cwd=project)
    assert "[project · fact] the frontend of this app builds with vite" in block.out, block.err
    assert "[global · lesson] vite needs node 18" in block.out
    scopes = run_memtui("scopes", env=env, cwd=project)
    assert scopes.code == 0 and PASSWORD not in scopes.out + scopes.err
    assert "global   postgresql://" in scopes.out  # the database by its URL, not its local cache folder


def test_the_injection_log_lives_with_the_store_every_machine_sees_every_turn(pg_url, tmp_path):
    """Two machines (two processes, each with its own local cache) inject from one database store:
    each one's `memtui injections` lists both turns, and explains and replays the other's."""
    assert run_memtui("--dir", pg_url, "add", "fact", "the deploy uses blue green switching").code == 0
    ann = {"MEMTUI_CACHE_DIR": str(tmp_path / "ann-laptop")}
    bob = {"MEMTUI_CACHE_DIR": str(tmp_path / "bob-desktop")}
    secret = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    first = run_memtui("--dir", pg_url, "inject", "how do we deploy", env=ann)
    second = run_memtui("--dir", pg_url, "inject", f"deploy with token {secret} please", env=bob)
    assert first.code == second.code == 0 and "blue green" in first.out and "blue green" in second.out
    assert first.err == second.err == ""
    for machine in (ann, bob):
        listed = run_memtui("--dir", pg_url, "injections", "--json", env=machine)
        assert listed.code == 0, listed.err
        lines = json.loads(listed.out)
        assert [line["q"] for line in lines][0] == "how do we deploy" and len(lines) == 2
        assert secret not in listed.out and "deploy with token" in lines[1]["q"]  # redacted, as in a file
        shown = run_memtui("--dir", pg_url, "injections", "--show", "2", "--json", env=machine)
        assert shown.code == 0 and json.loads(shown.out)["entries"][0]["text"] == "the deploy uses blue green switching"
        replayed = run_memtui("--dir", pg_url, "injections", "--replay", "1", "--json", env=machine)
        assert replayed.code == 0 and json.loads(replayed.out)["same"] is True
        _no_password(listed, shown, replayed)
    # nothing of the log is left in either machine's cache folder
    assert not list(tmp_path.rglob("injections.jsonl*"))
