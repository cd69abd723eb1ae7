"""What a successful ingest saw, so a run with nothing new costs nothing.

After `ltm ingest` finishes a repository, it records two stamps: the repository's (the commit it
mined, the run's options) and the home's (its settings, the memory sources, the code of the
pipeline, and the state of the lake, the vectors and the graph builds: file sizes and modification
times), the latter replaced by every successful ingest of any repository. The next ingest of a
repository computes both before it starts Dagster: if neither differs, every stage would rewrite
what is already there, so the command says so and returns in milliseconds.

Anything that could change an answer changes the stamp: a new commit or another branch, other
options, a memory imported or added online (the lake and the vectors change), another run from
the web UI (it rewrites the lake), an upgraded pipeline. Remote repositories (URLs) are never
skipped: knowing whether their remote moved needs the network, which the run's fetch does.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path
from typing import Any

from ltm.atomic import replace_text
from ltm.home import Home

STAMP_VERSION = 1
_CODE_PACKAGES = ("ltm", "resources", "assets", "pipelines")


def _tree_state(root: Path, suffixes: tuple[str, ...] | None = None) -> str:
    """A hash of (relative path, size, mtime) of every file under `root`; '' when it is missing."""
    h = hashlib.sha1()
    if not root.exists():
        return ""
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            if suffixes and not name.endswith(suffixes):
                continue
            p = Path(dirpath) / name
            try:
                st = p.stat()
            except OSError:  # removed while we walk: the state is changing, so it differs anyway
                h.update(f"{p}:gone".encode())
                continue
            h.update(f"{p.relative_to(root)}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def _file_state(path: str | os.PathLike | None) -> str | None:
    if not path:
        return None
    try:
        st = Path(path).stat()
    except OSError:
        return f"{path}:missing"
    return f"{Path(path).resolve()}:{st.st_size}:{st.st_mtime_ns}"


def _code_state() -> str:
    """The pipeline's own code: an upgrade or an edit of an installed checkout runs everything again."""
    base = Path(__file__).resolve().parents[1]
    return hashlib.sha1("".join(_tree_state(base / pkg, (".py", ".scm", ".yaml")) for pkg in _CODE_PACKAGES)
                        .encode()).hexdigest()


def _head(repo: Path, ref: str) -> str | None:
    out = subprocess.run(["git", "-C", str(repo), "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"],
                         capture_output=True, text=True)
    return (out.stdout.strip() or None) if out.returncode == 0 else None


def _repo_part(home: Home, key: str, options: dict[str, Any]) -> dict[str, Any] | None:
    """What the repository's own stages read: its commit, its options."""
    entry = home.registry().get(key)
    if not entry or entry.get("url"):
        return None
    head = _head(Path(entry["path"]), options.get("branch") or "HEAD")
    if head is None:
        return None
    return {"version": STAMP_VERSION, "repo": key, "path": entry["path"], "head": head,
            "options": {k: options[k] for k in sorted(options)}, "issues": _file_state(options.get("issues"))}


def _home_part(home: Home) -> dict[str, Any]:
    """What every run reads or writes for the whole home: settings, memory sources, code, the stores."""
    settings = home.settings()
    return {
        "version": STAMP_VERSION,
        "settings": hashlib.sha1(json.dumps(settings.to_json(), sort_keys=True).encode()).hexdigest(),
        "memory_sources": [_file_state(s.path) for s in settings.memory_sources],
        "code": _code_state(),
        "lake": _tree_state(home.lake),
        "vectors": _tree_state(home.vectors),
        "graph": _tree_state(home.graph),  # the pointer and the builds: a damaged build is built again
    }


def _read(path: Path) -> dict[str, Any] | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _dir(home: Home) -> Path:
    return home.root / "state" / "ingest"


def unchanged(home: Home, key: str, options: dict[str, Any]) -> dict[str, Any] | None:
    """The recorded stamp when `key` has nothing new since its last successful ingest and the home's
    stores are as the last successful ingest (of any repository) left them, else None."""
    recorded = _read(_dir(home) / f"{key}.json")
    if recorded is None or recorded != _repo_part(home, key, options):
        return None
    return recorded if _read(_dir(home) / "home.json") == _home_part(home) else None


def record(home: Home, key: str, options: dict[str, Any], head: str | None) -> None:
    """Record the stamps after a successful ingest of `key` that mined `head` (seen before it ran)."""
    folder = _dir(home)
    folder.mkdir(parents=True, exist_ok=True)
    replace_text(folder / "home.json", json.dumps(_home_part(home), indent=1, sort_keys=True))
    stamp = _repo_part(home, key, options)
    if stamp is None or head is None or stamp["head"] != head:  # the branch moved during the run: run again
        (folder / f"{key}.json").unlink(missing_ok=True)
        return
    replace_text(folder / f"{key}.json", json.dumps(stamp, indent=1, sort_keys=True))


def head_of(home: Home, key: str, branch: str | None) -> str | None:
    """The commit a run of `key` is about to mine, or None for a URL."""
    stamp = _repo_part(home, key, {"branch": branch} if branch else {})
    return stamp["head"] if stamp else None
