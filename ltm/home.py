"""The home directory: where the lake, the graph, the vectors and Dagster's storage live.

`--home DIR`, else `$LTM_HOME`, else `./.ltm`. The home also keeps the repository registry
(partition key -> path) and the settings recorded by the first ingest (the embedder), so a run
launched from the web UI uses what the command line used.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from filelock import FileLock, Timeout

from ltm.atomic import replace_json, replace_text
from ltm.errors import HomeError, LockedError, RepositoryError
from ltm.ids import is_valid_repo_key
from ltm.settings import HomeSettings

if TYPE_CHECKING:
    from ltm.lake import Lake

DEFAULT_HOME = ".ltm"
_DAGSTER_YAML = Path(__file__).resolve().parent / "dagster_instance.yaml"


@dataclass(frozen=True)
class Home:
    """Paths under one home directory and its small JSON state files."""

    root: Path

    @classmethod
    def resolve(cls, home: str | os.PathLike | None = None) -> "Home":
        """The home named by the argument, else `$LTM_HOME`, else `./.ltm` (not created)."""
        raw = home or os.environ.get("LTM_HOME") or DEFAULT_HOME
        return cls(Path(raw).expanduser().resolve())

    # --- layout -------------------------------------------------------------------------
    @property
    def dagster(self) -> Path:
        return self.root / "dagster"

    @property
    def repos(self) -> Path:
        return self.root / "repos"

    @property
    def lake(self) -> Path:
        return self.root / "lake"

    @property
    def cache(self) -> Path:
        return self.root / "cache"

    @property
    def graph(self) -> Path:
        return self.root / "graph"

    @property
    def vectors(self) -> Path:
        return self.root / "vectors"

    @property
    def registry_path(self) -> Path:
        return self.root / "registry.json"

    @property
    def settings_path(self) -> Path:
        return self.root / "settings.json"

    def exists(self) -> bool:
        return (self.root / "registry.json").is_file()

    def require(self) -> "Home":
        """Raise a clear error unless this home was created by an ingest."""
        if not self.root.is_dir():
            raise HomeError(
                f"home directory {self.root} does not exist: run `ltm ingest PATH --home {self.root}` "
                "first, or pass the --home you ingested into"
            )
        if not self.exists():
            raise HomeError(
                f"{self.root} is not an ltm home (no registry.json): run `ltm ingest PATH --home {self.root}`"
            )
        return self

    def create(self) -> "Home":
        """Create the layout (the parent directory must exist) and Dagster's instance config."""
        if not self.root.parent.is_dir():
            raise HomeError(
                f"cannot create home {self.root}: its parent directory {self.root.parent} does not exist"
            )
        try:
            for d in (self.root, self.dagster, self.repos, self.lake, self.cache, self.graph, self.vectors):
                d.mkdir(exist_ok=True)
            if not (self.dagster / "dagster.yaml").exists() or not self.registry_path.exists():
                with self.lock("registry", timeout=60):  # a fresh home created by several processes at once
                    if not (self.dagster / "dagster.yaml").exists():
                        replace_text(self.dagster / "dagster.yaml", _DAGSTER_YAML.read_text(encoding="utf-8"))
                    if not self.registry_path.exists():
                        replace_json(self.registry_path, {})
        except OSError as e:
            raise HomeError(f"cannot write to home {self.root}: {e.strerror}") from e
        return self

    # --- repository registry --------------------------------------------------------------
    def registry(self) -> dict[str, dict[str, str]]:
        """Registered repositories: key -> {"path": ..., "url": ...}."""
        if not self.registry_path.exists():
            return {}
        try:
            return json.loads(self.registry_path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as e:
            raise HomeError(f"{self.registry_path} is corrupt ({e}); restore it or remove the home") from e

    def register(self, key: str, path: Path, url: str | None = None) -> None:
        """Record (or confirm) that partition `key` mines the repository at `path`."""
        if not is_valid_repo_key(key):
            raise RepositoryError(f"invalid repository key {key!r}: use letters, digits, '.', '_' and '-'")
        with self.lock("registry", timeout=60):  # read-modify-write: two `ltm repo add` at once keep both
            reg = self.registry()
            reg[key] = {"path": str(path), **({"url": url} if url else {})}
            replace_json(self.registry_path, reg)

    def unregister(self, key: str) -> None:
        """Forget partition `key` (nothing else is removed here)."""
        with self.lock("registry", timeout=60):
            reg = self.registry()
            reg.pop(key, None)
            replace_json(self.registry_path, reg)

    def repo_path(self, key: str) -> Path:
        """The working path of a registered repository."""
        entry = self.registry().get(key)
        if entry is None:
            raise RepositoryError(
                f"repository {key!r} is not registered in {self.root}: run `ltm ingest PATH` or `ltm repo add PATH`"
            )
        return Path(entry["path"])

    # --- settings -------------------------------------------------------------------------
    def settings(self) -> HomeSettings:
        """What this home recorded (`ltm.settings`); empty settings when nothing was recorded yet."""
        if not self.settings_path.exists():
            return HomeSettings()
        try:
            return HomeSettings.from_json(self.settings_path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as e:
            raise HomeError(
                f"{self.settings_path} is not valid JSON ({e.msg} at line {e.lineno}, column {e.colno}): fix it, or "
                "delete it to use the defaults (the embedder of the vectors is also recorded in vectors/model.json)"
            ) from e
        except (AttributeError, KeyError, TypeError, ValueError) as e:
            raise HomeError(
                f"{self.settings_path} does not hold ltm settings ({type(e).__name__}: {e}): fix it, or delete it "
                "to use the defaults"
            ) from e

    def graph_engine(self) -> str:
        """The engine this home's graph builds use: the recorded one, else that of its current build
        (a home built before engines were recorded), else `LTM_GRAPH_ENGINE`, else kuzu.

        Switching it (`ltm ingest --graph-engine`) rebuilds the graph from the lake; readers keep the
        old build until the new one is complete."""
        from ltm.graph.current import current_build
        from ltm.graph.engine import default_engine, engine, engine_of

        recorded = self.settings().graph_engine
        if recorded:
            return engine(recorded).name
        build = current_build(self.graph)
        return engine_of(build).name if build is not None else default_engine()

    def open_lake(self) -> "Lake":
        """The home's lake, redacting secrets as it writes unless the settings say `redact_secrets: false`."""
        from ltm.lake import Lake  # pyarrow: only for commands that write the lake

        return Lake(self.lake, redact=self.settings().redact_secrets)

    def update_settings(self, **values: Any) -> HomeSettings:
        """Record the given HomeSettings fields (None leaves a field as it is); returns the result."""
        updated = self.settings().updated(**values)
        replace_json(self.settings_path, updated.to_json())
        return updated

    # --- locks ----------------------------------------------------------------------------
    @contextmanager
    def lock(self, name: str, timeout: float = 0) -> Iterator[None]:
        """Hold the inter-process lock `<home>/.<name>.lock`; LockedError if not had in `timeout` s."""
        lock = FileLock(str(self.root / f".{name}.lock"))
        try:
            lock.acquire(timeout=timeout)
        except Timeout as e:
            raise LockedError(
                f"another process holds the {name} lock on {self.root}: wait for it to finish "
                "and run again"
            ) from e
        try:
            yield
        finally:
            lock.release()
