"""The repository registry behind the `repos` partitions: local paths and remote URLs.

A local repository is mined where it is. A URL is cloned once into `<home>/repos/<key>.git` as a
bare mirror (no working tree, nothing of ours written into it but fetched refs) and fetched before
each run. Credentials come only from the environment: `LTM_GIT_TOKEN` (with `LTM_GIT_USERNAME`,
default `x-access-token`) becomes an HTTP header passed to git through `GIT_CONFIG_*` variables,
never on a command line, in a URL, in the mirror's config or in a message; SSH keys work as usual.
"""

from __future__ import annotations

import base64
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import pyarrow as pa
import yaml

from ltm import ids
from ltm.errors import RepositoryError
from ltm.extract.gitrepo import GitRepo
from ltm.home import Home
from ltm.lake import Lake
from ltm.memory.records import MEMORY_PARTITION

_SCP_LIKE = re.compile(r"^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:(?!//)")
_URL_SCHEMES = ("http", "https", "ssh", "git", "file")
GIT_TIMEOUT_S = 3600


@dataclass(frozen=True)
class RepoState:
    """A registered repository after `sync`: where it is, its head and whether it was fetched."""

    key: str
    path: Path
    url: str | None
    head: str
    branch: str | None
    fetched: bool


def is_url(source: str) -> bool:
    """True for a remote repository address (scheme URL or `user@host:path`)."""
    return urlsplit(source).scheme in _URL_SCHEMES or bool(_SCP_LIKE.match(source))


def _check_url(url: str) -> None:
    parts = urlsplit(url)
    if parts.password or (parts.username and parts.scheme in ("http", "https")):
        raise RepositoryError(
            "the repository URL carries credentials: remove them from the URL and set LTM_GIT_TOKEN "
            "(and LTM_GIT_USERNAME) in the environment instead"
        )


def git_env() -> dict[str, str]:
    """The environment for git talking to a remote: never prompts, token as an HTTP header."""
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GCM_INTERACTIVE": "never"}
    token = os.environ.get("LTM_GIT_TOKEN")
    if token:
        user = os.environ.get("LTM_GIT_USERNAME", "x-access-token")
        basic = base64.b64encode(f"{user}:{token}".encode()).decode()
        n = int(env.get("GIT_CONFIG_COUNT", "0") or 0)
        env.update({
            "GIT_CONFIG_COUNT": str(n + 1),
            f"GIT_CONFIG_KEY_{n}": "http.extraHeader",
            f"GIT_CONFIG_VALUE_{n}": f"Authorization: Basic {basic}",
        })
    return env


def _redact(text: str) -> str:
    token = os.environ.get("LTM_GIT_TOKEN")
    if token:
        user = os.environ.get("LTM_GIT_USERNAME", "x-access-token")
        for secret in (base64.b64encode(f"{user}:{token}".encode()).decode(), token):
            text = text.replace(secret, "***")
    return text


def _git(args: list[str], what: str, timeout_s: float = GIT_TIMEOUT_S) -> str:
    try:
        res = subprocess.run(["git", *args], capture_output=True, env=git_env(), timeout=timeout_s)
    except subprocess.TimeoutExpired as e:
        raise RepositoryError(f"{what} timed out after {timeout_s:g}s: check the network and the URL") from e
    if res.returncode != 0:
        lines = res.stderr.decode(errors="replace").strip().splitlines()
        err = _redact(lines[-1] if lines else f"exit status {res.returncode}")
        raise RepositoryError(f"{what} failed: {err}: check the URL and the credentials in LTM_GIT_TOKEN")
    return res.stdout.decode(errors="replace")


def _unique_key(home: Home, base: str) -> str:
    reg, key, n = home.registry(), base, 2
    while key in reg or key == MEMORY_PARTITION:  # that partition key holds imported memories
        key, n = f"{base}-{n}", n + 1
    return key


def _check_name(name: str | None) -> None:
    if name is not None and not ids.is_valid_repo_key(name):
        raise RepositoryError(f"invalid repository name {name!r}: use letters, digits, '.', '_' and '-'")


def register_local(home: Home, path: str | Path, name: str | None = None) -> str:
    """Validate a local repository and register it under `name` (default: from its folder); return its key.

    Registering the same path again returns the key it already has.
    """
    _check_name(name)
    repo = GitRepo(path)
    repo.head()  # an empty repository is refused before anything is written
    for key, entry in home.registry().items():
        if Path(entry["path"]) == repo.path:
            return key
    key = name or _unique_key(home, ids.repo_key_from_name(repo.path.name))
    _refuse_taken(home, key)
    home.register(key, repo.path)
    return key


def add_repository(home: Home, source: str, name: str | None = None, clone: bool = True) -> str:
    """Register a local path or a URL (cloned now unless `clone` is False); return its key.

    Adding the same path or URL again returns the key it already has.
    """
    if not is_url(source):
        return register_local(home, source, name)
    _check_name(name)
    _check_url(source)
    for key, entry in home.registry().items():
        if entry.get("url") == source:
            return key
    tail = re.split(r"[/:]", source.rstrip("/"))[-1]
    key = name or _unique_key(home, ids.repo_key_from_name(tail))
    _refuse_taken(home, key)
    path = home.repos / f"{key}.git"
    if clone:
        _clone(source, path)
    home.register(key, path, url=source)
    return key


