"""CALLS edges of one repository under two trees of the code: what a change to the resolver lost and added.

    PYTHONPATH=<tree> .venv/bin/python bench/calls_diff.py --dump CLONE OUT.json
    .venv/bin/python bench/calls_diff.py --compare BEFORE.json AFTER.json [--show 5]

`--dump` runs `extract_code` on CLONE (one worker, the repository key `k`) with whichever `ltm` PYTHONPATH
names and writes its CALLS edges as sorted `[src, dst, confidence]` triples. `--compare` prints the edge counts,
the edges lost and new and those whose confidence changed, each by confidence, and a few examples. The oracle is
the reader: this says what moved, never whether it is right.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path


def dump(clone: Path, out: Path) -> None:
    from ltm.extract.code.entities import extract_code
    from ltm.extract.gitrepo import GitRepo

    edges = extract_code(GitRepo(clone), "k", workers=1).tables["CALLS"]
    out.write_text(json.dumps(sorted([e["src"], e["dst"], e["confidence"]] for e in edges)))


def compare(before: Path, after: Path, show: int) -> dict:
    a = {(s, d): c for s, d, c in json.loads(before.read_text())}
    b = {(s, d): c for s, d, c in json.loads(after.read_text())}
    lost, new = [k for k in a if k not in b], [k for k in b if k not in a]
    changed = [k for k in a if k in b and a[k] != b[k]]
    return {
        "edges": [len(a), len(b)],
        "lost_by_confidence": dict(Counter(a[k] for k in lost)),
        "new_by_confidence": dict(Counter(b[k] for k in new)),
        "confidence_changed": [[a[k], b[k], *k] for k in changed[:show]] + ([len(changed)] if changed else []),
        "lost": [[a[k], *k] for k in lost[:show]],
        "new": [[b[k], *k] for k in new[:show]],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dump", nargs=2, metavar=("CLONE", "OUT"))
    ap.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"))
    ap.add_argument("--show", type=int, default=5)
    args = ap.parse_args()
    if args.dump:
        dump(Path(args.dump[0]), Path(args.dump[1]))
    elif args.compare:
        print(json.dumps(compare(Path(args.compare[0]), Path(args.compare[1]), args.show), indent=1))
    else:
        sys.exit("pass --dump CLONE OUT or --compare BEFORE AFTER")


if __name__ == "__main__":
    main()
