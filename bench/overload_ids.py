"""Function ids that carry a line, and ids that changed although the function did not, between two revisions.

    PYTHONPATH=<checkout> .venv/bin/python bench/overload_ids.py CLONE --from REV --to REV

Run it with PYTHONPATH at two checkouts of the project (before and after a change to how ids are made) to
compare them: the script only calls the library's own per-file extraction (`file_rows`, what `extract_code`
hands its workers), over the files `extract_code` parses (same skip rules), at each revision. A file whose blob
is the same at both revisions is parsed once. Cross-file resolution is left out: it reads ids, never makes them.

Prints one JSON object:
- `functions`: Function rows at `--to`; `line_suffix`: those whose id ends in `@L<line>`; `ordinal_suffix`: in
  `@<n>` (`allows(Class<?>)@2`); `param_suffix`: those whose id adds only the parameters (`read(String,int)`) to
  the qualified name.
- `unchanged_bodies`: functions present at both revisions (same path) with the same `body_hash`, and how many of
  them changed id (`id_churn`), the ids with a line among those (`id_churn_line_suffix`), with examples.
- `seconds`: wall time of the parsing at both revisions.
"""

from __future__ import annotations

import argparse
import json
import re
import time
from collections import defaultdict

from ltm.extract.code.file_rows import file_rows
from ltm.extract.filters import MAX_FILE_BYTES, skip_reason
from ltm.extract.gitrepo import MISSING, GitRepo, is_safe_path
from ltm.extract.languages import language_for, read_as

_LINE = re.compile(r"@L\d+$")
_ORDINAL = re.compile(r"@\d+$")
Rows = dict[tuple[str, str], list[dict]]  # (path, blob) -> the file's Function rows


def functions_at(repo: GitRepo, rev: str, cache: Rows) -> list[dict]:
    """Every Function row of the files `extract_code` would parse at `rev` (parsed once per path and blob)."""
    todo, out = [], []
    for entry in repo.tree(rev):
        spec = language_for(entry.path)
        if spec is None or not is_safe_path(entry.path) or entry.size == MISSING:
            continue
        if skip_reason(entry.path, entry.size, None, MAX_FILE_BYTES):
            continue
        if (entry.path, entry.blob) not in cache:
            todo.append(entry)
        else:
            out.extend(cache[(entry.path, entry.blob)])
    with repo.blobs() as blobs:
        for entry, (_, src) in zip(todo, blobs.read_many([e.blob for e in todo])):
            spec = language_for(entry.path)
            if src is None or spec is None or skip_reason(entry.path, entry.size, src, MAX_FILE_BYTES):
                cache[(entry.path, entry.blob)] = []
                continue
            spec = read_as(spec, src)
            rows = [{k: r[k] for k in ("id", "qualified_name", "file_path", "body_hash", "line_start")}
                    for r in file_rows("r", entry.path, spec.name, src)["Function"]]
            cache[(entry.path, entry.blob)] = rows
            out.extend(rows)
    return out


def churn(before: list[dict], after: list[dict]) -> dict:
    """Functions whose (path, body_hash) is at both revisions, and those of them whose id is not there any more."""
    was: dict[tuple[str, str], set[str]] = defaultdict(set)
    now: dict[tuple[str, str], set[str]] = defaultdict(set)
    for r in before:
        was[(r["file_path"], r["body_hash"])].add(r["id"])
    for r in after:
        now[(r["file_path"], r["body_hash"])].add(r["id"])
    same = [k for k in was if k in now]
    moved = sorted(i for k in same for i in was[k] - now[k])
    return {"unchanged_bodies": sum(len(was[k]) for k in same), "id_churn": len(moved),
            "id_churn_line_suffix": sum(1 for i in moved if _LINE.search(i)),
            "id_churn_ordinal_suffix": sum(1 for i in moved if _ORDINAL.search(i)), "examples": moved[:8]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("clone")
    ap.add_argument("--from", dest="old", required=True)
    ap.add_argument("--to", dest="new", default="HEAD")
    args = ap.parse_args()
    repo, cache = GitRepo(args.clone), {}
    start = time.perf_counter()
    before = functions_at(repo, args.old, cache)
    after = functions_at(repo, args.new, cache)
    seconds = time.perf_counter() - start
    plain = {r["id"] for r in after if r["id"].endswith(":" + r["qualified_name"])}
    lined = [r for r in after if _LINE.search(r["id"])]
    numbered = [r for r in after if _ORDINAL.search(r["id"])]
    print(json.dumps({
        "clone": args.clone, "from": repo.head(args.old), "to": repo.head(args.new),
        "functions": len(after), "line_suffix": len(lined),
        "ordinal_suffix": len(numbered),
        "param_suffix": sum(1 for r in after if r["id"] not in plain and not _LINE.search(r["id"])
                            and not _ORDINAL.search(r["id"])),
        "line_suffix_examples": [r["id"].split(":", 2)[2] for r in lined[:5]],
        "ordinal_suffix_examples": [r["id"].split(":", 2)[2] for r in numbered[:5]],
        **churn(before, after), "seconds": round(seconds, 1),
    }, indent=1))


if __name__ == "__main__":
    main()
