"""What LanceDB's IVF-PQ vector index costs in answers and gains in time, against exact search.

    .venv/bin/python bench/vector_index.py --home EVAL_HOME [--json]
    .venv/bin/python bench/vector_index.py --rows 20000,100000,300000,1000000 [--json]

`--home`: a home that holds the labelled set's repositories (`bench/retrieval_eval.py --work W`
leaves one at W/home-local). Its vectors are copied into a temporary table and indexed there as
an ingest indexes them, `--builds` times (each build trains its partitions anew). Every question of `bench/eval/*.jsonl` is embedded with the home's
model and searched the two ways the vector side searches (`ltm.retrieval.vector_side`): the 30
nearest rows of all, and the 30 nearest among functions and classes. Each way runs through the
table's vector index (the settings the vector side uses with one) and exactly (a flat scan,
`bypass_vector_index`). Printed: how many of the exact top 10 and top 30 the index returns
(recall), how often the first hit differs, and the milliseconds of each.

`--rows`: a table of N random unit vectors (384 dimensions, a label column: a tenth of the rows
`Function`) per size, with the IVF-PQ index the store builds; then the same two searches timed
both ways, 20 queries each after a warm-up. This is the floor a flat scan costs as the table grows.
"""

from __future__ import annotations

import argparse
import glob
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import lancedb  # noqa: E402
from lancedb.index import IvfPq  # noqa: E402

from ltm.vectors import INDEX_NPROBES, INDEX_REFINE  # noqa: E402

LIMIT = 30
CODE = "label IN ('Function', 'Class')"


SETTINGS = {"nprobes": INDEX_NPROBES, "refine": INDEX_REFINE}  # the indexed search's, from the vector side unless given


def search(tbl, vector: np.ndarray, where: str | None, exact: bool) -> tuple[list[str], float]:
    """Ids of the LIMIT nearest rows, and the seconds the search took."""
    q = tbl.search(vector.astype(np.float32)).distance_type("cosine").select(["vector_id", "_distance"]).limit(LIMIT)
    q = q.bypass_vector_index() if exact else q.nprobes(SETTINGS["nprobes"]).refine_factor(SETTINGS["refine"])
    if where:
        q = q.where(where, prefilter=True)
    t = time.perf_counter()
    rows = q.to_list()
    dt = time.perf_counter() - t
    return [r["vector_id"] for r in sorted(rows, key=lambda r: (r["_distance"], r["vector_id"]))], dt


def ms(values: list[float]) -> dict[str, float]:
    v = sorted(values)
    return {"p50_ms": round(1000 * statistics.median(v), 2), "p95_ms": round(1000 * v[int(0.95 * (len(v) - 1))], 2)}


def compare(tbl, vectors: list[np.ndarray]) -> dict:
    """Recall of the indexed search against the exact one, and both timings, for both searches."""
    out = {}
    for name, where in (("all rows", None), ("functions and classes", CODE)):
        r10, r30, first, t_idx, t_exact = [], [], 0, [], []
        for v in vectors:
            exact, te = search(tbl, v, where, True)
            approx, ti = search(tbl, v, where, False)
            t_exact.append(te)
            t_idx.append(ti)
            r10.append(len(set(exact[:10]) & set(approx[:10])) / max(1, len(exact[:10])))
            r30.append(len(set(exact) & set(approx)) / max(1, len(exact)))
            first += bool(exact and approx and exact[0] != approx[0])
        out[name] = {"recall@10": round(statistics.mean(r10), 3), "recall@30": round(statistics.mean(r30), 3),
                     "first_hit_differs": first, "queries": len(vectors),
                     "indexed": ms(t_idx), "exact": ms(t_exact)}
    return out


