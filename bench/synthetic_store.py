"""A synthetic home of any size for retrieval benchmarks: lake rows written directly, then the
real embedding stage (hash embedder, dim 384), the real Kuzu build (COPY, PageRank) and the real
LanceDB upsert (BTree, FTS and IVF-PQ indexes).

Shape per `n` embedded entries: 58% functions, 10% classes, 5% modules, 24% commits, 1% bugs,
2% memories; files 5%; CALLS 2 per function, MODIFIES 4 per commit, HAS_METHOD, DEFINED_IN,
BELONGS_TO, IMPORTS, DEPENDS_ON, PARENT_OF, FIXES, AFFECTS, RELATES_TO_FILE.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np

from ltm import ids
from ltm.embed.hashing import HashEmbedder
from ltm.graph.build import build_graph
from ltm.home import Home
from ltm.lake import Lake
from ltm.stages.embeddings import embed_repo
from ltm.vectors import VectorStore, vector_rows

REPO = "synth"
WORDS = ("parse token header request response session cache retry timeout error handler config load save "
         "user account auth password hash encode decode stream buffer socket connect close open read write "
         "query index graph vector commit branch merge rebase diff patch file path module import export "
         "schedule job queue worker lock event signal metric log trace span").split()
AUTHORS = [("Ada Lovelace", "ada@example.com"), ("Grace Hopper", "grace@example.com"),
           ("Linus Torvalds", "linus@example.com"), ("Barbara Liskov", "barbara@example.com"),
           ("Ken Thompson", "ken@example.com"), ("Margaret Hamilton", "margaret@example.com")]


def _edge(src: str, dst: str, a: str, b: str, **props) -> dict:
    return {"src": src, "dst": dst, "src_label": a, "dst_label": b, "repo": REPO, **props}


def lake_rows(n: int, seed: int = 7) -> dict[str, list[dict]]:
    """Node and edge rows for about `n` embedded entries."""
    rng = np.random.default_rng(seed)
    n_fn, n_cls, n_mod = int(n * 0.58), int(n * 0.10), int(n * 0.05)
    n_commit, n_bug, n_file = int(n * 0.24), int(n * 0.01), int(n * 0.05)
    n_mem = n - n_fn - n_cls - n_mod - n_commit - n_bug  # about 2%: the total is exactly n

    def words(k: int) -> str:
        return " ".join(WORDS[i] for i in rng.integers(0, len(WORDS), k))

    t: dict[str, list[dict]] = {k: [] for k in (
        "File", "Module", "Class", "Function", "Commit", "Bug", "Memory", "DEFINED_IN", "BELONGS_TO", "HAS_METHOD",
        "CALLS", "IMPORTS", "DEPENDS_ON", "MODIFIES", "PARENT_OF", "FIXES", "AFFECTS", "RELATES_TO_FILE")}
    paths = [f"pkg{i % 50}/{WORDS[i % len(WORDS)]}_{i}.py" for i in range(n_file)]
    for i, p in enumerate(paths):
        fid, mid = ids.file_id(REPO, p), ids.module_id(REPO, p[:-3].replace("/", "."))
        t["File"].append({"id": fid, "repo": REPO, "path": p, "language": "python", "size": 1000})
        if i < n_mod:
            t["Module"].append({"id": mid, "repo": REPO, "vector_id": ids.vector_id(mid), "name": p[:-3].replace("/", "."),
                                "path": p, "external": False, "text": f"module {p}: {words(8)}"})
            t["BELONGS_TO"].append(_edge(fid, mid, "File", "Module"))
    mods = [m["id"] for m in t["Module"]]
    for i in range(n_mod):
        t["IMPORTS"].append(_edge(t["File"][int(rng.integers(n_file))]["id"], mods[i], "File", "Module"))
        t["DEPENDS_ON"].append(_edge(mods[int(rng.integers(n_mod))], mods[i], "Module", "Module"))
    classes = []
    for i in range(n_cls):
        p = paths[i % n_file]
        name = f"{WORDS[i % len(WORDS)].title()}{WORDS[(i * 7) % len(WORDS)].title()}{i}"
        cid = ids.class_id(REPO, p, name)
        classes.append((cid, name, p))
        t["Class"].append({"id": cid, "repo": REPO, "vector_id": ids.vector_id(cid), "name": name, "qualified_name": name,
                           "file_path": p, "line_start": 1, "line_end": 40, "docstring": words(10),
                           "text": f"class {name}: {words(20)}"})
        t["DEFINED_IN"].append(_edge(cid, ids.file_id(REPO, p), "Class", "File"))
    fns = []
    for i in range(n_fn):
        name = f"{WORDS[i % len(WORDS)]}_{WORDS[(i * 13) % len(WORDS)]}_{i}"
        if i < n_cls * 3:
            cid, cname, p = classes[i % n_cls]
            q = f"{cname}.{name}"
        else:
            cid, p, q = None, paths[i % n_file], name
        fid = ids.function_id(REPO, p, q)
        fns.append(fid)
        doc = words(12)
        t["Function"].append({"id": fid, "repo": REPO, "vector_id": ids.vector_id(fid), "name": name, "qualified_name": q,
                              "file_path": p, "line_start": 10 + i % 300, "line_end": 20 + i % 300,
                              "signature": f"def {name}(self, value)", "docstring": doc, "is_method": cid is not None,
                              "text": f"def {name}(self, value):\n    \"\"\"{doc}\"\"\"\n    {words(25)}"})
        t["DEFINED_IN"].append(_edge(fid, ids.file_id(REPO, p), "Function", "File"))
        if cid:
            t["HAS_METHOD"].append(_edge(cid, fid, "Class", "Function"))
    src, dst = rng.integers(0, n_fn, 2 * n_fn), rng.zipf(1.6, 2 * n_fn) % n_fn  # a few hubs, many leaves
    t["CALLS"] = [_edge(fns[a], fns[b], "Function", "Function", confidence=0.9) for a, b in zip(src, dst) if a != b]
    start = datetime(2020, 1, 1, tzinfo=timezone.utc)
    commits = []
    for i in range(n_commit):
        sha = f"{i:040x}"
        cid = ids.commit_id(REPO, sha)
        commits.append(cid)
        who = AUTHORS[i % len(AUTHORS)]
        when = start + timedelta(hours=i)
        bugfix = i % 10 == 0
        msg = (f"Fix #{i // 10}: {words(6)}" if bugfix else f"{words(8)}") + f"\n\n{words(15)}"
        t["Commit"].append({"id": cid, "repo": REPO, "vector_id": ids.vector_id(cid), "sha": sha, "author_name": who[0],
                            "author_email": who[1], "authored_at": when, "committed_at": when, "message": msg,
                            "kind": "bugfix" if bugfix else "feature", "text": msg})
        if i:
            t["PARENT_OF"].append(_edge(commits[i - 1], cid, "Commit", "Commit"))
        for f in rng.integers(0, n_fn, 4):
            t["MODIFIES"].append(_edge(cid, fns[f], "Commit", "Function", lines_added=3, lines_deleted=1,
                                       change_type="bugfix" if bugfix else "feature"))
    for b in range(n_bug):
        bid = ids.bug_id(REPO, f"#{b}")
        t["Bug"].append({"id": bid, "repo": REPO, "vector_id": ids.vector_id(bid), "ref": f"#{b}", "title": words(6),
                         "text": f"Bug #{b}: {words(12)}"})
        t["FIXES"].append(_edge(commits[(b * 10) % n_commit], bid, "Commit", "Bug", evidence="message", confidence=1.0))
        t["AFFECTS"].append(_edge(bid, fns[int(rng.integers(n_fn))], "Bug", "Function"))
    for m in range(n_mem):
        mid = ids.memory_id("bench", str(m))
        text = f"{words(15)} see {paths[m % n_file]}"
        t["Memory"].append({"id": mid, "repo": REPO, "vector_id": ids.vector_id(mid), "memory_type": "note",
                            "category": "architecture", "content": text, "source": "bench",
                            "created_at": start + timedelta(days=m), "text": text})
        t["RELATES_TO_FILE"].append(_edge(mid, ids.file_id(REPO, paths[m % n_file]), "Memory", "File",
                                          relevance_score=0.9, context="path", linked_at=start))
    return t


def build_store(root: Path, n: int) -> tuple[Home, dict[str, float], dict[str, list[dict]]]:
    """A home at `root` with about `n` embedded entries; returns it, seconds per step and the rows."""
    home = Home(root).create()
    home.register(REPO, root)
    lake = Lake(home.lake)
    secs: dict[str, float] = {}
    t0 = time.perf_counter()
    rows = lake_rows(n)
    with lake.write(REPO) as w:
        for table, data in rows.items():
            w.write(table, data)
    secs["lake_s"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    embed_repo(lake, REPO, HashEmbedder(384), home.cache / "embeddings")
    secs["embed_s"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    build_graph(home.graph, lake)
    secs["graph_build_s"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    stats = VectorStore(home.vectors).upsert_repo(REPO, vector_rows(lake, REPO))
    secs["vectors_s"] = time.perf_counter() - t0
    secs["entries"] = stats.total_rows
    secs["vector_index"] = stats.vector_index
    return home, secs, rows


@contextmanager
def synthetic_home(root: Path | None, n: int) -> Iterator[tuple[Home, dict, dict[str, list[dict]]]]:
    """The synthetic home at `root`, built there first unless a build is already there (a temporary
    folder, removed afterwards, when `root` is None); yields it, its build seconds and its rows."""
    with tempfile.TemporaryDirectory() as tmp:
        root = root or Path(tmp) / "home"
        if (root / "registry.json").exists():
            yield Home(root), {"reused": True}, lake_rows(n)
        else:
            yield build_store(root, n)

