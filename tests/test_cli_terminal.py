"""`ltm` as a terminal user and a script see it: stage lines while the run goes on, a bar that moves
on a terminal, plain lines elsewhere, --quiet, JSON events, and failures as one JSON object with an
exit code by kind."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from cli import main
from cli.errors import EXIT_CODES
from ltm.home import Home
from tests.builder import RepoBuilder

LTM = str(Path(sys.executable).with_name("ltm"))


def long_history(path: Path, commits: int = 1500) -> Path:
    """A repository of `commits` commits made with one `git fast-import` (seconds, not minutes)."""
    b = RepoBuilder(path)
    b.write("pkg/__init__.py", "").write("pkg/core.py", "def f0():\n    return 0\n")
    b.commit("start")
    stream = []
    for i in range(1, commits):
        body = f"def f{i}():\n    return {i}\n"
        stream += [f"commit refs/heads/main\ncommitter Ada <ada@example.com> {1700000000 + i} +0000\n"
                   f"data {len(f'change {i}')}\nchange {i}\n" + ("from refs/heads/main^0\n" if i == 1 else "")
                   + f"M 100644 inline pkg/m{i % 40}.py\ndata {len(body)}\n{body}\n"]
    subprocess.run(["git", "fast-import", "--quiet"], cwd=path, input="".join(stream).encode(), check=True)
    subprocess.run(["git", "checkout", "-q", "-f", "main"], cwd=path, check=True)
    return path


def test_ingest_in_a_terminal_shows_stage_lines_during_the_run_and_a_moving_bar(tmp_path):
    repo = long_history(tmp_path / "repo")
    primary, secondary = pty.openpty()
    proc = subprocess.Popen([LTM, "ingest", str(repo), "--embedder", "hash", "--home", str(tmp_path / "home")],
                            stdin=secondary, stdout=secondary, stderr=secondary, close_fds=True)
    os.close(secondary)
    seen, stage_before_end = b"", False
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        ready, _, _ = select.select([primary], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(primary, 65536)
            except OSError:  # the terminal closed: the process is gone
                break
            if not chunk:
                break
            seen += chunk
            if b"  code_entities " in seen and proc.poll() is None:
                stage_before_end = True
        elif proc.poll() is not None:
            break
    assert proc.wait(timeout=60) == 0, seen[-2000:]
    text = seen.decode(errors="replace")
    assert stage_before_end, "a stage line arrives while the run is still going"
    bars = [part for part in text.split("\r") if "commits " in part and "/1500 commits" in part]
    counts = {part.split("/1500")[0].rsplit(" ", 1)[-1] for part in bars}
    assert len(counts) >= 2, f"the bar moves: {bars[:5]}"
    assert "ETA" in text and "done: repo in" in text


def test_off_a_terminal_stage_lines_are_plain_and_quiet_prints_only_the_last_line(repo, tmp_path):
    res = subprocess.run([LTM, "ingest", str(repo.path), "--embedder", "hash", "--home", str(tmp_path / "home")],
                         capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr
    assert "\r" not in res.stderr and "  commits " in res.stderr and "  reconciliation  ok=True" in res.stderr
    quiet = subprocess.run([LTM, "ingest", str(repo.path), "--full-history", "-q", "--home", str(tmp_path / "home")],
                           capture_output=True, text=True, timeout=600)
    assert quiet.returncode == 0 and quiet.stderr.strip().startswith("done: ") and "\n" not in quiet.stderr.strip()
    # one repository is one run: its id is named once
    assert re.search(r"\(run [0-9a-f-]{36}\)$", quiet.stderr.strip()), quiet.stderr


def test_ingest_json_is_one_event_per_line(repo, tmp_path):
    res = CliRunner().invoke(main, ["ingest", str(repo.path), "--embedder", "hash", "--home", str(tmp_path / "h"), "--json"])
    assert res.exit_code == 0, res.output
    events = [json.loads(line) for line in res.stdout.splitlines()]
    kinds = [e["event"] for e in events]
    assert kinds[0] == "start" and kinds[-1] == "done"
    stages = [e["stage"] for e in events if e["event"] == "stage"]
    assert {"commits", "code_entities", "embeddings", "graph", "vectors", "reconciliation"} <= set(stages)
    assert any(e["event"] == "progress" and e["stage"] == "commits" and e["total"] == 2 for e in events)
    again = CliRunner().invoke(main, ["ingest", str(repo.path), "--home", str(tmp_path / "h"), "--json"])
    assert [json.loads(line)["event"] for line in again.stdout.splitlines()] == ["up_to_date"]


def _json(res):
    return json.loads(res.stdout)


def test_every_command_answers_json_and_fails_as_one_json_object(repo, tmp_path):
    home = str(tmp_path / "home")
    r = CliRunner()
    ok = lambda *a: r.invoke(main, [*map(str, a), "--home", home, "--json"])  # noqa: E731
    missing = str(tmp_path / "nowhere")
    # before anything is ingested: the home is missing (environment, 5), as one JSON object
    for args in (["query", "x"], ["calls", "f"], ["dependents", "m"], ["stats"], ["reconcile"], ["repo", "list"],
                 ["repo", "remove", "x"], ["memory", "sources"]):
        res = r.invoke(main, [*args, "--home", missing, "--json"])
        err = _json(res)
        assert res.exit_code == EXIT_CODES["environment"] == err["exit_code"] and err["kind"] == "environment", args
        assert ("does not exist" in err["error"] or "run `ltm ingest" in err["error"]) and err["hint"], err
    added = ok("repo", "add", repo.path)
    assert added.exit_code == 0 and _json(added)["key"] == "sample" and "ltm ingest" in _json(added)["next"]
    assert ok("ingest", repo.path, "--embedder", "hash").exit_code == 0
    for args in (["query", "validate the token"], ["calls", "helper"], ["dependents", "app.util"], ["stats"],
                 ["reconcile"], ["repo", "list"], ["memory", "sources"]):
        res = ok(*args)
        assert res.exit_code == 0, (args, res.output)
        json.loads(res.stdout)
    assert _json(ok("memory", "add", "validate_token rejects empty tokens"))["graph_entity_id"].startswith("mem:")
    notes = tmp_path / "notes.jsonl"
    notes.write_text('{"id": "n1", "content": "helper must stay pure"}\n')
    assert _json(ok("memory", "import", notes))["loaded"] == 1
    # usage (2): a value out of range, also as JSON
    bad = r.invoke(main, ["query", "x", "--top-k", "0", "--home", home, "--json"])
    assert bad.exit_code == 2 and _json(bad)["kind"] == "usage"
    # input (3): a memory file where every line is bad names the fields a line needs
    texts = tmp_path / "texts.jsonl"
    texts.write_text('{"text": "a note"}\n{"text": "another"}\n')
    res = ok("memory", "import", texts)
    err = _json(res)
    assert res.exit_code == 3 and err["kind"] == "input"
    assert "no memory loaded" in err["error"] and "missing id and content" in err["error"] and '"content"' in err["error"]
    # busy (4): another command holds the home
    with Home.resolve(home).lock("ingest"):
        res = ok("repo", "remove", "sample")
    assert res.exit_code == 4 and _json(res)["kind"] == "busy"
    removed = ok("repo", "remove", "sample")
    assert removed.exit_code == 0 and _json(removed)["removed"] == "sample"


def test_help_lists_the_exit_codes():
    out = CliRunner().invoke(main, ["--help"]).output
    for kind, code in EXIT_CODES.items():
        assert f"{code} {kind}" in out


def test_a_plain_error_is_one_line_on_stderr_with_its_exit_code(tmp_path):
    res = subprocess.run([LTM, "stats", "--home", str(tmp_path / "none")], capture_output=True, text=True)
    assert res.returncode == EXIT_CODES["environment"] and res.stdout == ""
    assert res.stderr.startswith("Error: ") and res.stderr.strip().count("\n") == 0


@pytest.mark.parametrize("args", [["ingest"], ["query"], ["nope"]])
def test_usage_errors_exit_2(args):
    assert CliRunner().invoke(main, args).exit_code == 2


def test_ui_json_says_where_it_listens_before_it_starts(repo, tmp_path):
    import signal
    import socket

    home = tmp_path / "home"
    assert CliRunner().invoke(main, ["ingest", str(repo.path), "--embedder", "hash", "--home", str(home), "-q"]).exit_code == 0
    bad = CliRunner().invoke(main, ["ui", "--host", "0.0.0.0", "--json", "--home", str(home)])
    assert bad.exit_code == EXIT_CODES["usage"] and "--allow-unauthenticated" in json.loads(bad.stdout)["error"]
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([LTM, "ui", "--json", "--port", str(port), "--home", str(home)], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        first = json.loads(proc.stdout.readline())
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert first["url"] == f"http://127.0.0.1:{port}" and first["asset_graph"].startswith(first["url"] + "/")
    assert first["home"] == str(home)


def test_reconcile_out_of_step_exits_6_with_its_report(repo, tmp_path):
    from ltm.vectors import VectorStore

    home = tmp_path / "home"
    assert CliRunner().invoke(main, ["ingest", str(repo.path), "--embedder", "hash", "--home", str(home), "-q"]).exit_code == 0
    VectorStore(home / "vectors").table().delete("graph_entity_id LIKE 'fn:%'")  # the functions lose their rows
    res = CliRunner().invoke(main, ["reconcile", "--json", "--home", str(home)])
    report = json.loads(res.stdout)
    assert res.exit_code == EXIT_CODES["check"] and report["ok"] is False
    assert report["orphan_counts"]["nodes_without_vector_row"] > 0


def test_a_read_only_command_run_as_a_process_delivers_all_its_output_then_exits(repo, tmp_path):
    """`ltm query` as a process skips the interpreter's teardown: everything it printed must
    still arrive, through a pipe, and a failure still exits with its code."""
    home = tmp_path / "home"
    subprocess.run([LTM, "ingest", str(repo.path), "--embedder", "hash", "--home", str(home), "-q"], check=True)
    res = subprocess.run([LTM, "query", "validate tokens", "--top-k", "50", "--json", "--home", str(home)],
                         capture_output=True, text=True)
    hits = json.loads(res.stdout)  # the whole JSON, not a cut-off buffer
    assert res.returncode == 0 and len(hits) > 5 and all("graph_entity_id" in h for h in hits)
    cut = subprocess.run(f"{LTM} query 'validate tokens' --top-k 50 --home {home} | head -1", shell=True,
                         capture_output=True, text=True)
    assert cut.returncode == 0 and cut.stdout.startswith(" 1.") and "Traceback" not in cut.stderr
    missing = subprocess.run([LTM, "query", "x", "--home", str(tmp_path / "nowhere")], capture_output=True, text=True)
    assert missing.returncode == 5 and "ltm ingest" in missing.stderr  # no such home: its exit code, its line


def test_a_command_run_as_a_process_ends_without_the_cycle_collector_walking_its_heap(repo, tmp_path):
    """After an ingest the interpreter's teardown spent ~1 s collecting a heap that the process was
    about to hand back whole: a successful command run as a process freezes it first (its exit
    handlers still run)."""
    probe, seen = tmp_path / "probe.py", tmp_path / "frozen.txt"
    probe.write_text(
        "import atexit, gc, sys\n"
        "out = sys.argv[1]\n"
        "atexit.register(lambda: open(out, 'w').write(str(gc.get_freeze_count())))\n"
        "from cli import entry\n"
        "sys.argv = ['ltm', *sys.argv[2:]]\n"
        "entry()\n"
    )
    home = tmp_path / "home"
    res = subprocess.run([sys.executable, str(probe), str(seen), "ingest", str(repo.path), "--embedder", "hash",
                          "--home", str(home), "--json"], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout.splitlines()[-1])["event"] == "done"  # all of its output arrived
    assert int(seen.read_text()) > 10_000
