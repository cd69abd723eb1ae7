"""The repository registry: `ltm repo add/list/remove`, URL mirrors fetched before a run, credentials."""

import base64
import json
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest
from click.testing import CliRunner

from cli import main
from ltm.home import Home
from ltm.repos import current_head, read_repos_yaml, sync_repository
from tests.builder import RepoBuilder, sample_repo


def run(*args, ok=True, env=None):
    res = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False, env=env)
    if ok:
        assert res.exit_code == 0, res.output
    return res


def bare_remote(tmp_path, name="upstream"):
    """A local bare repository standing in for a remote, and a working clone to push from."""
    src = sample_repo(tmp_path / f"{name}-src")
    remote = tmp_path / f"{name}.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(src.path), str(remote)], check=True)
    src.git("remote", "add", "origin", str(remote))
    return src, remote


def test_add_list_remove_a_local_repository(repo, home_dir):
    added = run("repo", "add", repo.path, "--home", home_dir)
    assert added.stdout.strip() == "sample"  # the key alone on stdout, for scripts
    assert f"run `ltm ingest {repo.path} --home" in added.stderr  # and what to do next
    assert run("repo", "add", repo.path, "--home", home_dir).stdout.strip() == "sample"  # same path, same key
    listed = json.loads(run("repo", "list", "--json", "--home", home_dir).output)
    assert listed == [{"key": "sample", "path": str(repo.path), "url": None}]
    run("repo", "remove", "sample", "--home", home_dir)
    assert json.loads(run("repo", "list", "--json", "--home", home_dir).output) == []
    res = run("repo", "remove", "sample", "--home", home_dir, ok=False)
    assert res.exit_code != 0 and "not registered" in res.output and "Traceback" not in res.output


def test_url_is_cloned_read_only_and_fetched_before_each_run(tmp_path, home_dir):
    src, remote = bare_remote(tmp_path)
    url = f"file://{remote}"
    key = run("repo", "add", url, "--home", home_dir).stdout.strip()
    assert key == "upstream"
    home = Home.resolve(home_dir)
    mirror = home_dir / "repos" / "upstream.git"
    assert (mirror / "HEAD").is_file() and not (mirror / ".git").exists()  # bare: no working tree
    first = sync_repository(home, key)
    assert first.head == src.head() and first.fetched and first.path == mirror
    new = src.write("app/late.py", "def late():\n    return 2\n").commit("Add late")
    src.git("push", "-q", "origin", "main")
    assert current_head(home, key) == new  # ls-remote: nothing written yet
    assert sync_repository(home, key).head == new
    src_status = src.git("status", "--porcelain")
    assert src_status == ""  # the source repository was never touched


def test_ingest_of_a_registered_url_mines_the_remote(tmp_path, home_dir):
    _, remote = bare_remote(tmp_path)
    key = run("repo", "add", f"file://{remote}", "--home", home_dir).stdout.strip()
    res = run("ingest", f"file://{remote}", "--home", home_dir, "--embedder", "hash")
    assert "upstream" in res.output
    stats = json.loads(run("stats", "--json", "--home", home_dir).output)
    assert stats["nodes"]["Commit"] == 2 and stats["nodes"]["Function"] == 6
    assert key == "upstream"


def test_url_with_credentials_inside_is_refused(home_dir):
    res = run("repo", "add", "https://bob:hunter2@example.invalid/x.git", "--home", home_dir, ok=False)
    assert res.exit_code != 0 and "LTM_GIT_TOKEN" in res.output and "hunter2" not in res.output
    assert not (home_dir / "repos").exists() or not any((home_dir / "repos").iterdir())


class _AuthRecorder(BaseHTTPRequestHandler):
    seen: list[str] = []

    def do_GET(self):  # noqa: N802
        _AuthRecorder.seen.append(self.headers.get("Authorization", ""))
        self.send_response(404)
        self.end_headers()

    def log_message(self, *args):
        pass


def test_token_comes_from_the_environment_and_never_shows(home_dir):
    server = HTTPServer(("127.0.0.1", 0), _AuthRecorder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_port}/team/private.git"
        res = run("repo", "add", url, "--home", home_dir, ok=False,
                  env={"LTM_GIT_TOKEN": "s3cr3t-token", "LTM_GIT_USERNAME": "bot"})
    finally:
        server.shutdown()
    assert res.exit_code != 0 and "Traceback" not in res.output
    assert "s3cr3t-token" not in res.output
    expected = "Basic " + base64.b64encode(b"bot:s3cr3t-token").decode()
    assert expected in _AuthRecorder.seen
    assert "private" not in Home.resolve(home_dir).registry()
    assert not (home_dir / "repos" / "private.git").exists()


def test_repos_yaml_entries_paths_relative_to_the_file(tmp_path):
    f = tmp_path / "repos.yaml"
    f.write_text("repositories:\n  - ../src/a\n  - path: /abs/b\n    name: bee\n  - url: file:///srv/c.git\n")
    assert read_repos_yaml(f) == [
        {"source": str(tmp_path / "../src/a"), "name": None},
        {"source": "/abs/b", "name": "bee"},
        {"source": "file:///srv/c.git", "name": None},
    ]


def test_remove_takes_the_repository_out_of_graph_and_vectors(tmp_path, home_dir):
    a = sample_repo(tmp_path / "alpha")
    b = RepoBuilder(tmp_path / "beta")
    b.write("b.py", "def only_in_beta():\n    return 1\n").commit("beta")
    run("ingest", a.path, b.path, "--home", home_dir, "--embedder", "hash")
    before = json.loads(run("stats", "--json", "--home", home_dir).output)
    assert before["nodes"]["Repository"] == 2
    run("repo", "remove", "alpha", "--home", home_dir)
    after = json.loads(run("stats", "--json", "--home", home_dir).output)
    assert after["nodes"]["Repository"] == 1 and after["nodes"]["Commit"] == 1 and after["nodes"]["Function"] == 1
    assert after["vectors"] == 1 + 1 + 1  # beta's commit, function, module
    report = json.loads(run("reconcile", "--json", "--home", home_dir).output)
    assert report["ok"] is True


def test_a_local_repository_never_takes_the_memories_key(tmp_path, home_dir):
    from ltm.errors import RepositoryError
    from ltm.repos import add_repository

    home = Home.resolve(str(home_dir)).create()
    mem = sample_repo(tmp_path / "memories")
    assert add_repository(home, str(mem.path)) == "memories-2"  # that partition holds imported memories
    other = sample_repo(tmp_path / "other")
    with pytest.raises(RepositoryError, match="imported memories"):
        add_repository(home, str(other.path), name="memories")