def _refuse_taken(home: Home, key: str) -> None:
    if key == MEMORY_PARTITION:
        raise RepositoryError(f"the name {key!r} is kept for imported memories: pass another --name")
    if key in home.registry():
        raise RepositoryError(f"the name {key!r} is taken by {home.repo_path(key)}: pass another --name")


def _clone(url: str, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        _git(["clone", "--mirror", "--quiet", "--", url, str(tmp)], f"cloning {url}")
        GitRepo(tmp).head()
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    os.replace(tmp, path)


def sync_repository(home: Home, key: str) -> RepoState:
    """Make a registered repository ready to mine: clone or fetch a URL, validate a path."""
    entry = home.registry().get(key)
    if entry is None:
        home.repo_path(key)  # raises the clear "not registered" error
    url, path, fetched = entry.get("url"), Path(entry["path"]), False
    if url:
        with home.lock(f"repo-{key}", timeout=GIT_TIMEOUT_S):
            if not path.exists():
                _clone(url, path)
            else:
                _git(["--git-dir", str(path), "fetch", "--prune", "--quiet", "origin"], f"fetching {url}")
            fetched = True
    repo = GitRepo(path)
    return RepoState(key, path, url, repo.head(), repo.branch(), fetched)


def remote_head(url: str, timeout_s: float = GIT_TIMEOUT_S) -> str:
    """The sha HEAD points at in a remote repository (`git ls-remote`); a clear error if unreachable
    or slower than `timeout_s`."""
    _check_url(url)
    out = _git(["ls-remote", "--", url, "HEAD"], f"reading the head of {url}", timeout_s)
    if not out.strip():
        raise RepositoryError(f"{url} has no HEAD: push a default branch to it")
    return out.split()[0]


def current_head(home: Home, key: str, timeout_s: float = GIT_TIMEOUT_S) -> str:
    """The newest head of a registered repository, without writing anything (remote: ls-remote,
    given up after `timeout_s`)."""
    entry = home.registry().get(key)
    if entry is None:
        home.repo_path(key)
    if entry.get("url"):
        return remote_head(entry["url"], timeout_s)
    return GitRepo(entry["path"]).head()


def remove_repository(home: Home, key: str, lock_timeout_s: float = 3600) -> dict[str, object]:
    """Forget a repository and everything mined from it.

    Its lake partitions go first, then its vector rows, then the graph is rebuilt without it;
    only then are the registry entry and (for a URL) the mirror removed, so an interrupted
    removal is finished by running it again.
    """
    from ltm.graph.build import build_graph, current_build  # the stores only here: `ltm ingest` with
    from ltm.vectors import VectorStore  # nothing new answers before lancedb would have been imported

    entry = home.registry().get(key)
    if entry is None:
        home.repo_path(key)
    lake = Lake(home.lake)
    lake.remove_repo(key)
    with home.lock("vectors", timeout=lock_timeout_s):
        deleted = VectorStore(home.vectors).upsert_repo(key, pa.table({})).deleted
    rebuilt = None
    if current_build(home.graph) is not None:
        with home.lock("graph", timeout=lock_timeout_s):
            rebuilt = build_graph(home.graph, lake, engine_name=home.graph_engine()).build_id
    home.unregister(key)
    if entry.get("url"):
        shutil.rmtree(entry["path"], ignore_errors=True)
    return {"key": key, "path": entry["path"], "url": entry.get("url"), "vector_rows_deleted": deleted,
            "graph_build": rebuilt}


def list_repositories(home: Home) -> list[dict[str, str | None]]:
    """Registered repositories: key, path, url (None for a local path)."""
    return [{"key": k, "path": e["path"], "url": e.get("url")} for k, e in sorted(home.registry().items())]


def read_repos_yaml(path: Path) -> list[dict[str, str | None]]:
    """Entries of a `repos.yaml`: `repositories:` as strings or `{path|url: ..., name: ...}`.

    Relative paths are taken relative to the file's folder.
    """
    if not path.exists():
        return []
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as e:
        raise RepositoryError(f"{path} is not valid YAML ({e}): fix it") from e
    items = data.get("repositories", []) if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise RepositoryError(f"{path}: `repositories` must be a list of paths, URLs or {{url|path, name}}")
    out = []
    for item in items:
        if isinstance(item, str):
            source, name = item, None
        elif isinstance(item, dict) and (item.get("url") or item.get("path")):
            source, name = str(item.get("url") or item.get("path")), item.get("name")
        else:
            raise RepositoryError(f"{path}: entry {item!r} needs `url` or `path`")
        if not is_url(source):  # a relative path is relative to the file's folder
            source = str(path.parent / Path(source).expanduser())
        out.append({"source": source, "name": name})
    return out
