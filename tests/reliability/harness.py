"""Shared helpers of the reliability suite: run `ltm` as a real process, hash a home's contents.

`snapshot(home)` hashes the *content* of the lake, the current graph and the vector table (rows
sorted by key, every column, vectors included), so two homes built from the same input compare
equal even though their build ids, file names and Dagster run ids differ.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow as pa

from ltm.graph.engine import query as kuzu_query
from ltm.graph.read import open_current
from ltm.lake import Lake
from ltm.reconcile import reconcile
from ltm.schema import NODE_TABLES, REL_TABLES
from ltm.vectors import VectorStore

ROOT = Path(__file__).resolve().parents[2]
DRIVER = Path(__file__).with_name("driver.py")


def env(**extra: str) -> dict[str, str]:
    """The environment of an `ltm` subprocess: offline, importable from the checkout."""
    base = {k: v for k, v in os.environ.items() if not k.startswith(("LTM_", "OPENAI_"))}
    base.update({"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "PYTHONPATH": str(ROOT)})
    base.update(extra)
    return base


def ltm(*args: object, check: bool = True, timeout: float = 300, **extra_env: str) -> subprocess.CompletedProcess:
    """Run `python -m cli ARGS` to completion; assert success unless check=False."""
    res = subprocess.run(
        [sys.executable, "-m", "cli", *map(str, args)],
        capture_output=True, text=True, timeout=timeout, env=env(**extra_env), cwd=ROOT,
    )
    if check:
        assert res.returncode == 0, f"ltm {args} failed:\n{res.stdout}\n{res.stderr}"
    return res


def one_line_error(res: subprocess.CompletedProcess) -> str:
    """The error of a failed command: one `Error:` line on stderr (after any progress), no traceback."""
    assert res.returncode != 0, res.stderr
    assert "Traceback" not in res.stderr + res.stdout, res.stderr
    out = res.stdout.strip().splitlines()
    if out and out[-1].startswith("{"):  # --json: the error is one JSON object on stdout
        obj = json.loads(out[-1])
        assert obj["exit_code"] == res.returncode and obj["hint"] and obj["kind"], obj
        return f"Error: {obj['error']}"
    lines = [line for line in res.stderr.strip().splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("Error:")]
    assert len(errors) == 1 and lines[-1] == errors[0], res.stderr
    assert all(line.startswith(("ingesting ", "  ", "done: ")) for line in lines[:-1]), res.stderr
    return errors[0]


def start_stalled(fault: str, *args: object, marker: Path, **extra_env: str) -> subprocess.Popen:
    """Start `driver.py` (ltm with a stall at `fault`); wait until it reaches the stall."""
    proc = subprocess.Popen(
        [sys.executable, str(DRIVER), fault, str(marker), *map(str, args)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env(**extra_env), cwd=ROOT,
    )
    wait_for(lambda: marker.exists() or proc.poll() is not None, 240, f"{fault} stall")
    if proc.poll() is not None:
        out, err = proc.communicate()
        raise AssertionError(f"driver exited before the {fault} stall ({proc.returncode}):\n{out}\n{err}")
    return proc


def kill9(proc: subprocess.Popen) -> None:
    """SIGKILL, as a power cut or the OOM killer would: no cleanup handlers run."""
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    if proc.stdout:
        proc.stdout.close()
    if proc.stderr:
        proc.stderr.close()


def wait_for(cond, timeout: float, what: str, every: float = 0.01) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(every)


def _digest(rows: list) -> str:
    h = hashlib.sha256()
    for r in sorted(json.dumps(r, sort_keys=True, default=str) for r in rows):
        h.update(r.encode())
        h.update(b"\n")
    return h.hexdigest()


# When a memory link was first made: kept by every later run of the same home, so it is hashed
# within one home; a home built at another time made its links at another time.
LINK_TIME = "linked_at"


def _table_rows(t: pa.Table, link_times: bool) -> list[dict]:
    return (t if link_times else t.drop_columns([c for c in t.column_names if c == LINK_TIME])).to_pylist()


def lake_snapshot(home: Path, link_times: bool = True) -> dict[str, str]:
    lake = Lake(home / "lake")
    tables = [*NODE_TABLES, *REL_TABLES, "embeddings"]
    return {f"lake/{t}": _digest(_table_rows(lake.read(t), link_times)) for t in tables}


def graph_snapshot(home: Path, link_times: bool = True) -> dict[str, str]:
    out = {}
    with open_current(home / "graph") as conn:
        for label, table in NODE_TABLES.items():
            cols = table.graph.names
            rows = kuzu_query(conn, f"MATCH (n:{label}) RETURN {', '.join('n.' + c for c in cols)}")
            out[f"graph/{label}"] = _digest([dict(zip(cols, r)) for r in rows])
        for name, rel in REL_TABLES.items():
            props = [p for p in rel.props.names if link_times or p != LINK_TIME]
            ret = ", ".join(["a.id", "b.id", *(f"r.{p}" for p in props)])
            rows = kuzu_query(conn, f"MATCH (a)-[r:{name}]->(b) RETURN {ret}")
            out[f"graph/{name}"] = _digest(rows)
    return out


def vector_snapshot(home: Path) -> dict[str, str]:
    store = VectorStore(home / "vectors")
    if not store.exists():
        return {"vectors": _digest([])}
    t = store.table().to_arrow()
    rows = t.to_pylist()
    for r in rows:  # float32 through JSON: round-trip exactly via repr of each float
        r["vector"] = [float(x) for x in r["vector"]]
    return {"vectors": _digest(rows)}


def snapshot(home: Path, link_times: bool = True) -> dict[str, str]:
    """Content hashes of the lake tables, the current graph and the vector table.

    `link_times=False` leaves out when each memory link was made: for comparing two homes.
    """
    return {**lake_snapshot(home, link_times), **graph_snapshot(home, link_times), **vector_snapshot(home)}


def vector_ids(home: Path) -> set[str]:
    return set(VectorStore(home / "vectors").links())


def assert_reconciled(home: Path) -> dict:
    """Reconciliation over the whole home is clean, through the CLI a user would run."""
    res = ltm("reconcile", "--json", "--home", home, check=False)
    report = json.loads(res.stdout) if res.stdout.strip().startswith("{") else None
    assert res.returncode == 0 and report and report["ok"], res.stdout + res.stderr
    # and the library agrees
    assert reconcile(home / "graph", home / "vectors").ok
    return report


def stats(home: Path) -> dict:
    return json.loads(ltm("stats", "--json", "--home", home).stdout)


def leftovers(home: Path) -> list[str]:
    """Staging and half-written files a crash may leave behind (they must never be read)."""
    pats = ["lake/*/.stage-*", "lake/*/.old-*", "graph/builds/*.staging", "graph/CURRENT.*.tmp"]
    return sorted(str(p.relative_to(home)) for pat in pats for p in home.glob(pat))


class Scenario:
    """The shape every fault case shares: a home holding v1, a repository grown to v2, one run of
    `ltm ingest` that is stalled, killed or refused, then checks of what readers see and a clean
    recovery.

    `start()` ingests v1, records its content hashes (`v1`) and counts (`v1_stats`) and grows the
    repository; `stalled(fault)` starts a v2 ingest that waits at a known point (driver.py);
    `recovers()` runs the next ingest and asserts the home equals a fresh v2 home, reconciled.
    """

    def __init__(self, repo, grow, tmp_path: Path, home: Path | None = None):
        self.repo, self._grow, self.tmp = repo, grow, tmp_path
        self.home = home or tmp_path / "home"
        self.marker = tmp_path / "stalled"
        self.v1: dict[str, str] = {}
        self.v1_stats: dict = {}
        self._reference: Path | None = None

    def ingest(self, home: Path | None = None, check: bool = True, **extra_env: str) -> subprocess.CompletedProcess:
        return ltm("ingest", self.repo.path, "--home", home or self.home, "--embedder", "hash", check=check, **extra_env)

    def start(self) -> "Scenario":
        self.ingest()
        self.v1, self.v1_stats = snapshot(self.home), stats(self.home)
        self._grow()
        return self

    def stalled(self, fault: str) -> subprocess.Popen:
        """A v2 ingest that has reached `fault` and waits there (for `kill9` or `release`)."""
        return start_stalled(fault, "ingest", self.repo.path, "--home", self.home, "--embedder", "hash",
                             marker=self.marker)

    def release(self, proc: subprocess.Popen) -> subprocess.CompletedProcess:
        """Let a stalled ingest carry on; returns its result once it has finished."""
        self.marker.with_name(self.marker.name + ".go").touch()
        out, err = proc.communicate(timeout=300)
        return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)

    def plain(self) -> subprocess.Popen:
        """A v2 `ltm ingest` with no wrapper at all, output discarded."""
        return subprocess.Popen(
            [sys.executable, "-m", "cli", "ingest", str(self.repo.path), "--home", str(self.home)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env(), cwd=ROOT,
        )

    def reference(self) -> Path:
        """A fresh home built from the repository as it is now (made once)."""
        if self._reference is None:
            self._reference = self.tmp / "reference"
            self.ingest(self._reference)
        return self._reference

    def serves_v1(self) -> None:
        """Readers see v1's graph and vectors, still linked to each other."""
        assert stats(self.home) == self.v1_stats
        assert graph_snapshot(self.home) == {k: v for k, v in self.v1.items() if k.startswith("graph/")}
        assert vector_snapshot(self.home) == {"vectors": self.v1["vectors"]}
        assert_reconciled(self.home)

    def recovers(self) -> subprocess.CompletedProcess:
        """The next ingest completes and the home equals a fresh v2 home, reconciled, no leftovers."""
        res = self.ingest()
        assert snapshot(self.home, link_times=False) == snapshot(self.reference(), link_times=False)
        assert_reconciled(self.home)
        assert leftovers(self.home) == []
        return res