def on_home(home: Path, builds: int) -> dict:
    from ltm.home import Home
    from ltm.query import HybridLTM

    questions = []
    for f in sorted(glob.glob(str(ROOT / "bench" / "eval" / "*.jsonl"))):
        for line in Path(f).read_text(encoding="utf-8").splitlines():
            d = json.loads(line) if line.strip() else {}
            if "question" in d:
                questions.append(d["question"])
    with HybridLTM(Home.resolve(home)) as m:
        embedder = m._query_embedder()
        vectors = [embedder.embed([q])[0] for q in questions]
        source = m.vectors.table().to_arrow().select(["vector_id", "label", "vector"])
        model = m.vectors.model()["model"]
    result = {"home": str(home), "rows": source.num_rows, "model": model, "questions": len(vectors), "builds": []}
    with tempfile.TemporaryDirectory() as d:  # a copy: the home itself is never written
        for b in range(builds):
            tbl = lancedb.connect(f"{d}/b{b}").create_table("entries", data=source)
            tbl.create_index("vector", config=IvfPq(distance_type="cosine"))  # as an ingest builds it
            for v in vectors[:3]:
                search(tbl, v, None, True)
                search(tbl, v, None, False)
            result["builds"].append(compare(tbl, vectors))
    return result


def synthetic(n: int, work: Path, dim: int = 384, seed: int = 7) -> dict:
    rng = np.random.default_rng(seed)
    db = lancedb.connect(str(work / f"t{n}"))
    batches = []
    for start in range(0, n, 100_000):
        k = min(100_000, n - start)
        v = rng.standard_normal((k, dim), dtype=np.float32)
        v /= np.linalg.norm(v, axis=1, keepdims=True)
        labels = np.where(np.arange(start, start + k) % 10 == 0, "Function", "Commit")
        batches.append(pa.table({
            "vector_id": pa.array([f"vec_{i:08x}" for i in range(start, start + k)]),
            "label": pa.array(labels.tolist()),
            "vector": pa.FixedSizeListArray.from_arrays(pa.array(v.ravel()), dim),
        }))
    tbl = db.create_table("entries", data=batches[0])
    for b in batches[1:]:
        tbl.add(b)
    t = time.perf_counter()
    tbl.create_index("vector", config=IvfPq(distance_type="cosine"))
    build = time.perf_counter() - t
    queries = [q / np.linalg.norm(q) for q in rng.standard_normal((23, dim), dtype=np.float32)]
    for q in queries[:3]:
        search(tbl, q, None, True)
        search(tbl, q, None, False)
    return {"rows": n, "index_build_s": round(build, 1)} | compare(tbl, queries[3:])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--home", type=Path)
    ap.add_argument("--rows", help="comma-separated table sizes of random vectors")
    ap.add_argument("--builds", type=int, default=3, help="index builds over the home's vectors (each trains anew)")
    ap.add_argument("--nprobes", type=int, default=INDEX_NPROBES, help="the indexed search's partitions searched")
    ap.add_argument("--refine", type=int, default=INDEX_REFINE, help="the indexed search's refine factor")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    SETTINGS.update(nprobes=args.nprobes, refine=args.refine)
    results: list[dict] = [{"settings": dict(SETTINGS)}]
    if args.home:
        results.append(on_home(args.home, args.builds))
    if args.rows:
        with tempfile.TemporaryDirectory() as d:
            for n in (int(x) for x in args.rows.split(",")):
                results.append(synthetic(n, Path(d)))
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(f"indexed search: nprobes {SETTINGS['nprobes']}, refine factor {SETTINGS['refine']}")
    for r in results[1:]:
        head = f"{r['rows']:>9} rows" + (f" (index build {r['index_build_s']} s)" if "index_build_s" in r else f" {r.get('home')}")
        print(head)
        for name, c in [(n, b[n]) for b in r.get("builds", [r]) for n in ("all rows", "functions and classes")]:
            print(f"  {name:<22} recall@10 {c['recall@10']:.3f} recall@30 {c['recall@30']:.3f} "
                  f"first differs {c['first_hit_differs']}/{c['queries']}  indexed p50 {c['indexed']['p50_ms']} ms "
                  f"p95 {c['indexed']['p95_ms']} ms  exact p50 {c['exact']['p50_ms']} ms p95 {c['exact']['p95_ms']} ms")


if __name__ == "__main__":
    main()
