"""Auto-linking at scale: N synthetic memories against M function names, vs one CONTAINS per memory.

    .venv/bin/python bench/link.py [--memories 1000000] [--functions 100000] [--sample 200] [--similarity] [--members]

The fast way (`ltm.memory.linking.link_memories`) tokenises every memory with one regex in polars
and hash-joins the tokens with the name index. The naive way runs one Kuzu query per memory
(`MATCH (f:Function) WHERE $content CONTAINS f.name`) over the same names; it is timed on a sample
and extrapolated to all memories. Prints one JSON object, with `uptime`'s load average, since the
machine's 2 cores may be shared.

`--members` makes the functions methods of classes of ten (each with a body that reads a parameter
`opt_<i>`) and has a third of the memories name a class and one such parameter, so the rules for the
members a memory describes (`ltm.memory.members`) run on every one of them; without it the code has
no classes and those rules have nothing to read.

`--similarity` adds the evolution pass (`ltm.memory.evolution`) over the same memories and links:
synthetic 384-dimension vectors (2,000 topics; memories in groups of four near-duplicates, cosine
about 0.8 within a group, scattered in order), candidate pairs by the clustered nearest-neighbour
search plus shared linked code, then the rules on every candidate, the edges written batch by batch
into a lake in a scratch folder, as `memory_links` runs it. The vectors are drawn a chunk at a time
straight into a memmap the pass reads (float32 on disk: no 1.5 GB temporaries at 1,000,000).
Printed: seconds of each step and the recall of the planted pairs among the candidates;
`--edges-out PREFIX` writes the edges, sorted, to compare two versions row for row.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import tempfile
import time
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from ltm.graph.engine import open_database, query
from ltm.memory.linking import CodeIndex, link_memories, memory_frame

DIM, TOPICS, GROUP = 384, 2000, 4

WORDS = ("the fix for when we call it and a lock on token cache retry slow failed after refactor in "
         "request handler review moved added check edge case timeout value config path").split()
VERBS = ["get", "set", "load", "parse", "build", "check", "render", "fetch", "encode", "merge", "compute"]
NOUNS = ["token", "header", "session", "cache", "user", "graph", "record", "batch", "index", "query", "frame"]


def synthetic_code(n_functions: int, rnd: random.Random, members: bool = False) -> tuple[pl.DataFrame, pl.DataFrame]:
    """n functions with unique names `<verb>_<noun>_<i>` in files of 50 functions each; with
    `members`, methods of classes `Cls<k>` of ten, each with a body (`text`) reading `opt_<i>`."""
    rows, files = [], {}
    for i in range(n_functions):
        path = f"pkg{i // 5000}/mod{i // 50}.py"
        name = f"{rnd.choice(VERBS)}_{rnd.choice(NOUNS)}_{i}"
        files[path] = f"file:bench:{path}"
        module = path[:-3].replace("/", ".")
        if not members:
            rows.append((f"fn:bench:{path}:{name}", "Function", "bench", name, name, path, module, None))
            continue
        cls, qualified = f"Cls{i // 10}", f"Cls{i // 10}.{name}"
        text = f"{qualified} ({path})\ndef {name}(self, opt_{i}=None):\n    return self.{rnd.choice(NOUNS)}(opt_{i})"
        rows.append((f"fn:bench:{path}:{qualified}", "Function", "bench", name, qualified, path, module, text))
        if i % 10 == 0:
            rows.append((f"cls:bench:{path}:{cls}", "Class", "bench", cls, cls, path, module, None))
    ents = pl.DataFrame(rows, schema={**{c: pl.String for c in ("id", "label", "repo", "name", "qualified_name", "file_path", "module")},
                                      "text": pl.String}, orient="row")
    f = pl.DataFrame({"id": list(files.values()), "repo": ["bench"] * len(files), "path": list(files)})
    return f, ents


def synthetic_memories(n: int, names: list[str], paths: list[str], rnd: random.Random,
                       members: bool = False) -> pl.DataFrame:
    """n memories of ~15 words; about half name one or two functions, some near misses; 30% carry a
    file_path in their metadata (relative, absolute or partial); with `members` a third also name a
    class and a parameter one of its methods reads."""
    contents, file_paths = [], []
    for i in range(n):
        words = rnd.choices(WORDS, k=12)
        if members and rnd.random() < 1 / 3:
            f = rnd.randrange(len(names))
            words[1:1] = [f"Cls{f // 10}", "reads", f"opt_{f}"]
        r = rnd.random()
        if r < 0.4:
            words.insert(rnd.randrange(12), rnd.choice(names))
        elif r < 0.5:
            words[3:3] = [rnd.choice(names) + "()", "and", rnd.choice(names)]
        elif r < 0.6:
            words.insert(5, rnd.choice(names) + "_old")  # not an identifier match
        contents.append(" ".join(words))
        r = rnd.random()
        path = rnd.choice(paths)
        file_paths.append(path if r < 0.1 else f"/home/dev/bench/{path}" if r < 0.2 else path.split("/")[-1] if r < 0.3 else None)
    ids = [f"mem:bench:{i}" for i in range(n)]
    return memory_frame(pl.DataFrame({"id": ids, "content": contents, "file_path": file_paths}))


def naive(memories: pl.DataFrame, ents: pl.DataFrame, sample: int) -> tuple[float, int]:
    """Seconds and links for one CONTAINS query per memory over the first `sample` memories."""
    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / "fn.parquet"
        pq.write_table(pa.table({"id": ents["id"].to_list(), "name": ents["name"].to_list()}), f)
        with open_database(Path(tmp) / "naive.kuzu", read_only=False) as conn:
            query(conn, "CREATE NODE TABLE Function(id STRING, name STRING, PRIMARY KEY(id))")
            query(conn, f"COPY Function FROM '{f}'")
            started = time.perf_counter()
            links = 0
            for content in memories["content"].head(sample):
                links += len(query(conn, "MATCH (f:Function) WHERE $c CONTAINS f.name RETURN f.id", {"c": content}))
            return time.perf_counter() - started, links


def synthetic_vectors(n: int, path: Path, chunk: int = 65_536) -> tuple[np.ndarray, np.ndarray]:
    """n 384-d float32 vectors (2,000 topics, groups of `GROUP` near-duplicates scattered in order)
    drawn `chunk` rows at a time straight into a memmap at `path`; and each memory's group."""
    rng = np.random.default_rng(7)
    groups = rng.permutation(n) // GROUP  # memory -> its group of near-duplicates
    topics = rng.standard_normal((TOPICS, DIM), dtype=np.float32)
    base = topics[rng.integers(0, TOPICS, groups.max() + 1)]
    base += 0.8 * rng.standard_normal((groups.max() + 1, DIM), dtype=np.float32)
    out = np.lib.format.open_memmap(path, mode="w+", dtype=np.float32, shape=(n, DIM))
    for s in range(0, n, chunk):  # the same draws as one (n, DIM) call, a chunk of rows at a time
        out[s:s + chunk] = base[groups[s:s + chunk]] + 0.5 * rng.standard_normal((min(chunk, n - s), DIM), dtype=np.float32)
    return out, groups


