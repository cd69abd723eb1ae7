"""Embedding throughput and quality: the raw model against the pipeline's embedding stage.

    .venv/bin/python bench/embed.py REPO [--limit 400] [--threads N] [--batch-size 32] [--repeat 2]

On the code entities (functions, classes, modules) of REPO at HEAD (an even sample of `--limit`
of them, 0 = all), measured in one run on the same texts:
  - `local` raw: sentence-transformers `encode` alone over every text (its own length sort),
    the floor of the default provider;
  - `local` before the fix: what the stage did before (chunks of 64 in lake order);
  - `local` pipeline: `embed_repo` (lake read, hashing, cache lookups and per-batch commits,
    the lake write), from an empty cache; overhead = pipeline / raw - 1 (target <= 10%);
  - `static` raw and pipeline: the static model (WordLlama's), and its speed-up over `local` raw;
  - quality: a labelled set built from REPO's documented functions: the query is the first line
    of the docstring, the answer is that function, whose text is searched with the docstring
    removed among every function and class; recall@1, recall@5 and MRR per model (`hash` as the
    no-meaning floor), and `local`'s top 50 re-scored with `static` beside it (a reranker).
Best of `--repeat` runs per figure. Prints one JSON object, with the 1-minute load average.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

import numpy as np

from ltm.embed.hashing import HashEmbedder
from ltm.embed.local import LocalEmbedder
from ltm.embed.static import StaticEmbedder
from ltm.home import Home
from ltm.lake import Lake
from ltm.repos import register_local
from ltm.schema import NODE_TABLES
from ltm.stages.code import stage_code
from ltm.stages.embeddings import embed_repo, embedding_inputs


def _best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return min(times)


def _sample(lake: Lake, key: str, limit: int) -> None:
    """Keep an even sample of `limit` embedded entities in the repository's lake partition."""
    tables = {label: lake.read(label, key) for label, t in NODE_TABLES.items() if t.embedded}
    total = sum(t.num_rows for t in tables.values())
    step = max(1, total // limit)
    with lake.write(key) as w:
        for label, t in tables.items():
            if t.num_rows:
                w.write(label, t.take(list(range(0, t.num_rows, step))))


def labelled_set(lake: Lake, key: str) -> tuple[list[str], list[str], list[int]]:
    """(queries, corpus, answer index per query) from the repository's documented functions."""
    corpus: list[str] = []
    queries: list[str] = []
    answers: list[int] = []
    for label in ("Function", "Class"):
        t = lake.read(label, key).to_pylist()
        for row in t:
            doc = (row.get("docstring") or "").strip()
            text = row["text"] or row["id"]
            summary = doc.splitlines()[0].strip() if doc else ""
            if label == "Function" and len(summary.split()) >= 4:
                queries.append(summary)
                answers.append(len(corpus))
                text = text.replace(doc, "")
            corpus.append(text)
    return queries, corpus, answers


def _scores(ranks: list[int]) -> dict[str, float]:
    r = np.asarray(ranks)
    return {"recall@1": round(float((r <= 1).mean()), 3), "recall@5": round(float((r <= 5).mean()), 3),
            "mrr": round(float((1.0 / r).mean()), 3)}


def quality(embedder, queries: list[str], corpus: list[str], answers: list[int]) -> dict[str, float]:
    docs, q = embedder.embed(corpus), embedder.embed(queries)
    return _scores([int((docs @ q[i] > docs[t] @ q[i]).sum()) + 1 for i, t in enumerate(answers)])


def reranked(first, second, queries: list[str], corpus: list[str], answers: list[int],
             weights: tuple[float, ...] = (0.8, 0.7, 0.5), top: int = 50) -> dict[str, dict[str, float]]:
    """`first`'s top `top` re-scored by `w * cos_first + (1 - w) * cos_second` per weight (a reranker)."""
    d1, q1, d2, q2 = first.embed(corpus), first.embed(queries), second.embed(corpus), second.embed(queries)
    out = {}
    for w in weights:
        ranks = []
        for i, target in enumerate(answers):
            s1 = d1 @ q1[i]
            keep = np.argsort(-s1)[:top]
            fused = np.full(len(corpus), -np.inf)
            fused[keep] = w * s1[keep] + (1 - w) * (d2[keep] @ q2[i])
            ranks.append(int((fused > fused[target]).sum()) + 1 if np.isfinite(fused[target]) else 10**6)
        out[f"weight_{w}"] = _scores(ranks)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("repo", type=Path)
    ap.add_argument("--threads", type=int, default=None, help="torch threads (default: all cores)")
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--limit", type=int, default=400, help="embedded entities to keep, evenly sampled (0: all)")
    args = ap.parse_args()
    load_start = os.getloadavg()[0]
    out: dict[str, object] = {"repo": str(args.repo), "cores": os.cpu_count()}
    with tempfile.TemporaryDirectory() as tmp:
        home = Home.resolve(Path(tmp) / "home").create()
        key = register_local(home, args.repo)
        lake = Lake(home.lake)
        stage_code(args.repo, key, lake)
        if args.limit:
            _sample(lake, key, args.limit)
        _, texts = embedding_inputs(lake, key)
        out["texts"] = len(texts)
        out["mean_chars"] = round(sum(map(len, texts)) / len(texts), 1)

        local = LocalEmbedder(batch_size=args.batch_size, threads=args.threads)
        st = local._model
        st.encode(texts[:16], batch_size=args.batch_size)  # warm-up
        raw = _best(lambda: st.encode(texts, batch_size=args.batch_size, normalize_embeddings=True), args.repeat)
        before = _best(lambda: [st.encode(texts[i:i + 64], batch_size=64) for i in range(0, len(texts), 64)], 1)
        runs = iter(range(1000))
        pipe = _best(lambda: embed_repo(lake, key, local, Path(tmp) / f"cache{next(runs)}"), args.repeat)
        out["local"] = {
            "threads": args.threads or __import__("torch").get_num_threads(), "batch_size": args.batch_size,
            "raw_encode_s": round(raw, 2), "raw_texts_per_s": round(len(texts) / raw, 1),
            "before_fix_s": round(before, 2), "pipeline_s": round(pipe, 2),
            "pipeline_texts_per_s": round(len(texts) / pipe, 1), "overhead": round(pipe / raw - 1, 3),
        }

        static = StaticEmbedder()
        static.embed(texts[:16])
        sraw = _best(lambda: static.embed(texts), args.repeat + 1)
        spipe = _best(lambda: embed_repo(lake, key, static, Path(tmp) / f"cache{next(runs)}"), args.repeat + 1)
        out["static"] = {
            "raw_s": round(sraw, 3), "raw_texts_per_s": round(len(texts) / sraw, 1),
            "pipeline_s": round(spipe, 3), "pipeline_texts_per_s": round(len(texts) / spipe, 1),
            "speedup_vs_local_raw": round(raw / sraw, 1),
        }

        queries, corpus, answers = labelled_set(lake, key)
        out["quality"] = {
            "queries": len(queries), "corpus": len(corpus),
            "local": quality(local, queries, corpus, answers),
            "static": quality(static, queries, corpus, answers),
            "local_reranked_by_static": reranked(local, static, queries, corpus, answers),
            "hash": quality(HashEmbedder(), queries, corpus, answers),
        }
    out["load_avg_1m"] = [round(load_start, 2), round(os.getloadavg()[0], 2)]
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
