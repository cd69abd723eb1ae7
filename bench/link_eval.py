"""Linking precision and recall of the labelled memories, relinked in-process against homes' code.

    .venv/bin/python bench/link_eval.py --home DIR [--home DIR ...] [--repos owner/name ...] [--per-repo] [--why]

Reads the code entities (files, functions, classes, modules) of every repository ingested in the
given homes (`ltm ingest`; the hash embedder is enough) and the labelled memories of
`bench/eval/*.memories.jsonl` through the same JSONL reader `ltm memory import` uses, then links
them with `ltm.memory.linking.link_memories`, the function the ingest's backfill runs, so the
figures are those a fresh ingest would give, without one per change. The scoring is
`retrieval_eval.score_links`. Scopes:

- `shared`: one code index of every repository of `--repos` (default: all of `repos.json` found
  in the homes), as in one home holding them all;
- `--per-repo`: each repository's memories against its own code only, as in a home of its own.

`--why` prints every disagreement: the false links with their rule and score, and the misses.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.retrieval_eval import EVAL, full_id, score_links  # noqa: E402
from ltm.home import Home  # noqa: E402
from ltm.memory.linking import CodeIndex, link_memories, memory_frame  # noqa: E402
from ltm.memory.sources import read_jsonl  # noqa: E402
from ltm.memory.records import ImportReport
from ltm.memory.store import code_index  # noqa: E402
from ltm.repos import list_repositories  # noqa: E402


def repo_keys(homes: list[Path]) -> dict[str, tuple[Path, str]]:
    """Repository name (the clone's folder) -> (home, repository key) over the homes."""
    out = {}
    for home in homes:
        for e in list_repositories(Home.resolve(home)):
            out[Path(e["path"]).name] = (home, e["key"])
    return out


def code_of(homes: list[Path], keys: set[str]) -> CodeIndex:
    """One index of the code of the repositories `keys`, read from the homes' lakes."""
    files, ents = [], []
    for home in homes:
        idx = code_index(Home.resolve(home).open_lake())
        files.append(idx.files.filter(pl.col("repo").is_in(list(keys))))
        ents.append(idx.entities.filter(pl.col("repo").is_in(list(keys))))
    return CodeIndex.build(pl.concat(files, how="vertical_relaxed"), pl.concat(ents, how="vertical_relaxed"))


def memories_of(eval_dir: Path, repo: str) -> tuple[list[dict], pl.DataFrame]:
    """(labelled lines, the rows `ltm memory import` would store) of one repository's memories."""
    path = eval_dir / f"{repo.replace('/', '__')}.memories.jsonl"
    labelled = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
    report = ImportReport(source=str(path))
    return labelled, memory_frame(list(read_jsonl(path, report)))


def evaluate(code: CodeIndex, labelled: dict[str, list[dict]], rows: pl.DataFrame,
             keys: dict[str, str]) -> tuple[dict[str, Any], pl.DataFrame]:
    links = link_memories(rows, code).links
    got: dict[str, set[str]] = defaultdict(set)
    for src, dst in links.select("src", "dst").iter_rows():
        got[src].add(dst)
    return score_links(got, labelled, keys), links


def explain(links: pl.DataFrame, labelled: dict[str, list[dict]], keys: dict[str, str]) -> list[str]:
    """Per memory that disagrees: each false link (rule, score) and each miss."""
    out = []
    for repo, mems in labelled.items():
        for m in mems:
            want = {full_id(x, keys[repo]) for x in m["expected_links"]}
            mine = links.filter(pl.col("src") == f"mem:jsonl:{m['id']}")
            have = set(mine["dst"])
            if have == want:
                continue
            out.append(f"{m['id']} ({m['metadata'].get('file_path') or 'no file_path'}): {m['content'][:100]}")
            for dst, score, ctx in mine.filter(~pl.col("dst").is_in(list(want))).select(
                    "dst", "relevance_score", "context").iter_rows():
                out.append(f"   false {dst}  {score}  {ctx}")
            for w in sorted(want - have):
                out.append(f"   miss  {w}")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--home", type=Path, action="append", required=True, help="A home with ingested code (repeatable).")
    ap.add_argument("--eval-dir", type=Path, default=EVAL)
    ap.add_argument("--repos", nargs="*", help="owner/name of repos.json (default: all found in the homes).")
    ap.add_argument("--per-repo", action="store_true", help="Also each repository against its own code only.")
    ap.add_argument("--why", action="store_true", help="Print every false link and every miss.")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    found = repo_keys(args.home)
    repos = [r["repo"] for r in json.loads((args.eval_dir / "repos.json").read_text())
             if (args.eval_dir / f"{r['repo'].replace('/', '__')}.memories.jsonl").is_file()]
    repos = [r for r in repos if (not args.repos or r in args.repos) and r.split("/")[1] in found]
    keys = {r: found[r.split("/")[1]][1] for r in repos}
    labelled, frames = {}, []
    for r in repos:
        labelled[r], rows = memories_of(args.eval_dir, r)
        frames.append(rows)
    scopes = {"shared": repos, **({r: [r] for r in repos} if args.per_repo else {})}
    out: dict[str, Any] = {"repos": keys}
    for scope, members in scopes.items():
        code = code_of(args.home, {keys[r] for r in members})
        mems = {r: labelled[r] for r in members}
        ids = {f"jsonl:{m['id']}" for r in members for m in labelled[r]}
        rows = pl.concat(frames, how="vertical").filter(pl.col("id").str.strip_prefix("mem:").is_in(list(ids)))
        result, links = evaluate(code, mems, rows, {r: keys[r] for r in members})
        out[scope] = {k: v for k, v in result.items() if k != "disagreements"}
        if scope == "shared" and len(members) > 1:  # each repository's share of the shared run
            got = defaultdict(set)
            for src, dst in links.select("src", "dst").iter_rows():
                got[src].add(dst)
            out["in shared"] = {r: {k: v for k, v in score_links(got, {r: labelled[r]}, keys).items()
                                    if k != "disagreements"} for r in members}
        if args.why and scope == "shared":
            out["why"] = explain(links, mems, keys)
    if args.json:
        print(json.dumps(out, indent=2))
        return
    for scope in scopes:
        print(f"{scope:<20}", json.dumps(out[scope]))
        for r, figures in out.get("in shared", {}).items() if scope == "shared" else ():
            print(f"  {r:<18}", json.dumps(figures))
    for line in out.get("why", []):
        print(line)


if __name__ == "__main__":
    main()