def similarity_pass(memories: pl.DataFrame, links: pl.DataFrame, edges_out: str | None = None) -> dict:
    """Time the evolution pass over the memories (see the module doc), as `memory_links` runs it:
    candidates, then the rules with the edges written batch by batch into a lake in a scratch folder."""
    from ltm.lake import Lake
    from ltm.memory.evolution import candidates, write_evolution
    from ltm.memory.similarity import normalize_rows

    n = memories.height
    frame = memories.select("id", "content").with_columns(
        pl.datetime(2024, 1, 1, time_zone="UTC").dt.offset_by(pl.format("{}m", pl.int_range(n))).alias("created_at"))
    with tempfile.TemporaryDirectory(prefix="ltm-bench-similarity-") as tmp:
        vectors, groups = synthetic_vectors(n, Path(tmp) / "vectors.npy")
        links = links.select("src", "dst")
        started = time.perf_counter()
        v = normalize_rows(vectors)
        cand = candidates(frame["id"], links, v)
        candidates_s = time.perf_counter() - started
        lake = Lake(Path(tmp) / "lake")
        stats = write_evolution(lake, frame, links, v, cand)
        total_s = time.perf_counter() - started
        ij = cand.ij
        planted = int((groups[ij[:, 0]] == groups[ij[:, 1]]).sum())
        expected = int(sum(k * (k - 1) // 2 for k in np.bincount(groups)))
        if edges_out:  # sorted, to compare two versions of the pass row for row
            for t in stats.edges:
                pl.from_arrow(lake.read(t, "memories")).sort("src", "dst").write_parquet(f"{edges_out}-{t}.parquet")
        del vectors, v
    return {
        "similarity_memories": n, "similarity_total_s": round(total_s, 1), "similarity_candidates_s": round(candidates_s, 1),
        "similarity_judge_s": round(total_s - candidates_s, 1), "candidate_pairs": int(ij.shape[0]),
        "pairs_judged": stats.pairs_judged, "planted_pair_recall": round(planted / expected, 3), "edges": stats.edges,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--memories", type=int, default=1_000_000)
    ap.add_argument("--functions", type=int, default=100_000)
    ap.add_argument("--sample", type=int, default=200, help="memories linked the naive way")
    ap.add_argument("--similarity", action="store_true", help="also time the evolution pass (SIMILAR_TO, SUPERSEDES)")
    ap.add_argument("--skip-naive", action="store_true", help="leave out the naive CONTAINS sample")
    ap.add_argument("--similarity-only", action="store_true",
                    help="time only the evolution pass, over memories with no code links (less memory)")
    ap.add_argument("--members", action="store_true", help="functions as methods of classes, memories naming them")
    ap.add_argument("--edges-out", help="write the pass's edges, sorted, to <prefix>-<table>.parquet")
    args = ap.parse_args()
    rnd = random.Random(7)
    if args.similarity_only:
        files, ents = synthetic_code(1000, rnd)
        memories = synthetic_memories(args.memories, ents["name"].to_list(), files["path"].to_list(), rnd)
        no_links = pl.DataFrame(schema={"src": pl.String, "dst": pl.String})
        print(json.dumps({**similarity_pass(memories, no_links, args.edges_out), "load_avg_before": os.getloadavg(),
                          "cpus": os.cpu_count()}, indent=2))
        return
    files, ents = synthetic_code(args.functions, rnd, args.members)
    names = ents.filter(pl.col("label") == "Function")["name"].to_list()
    memories = synthetic_memories(args.memories, names, files["path"].to_list(), rnd, args.members)
    load_before = os.getloadavg()
    started = time.perf_counter()
    code = CodeIndex.build(files, ents)
    index_s = time.perf_counter() - started
    result = link_memories(memories, code)
    fast_s = time.perf_counter() - started
    naive_s, naive_links = naive(memories, ents, args.sample) if not args.skip_naive else (0.0, 0)
    fn_links = result.links.filter(pl.col("rel") == "RELATES_TO_FUNCTION")
    fast_sample = fn_links.filter(pl.col("src").is_in(memories["id"].head(args.sample).implode())).height
    per_memory = naive_s / args.sample
    print(json.dumps({
        "memories": args.memories, "functions": args.functions, "members": args.members, "links": result.links.height,
        "by_rule": result.by_rule(), "function_links": fn_links.height,
        "fast_total_s": round(fast_s, 2), "fast_index_build_s": round(index_s, 2),
        "fast_memories_per_s": round(args.memories / fast_s),
        "naive_sample": args.sample, "naive_sample_s": round(naive_s, 2),
        "naive_extrapolated_s": round(per_memory * args.memories), "speedup": round(per_memory * args.memories / fast_s),
        "sample_links_fast": fast_sample, "sample_links_naive_contains": naive_links,
        "load_avg_before": [round(x, 2) for x in load_before], "load_avg_after": [round(x, 2) for x in os.getloadavg()],
        "cpus": os.cpu_count(),
        **(similarity_pass(memories, result.links, args.edges_out) if args.similarity else {}),
    }, indent=2))


if __name__ == "__main__":
    main()
