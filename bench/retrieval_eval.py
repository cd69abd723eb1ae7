"""Retrieval and linking quality on real public repositories, from the labelled set in bench/eval/.

    .venv/bin/python bench/retrieval_eval.py [--embedder local|hash|static] [--split report] [--json]

The set (bench/eval/README.md): questions written from reading each repository at a pinned
commit, answers checked with grep and git; bug reports taken from the repositories' public issue
threads. Each repository is cloned from its mirror (`--mirrors`, the `fetch` tool's folder, or
`--repo-dir owner/name=PATH`) at its pinned commit into `--work`, ingested into one home through
the real pipeline (`ltm ingest`, then `ltm memory import` of the labelled memories and an ingest
that links them), and every question is put to every strategy. Printed per strategy, kind and
split: hit@1, hit@5, MRR and recall@5; bug localization: file@5 and function@5; linking:
precision and recall of the labelled memories' links. `vector_only` is the peer. The fixture
evaluation of the project's own `shop` repository is `bench/retrieval_fixture.py`.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ltm.home import Home  # noqa: E402
from ltm.lake import Lake  # noqa: E402
from ltm.query import HybridLTM  # noqa: E402
from ltm.repos import list_repositories  # noqa: E402
from ltm.retrieval.strategies import STRATEGIES  # noqa: E402

EVAL = Path(__file__).resolve().parent / "eval"
KINDS = ("structural", "semantic", "history", "bug", "memory")
LINKS = ("RELATES_TO_FILE", "RELATES_TO_FUNCTION", "RELATES_TO_CLASS")
TARGETS = {"all": 0.85, "structural": 0.9, "semantic": 0.75}  # success@5 (#17)


def load_set(eval_dir: Path, only: set[str] | None) -> tuple[list[dict], list[dict], dict[str, list[dict]]]:
    """(repositories, questions, memories per repository) of the labelled set."""
    repos = [r for r in json.loads((eval_dir / "repos.json").read_text()) if not only or r["repo"] in only]
    repos = [r for r in repos if (eval_dir / f"{r['repo'].replace('/', '__')}.jsonl").is_file()]
    questions, memories = [], {}
    for r in repos:
        stem = r["repo"].replace("/", "__")
        for line in (eval_dir / f"{stem}.jsonl").read_text(encoding="utf-8").splitlines():
            if line.strip():
                questions.append({**json.loads(line), "repo": r["repo"]})
        mem = eval_dir / f"{stem}.memories.jsonl"
        memories[r["repo"]] = [json.loads(x) for x in mem.read_text(encoding="utf-8").splitlines()
                               if x.strip()] if mem.is_file() else []
    return repos, questions, memories


def checkout(r: dict, work: Path, mirrors: Path, dirs: dict[str, str]) -> Path:
    """A work tree of repository `r` at its pinned commit (cloned once, then reused)."""
    path = work / r["repo"].split("/")[1]
    if not (path / ".git").exists():
        src = dirs.get(r["repo"]) or str(mirrors / r["repo"].replace("/", "+") / "repo")
        subprocess.run(["git", "clone", "-q", src, str(path)], check=True)
    subprocess.run(["git", "-C", str(path), "checkout", "-q", "--detach", r["commit"]], check=True)
    return path


def ingest(home: Path, paths: list[Path], memory_files: list[Path], embedder: str) -> float:
    """Ingest the repositories, import the memories and ingest again (which links them); seconds."""
    ltm = str(Path(sys.executable).with_name("ltm"))
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    started = time.perf_counter()
    run = lambda *a: subprocess.run([ltm, *a, "--home", str(home)], check=True, env=env, stdout=sys.stderr)  # noqa: E731
    run("ingest", *map(str, paths), "--embedder", embedder)
    for f in memory_files:
        run("memory", "import", str(f))
    run("ingest", *map(str, paths))
    return time.perf_counter() - started


def full_id(short: str, key: str) -> str:
    """`fn:path:name` -> `fn:<key>:path:name`; memory ids carry no repository key."""
    kind, _, rest = short.partition(":")
    return short if kind == "mem" else f"{kind}:{key}:{rest}"


def path_of(eid: str) -> str | None:
    """The file path inside a function, class or file id (`fn:<key>:<path>:<name>`)."""
    parts = eid.split(":")
    if parts[0] in ("fn", "cls") and len(parts) >= 4:
        return parts[2]
    return parts[2] if parts[0] == "file" and len(parts) >= 3 else None


def matches(hit: str, want: str) -> bool:
    if want.startswith("commit:") and hit.startswith("commit:"):
        return hit.rsplit(":", 1)[0] == want.rsplit(":", 1)[0] and hit.rsplit(":", 1)[1].startswith(want.rsplit(":", 1)[1])
    return hit == want


def score(hits: list[str], expected: list[str], kind: str) -> dict[str, float]:
    """hit@1, hit@5, reciprocal rank, recall@5; for bugs also file@5 and function@5."""
    rank = next((i for i, h in enumerate(hits, 1) if any(matches(h, w) for w in expected)), None)
    found5 = sum(any(matches(h, w) for h in hits[:5]) for w in expected)
    out = {"hit@1": float(rank == 1), "hit@5": float(bool(rank and rank <= 5)),
           "mrr": 1.0 / rank if rank else 0.0, "recall@5": found5 / len(expected)}
    if kind == "bug":
        files = {path_of(w) for w in expected} - {None}
        out["file@5"] = float(any(path_of(h) in files for h in hits[:5]))
        fns = [w for w in expected if w.startswith(("fn:", "cls:"))]
        out["function@5"] = float(any(h in fns for h in hits[:5])) if fns else out["file@5"]
    return out


def linking(home: Path, memories: dict[str, list[dict]], keys: dict[str, str]) -> dict[str, Any]:
    """Precision and recall of the labelled memories' links in the home's lake (micro-averaged)."""
    lake = Lake(home / "lake")
    got: dict[str, set[str]] = defaultdict(set)
    for table in LINKS:
        for row in lake.read(table, columns=["src", "dst"]).to_pylist():
            got[row["src"]].add(row["dst"])
    return score_links(got, memories, keys)


def score_links(got: dict[str, set[str]], memories: dict[str, list[dict]], keys: dict[str, str]) -> dict[str, Any]:
    """Precision and recall of `got` (memory id -> linked entity ids) against the labelled links."""
    tp = fp = fn = 0
    wrong: list[str] = []
    for repo, mems in memories.items():
        for m in mems:
            if "expected_links" not in m:
                continue
            want = {full_id(x, keys[repo]) for x in m["expected_links"]}
            have = got.get(f"mem:jsonl:{m['id']}", set())
            tp, fp, fn = tp + len(have & want), fp + len(have - want), fn + len(want - have)
            if have != want:
                wrong.append(f"{m['id']}: extra {sorted(have - want)} missing {sorted(want - have)}")
    return {"precision": round(tp / (tp + fp), 3) if tp + fp else None,
            "recall": round(tp / (tp + fn), 3) if tp + fn else None, "links": tp + fp, "labelled": tp + fn,
            "disagreements": wrong}


def mean(rows: list[dict[str, float]]) -> dict[str, float]:
    keys = sorted({k for r in rows for k in r})
    return {k: round(sum(r.get(k, 0.0) for r in rows if k in r) / sum(1 for r in rows if k in r), 3)
            for k in keys} | {"n": len(rows)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--embedder", default="local", choices=["local", "hash", "static"])
    ap.add_argument("--eval-dir", type=Path, default=EVAL)
    ap.add_argument("--work", type=Path, default=Path("/tmp/ltm-eval"), help="Clones and the home (reused).")
    ap.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"), help="Mirrors as <owner>+<name>/repo.")
    ap.add_argument("--repo-dir", action="append", default=[], metavar="OWNER/NAME=PATH",
                    help="A clone or mirror of one repository (repeatable).")
    ap.add_argument("--repos", nargs="*", help="Only these owner/name.")
    ap.add_argument("--split", choices=["tune", "report", "all"], default="all")
    ap.add_argument("--strategies", nargs="*", default=list(STRATEGIES))
    ap.add_argument("--reuse", action="store_true", help="Query the existing home under --work without ingesting.")
    ap.add_argument("--per-question", action="store_true", help="Also list each question's rank per strategy.")
    ap.add_argument("--json", action="store_true", help="Print JSON only.")
    args = ap.parse_args()
    repos, questions, memories = load_set(args.eval_dir, set(args.repos) if args.repos else None)
    questions = [q for q in questions if args.split == "all" or q["split"] == args.split]
    home = args.work / f"home-{args.embedder}"
    dirs = dict(x.split("=", 1) for x in args.repo_dir)
    args.work.mkdir(parents=True, exist_ok=True)
    paths = [checkout(r, args.work, args.mirrors, dirs) for r in repos]
    seconds = None
    if not args.reuse:
        mem_files = []
        for r in repos:
            if memories[r["repo"]]:
                f = args.work / f"{r['repo'].replace('/', '__')}.memories.jsonl"
                f.write_text("".join(json.dumps({k: v for k, v in m.items() if k != "expected_links"}) + "\n"
                                     for m in memories[r["repo"]]), encoding="utf-8")
                mem_files.append(f)
        seconds = round(ingest(home, paths, mem_files, args.embedder), 1)
    by_path = {str(Path(e["path"]).resolve()): e["key"] for e in list_repositories(Home.resolve(home))}
    keys = {r["repo"]: by_path[str(p.resolve())] for r, p in zip(repos, paths)}
    per: dict[str, dict[str, list[dict]]] = defaultdict(lambda: defaultdict(list))
    detail: dict[str, dict[str, int | None]] = defaultdict(dict)
    latency: dict[str, list[float]] = defaultdict(list)
    with HybridLTM(Home.resolve(home)) as memory:
        for s in args.strategies:
            for q in questions:
                expected = [full_id(x, keys[q["repo"]]) for x in q["expected"]]
                t = time.perf_counter()
                hits = [h["graph_entity_id"] for h in memory.query(q["question"], strategy=s, top_k=10)]
                latency[s].append(time.perf_counter() - t)
                sc = score(hits, expected, q["kind"])
                for group in (q["kind"], "all", f"{q['kind']}/{q['split']}", f"all/{q['split']}", q["repo"]):
                    per[s][group].append(sc)
                if q.get("relation"):
                    per[s][f"{q['kind']}:{q['relation']}"].append(sc)
                detail[q["id"]][s] = round(1 / sc["mrr"]) if sc["mrr"] else None
    table = {s: {g: mean(rows) for g, rows in sorted(groups.items())} for s, groups in per.items()}
    p95 = {s: round(sorted(v)[int(0.95 * (len(v) - 1))] * 1000, 1) for s, v in latency.items()}
    out = {"embedder": args.embedder, "split": args.split, "questions": len(questions),
           "repos": {r["repo"]: r["commit"][:12] for r in repos}, "ingest_s": seconds,
           "by_strategy": table, "query_p95_ms": p95, "linking": linking(home, memories, keys),
           **({"per_question": detail} if args.per_question else {})}
    if args.json:
        print(json.dumps(out, indent=2))
        return
    print(f"embedder={args.embedder} split={args.split} questions={len(questions)} repos={len(repos)} ingest={seconds}s")
    cols = ["all", *KINDS]
    print(f"{'hit@5 (n)':<13}" + "".join(f"{c:>14}" for c in cols) + f"{'bug file@5':>12}{'fn@5':>7}{'p95 ms':>8}")
    for s in args.strategies:
        row = table[s]
        cells = "".join(f"{row[c]['hit@5']:>9.3f} ({row[c]['n']:>2})" if c in row else f"{'-':>14}" for c in cols)
        bug = row.get("bug", {})
        print(f"{s:<13}{cells}{bug.get('file@5', 0):>12.3f}{bug.get('function@5', 0):>7.3f}{p95[s]:>8}")
    print("targets (success@5):", TARGETS)
    print("linking:", json.dumps({k: v for k, v in out["linking"].items() if k != "disagreements"}))
    if args.per_question:
        print(f"{'question (rank of the first right answer)':<44}" + "".join(f"{s:>13}" for s in args.strategies))
        for qid, by in detail.items():
            print(f"{qid:<44}" + "".join(f"{str(by[s]):>13}" for s in args.strategies))


if __name__ == "__main__":
    main()
