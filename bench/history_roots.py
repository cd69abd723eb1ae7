"""Where the history stage's parses from scratch come from: each version a job parses, by kind.

    PYTHONPATH=<tree> .venv/bin/python bench/history_roots.py CLONE [--max-commits N] [--chunk-commits C]
        [--hold-mib M]

Mines CLONE's newest N commits (default 4,000) with `mine_history` in this process (one worker, so
every job passes through here) into an empty span cache, and counts each version a job parses, with
its source bytes, as one of:
  incremental  reparsed from a newer version of the same file (its tree edited with the hunks)
  reused       a chain's first version whose tree this process still held from the previous chunk
  restarted    a chain's first version held at the end of the previous chunk, but let go since
               (`version_chains.HOLD_BYTES`): parsed from scratch again
  fresh        a chain's first version no earlier chunk ended with (the newest version of a file,
               a side branch's version): a parse from scratch no chunking avoids
Prints one JSON object with the counts, the bytes and the seconds. `--hold-mib` sets HOLD_BYTES;
`--chunk-commits` the chunks' commits (default: the stage's). `PYTHONPATH` picks the checkout
measured (a `git worktree add --detach` of another commit for a before / after).
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from collections import Counter
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("repo", type=Path)
    ap.add_argument("--max-commits", type=int, default=4000)
    ap.add_argument("--chunk-commits", type=int, default=None)
    ap.add_argument("--hold-mib", type=int, default=None)
    args = ap.parse_args()

    import ltm.extract.history.version_chains as vc
    from ltm.extract.gitrepo import GitRepo
    from ltm.extract.history.mine import CHUNK_COMMITS, mine_history
    from ltm.extract.history.spans import SpanCache

    counts: Counter = Counter()
    sizes: Counter = Counter()
    parse = vc.parse_versions

    def counting(versions, *rest):
        for v in versions:
            if v.base >= 0:
                kind = "incremental"
            elif v.held:
                kind = "reused" if v.key in vc._HELD else "restarted"
            else:
                kind = "fresh"
            counts[kind] += 1
            sizes[kind] += getattr(v, "size", None) or len(getattr(v, "src", b""))
        return parse(versions, *rest)

    vc.parse_versions = counting
    if args.hold_mib is not None:
        vc.HOLD_BYTES = args.hold_mib << 20
    with tempfile.TemporaryDirectory(prefix="bench-roots-") as tmp:
        started = time.perf_counter()
        mine_history(GitRepo(args.repo), "r", "HEAD", cache=SpanCache(Path(tmp) / "spans.sqlite"),
                     max_commits=args.max_commits, workers=1, chunk_commits=args.chunk_commits or CHUNK_COMMITS)
        seconds = time.perf_counter() - started
    print(json.dumps({
        "repo": str(args.repo), "commits": args.max_commits, "chunk_commits": args.chunk_commits or CHUNK_COMMITS,
        "hold_mib": vc.HOLD_BYTES >> 20, "seconds": round(seconds, 1),
        "versions": dict(counts), "source_mb": {k: round(v / 1e6, 1) for k, v in sizes.items()},
        "loadavg": round(os.getloadavg()[0], 2),
    }))


if __name__ == "__main__":
    main()
