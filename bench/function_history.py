"""Which commits changed a function: ours beside `git log -L`, on functions sampled at HEAD.

    .venv/bin/python bench/function_history.py HOME CLONE [--repo KEY] [--sample 80] [--seed 1]
                                               [--show 10] [--json]

HOME holds CLONE's ingest (`ltm ingest CLONE --home HOME`). `--sample` functions present at HEAD
are drawn from the graph (those whose ids hash lowest, so two homes of one repository draw the same
functions wherever their ids agree). For each, ours is the answer of the `history` tool
(`MemoryService.history`: the commits that MODIFIES the function or a former name of it), and the
peer is git's own line history of the function's lines at HEAD, `git log -L START,END:PATH`, which
follows those lines back through every commit that touched them (the same range each function has
in the graph).

The two are not the same question in four known ways, each counted apart rather than scored:
- merges: ours diffs a merge against its first parent, so a merge that brought a change in is
  listed with the commit that made it; `git log -L` shows only the commit that made it;
- former names at another path: ours follows RENAMED_FROM into another file, where a definition moved
  between files; `-L` follows only a file that git sees renamed (counted: ours' commits at another path
  that `-L` does not list);
- a rename: ours lists the commit that renamed the function or its class, though none of its own lines
  changed (counted where `-L` does not list it);
- the function's own first lines: `-L` follows the lines, so it lists the commit that wrote any of
  them even as part of another function, before this one existed under its name.

Functions the graph counts present (`removed_in` empty) whose file is not at HEAD are counted, not
sampled. Prints precision and recall of the non-merge commits over all sampled functions (micro), the share
of functions whose two lists agree exactly, and each side's time per function (the tool warm, in
this process; git one process per function).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ltm.graph.entity_ids import plain_id  # noqa: E402
from ltm.home import Home  # noqa: E402
from server.service import MemoryService  # noqa: E402

_PRESENT = ("MATCH (f:Function) WHERE f.repo = $repo AND f.removed_in IS NULL AND f.line_end > f.line_start "
            "RETURN f.id, f.qualified_name, f.file_path, f.line_start, f.line_end ORDER BY f.id")


def git_lines(clone: Path, path: str, start: int, end: int) -> list[str]:
    """The commits `git log -L` lists for lines START..END of PATH at HEAD, newest first."""
    out = subprocess.run(["git", "-C", str(clone), "log", "-L", f"{start},{end}:{path}", "--format=%H", "-s", "HEAD"],
                         capture_output=True, text=True, check=True).stdout
    return [s for s in out.split() if len(s) == 40]


def merges(clone: Path) -> set[str]:
    out = subprocess.run(["git", "-C", str(clone), "rev-list", "--merges", "HEAD"], capture_output=True, text=True,
                         check=True).stdout
    return set(out.split())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("home")
    ap.add_argument("clone")
    ap.add_argument("--repo", default=None, help="the repository's key in HOME (default: the clone folder's name)")
    ap.add_argument("--sample", type=int, default=80)
    ap.add_argument("--seed", type=int, default=1, help="salts which functions are drawn")
    ap.add_argument("--show", type=int, default=10, help="print this many disagreeing functions")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    clone = Path(args.clone).resolve()
    key = args.repo or clone.name
    service = MemoryService(Home(Path(args.home).resolve()))
    keys = ["id", "qname", "path", "start", "end"]
    # A typing overload's stubs (`f(int)`, `f@L12` in older lakes) share the function's history, which its plain id holds.
    functions = [f for f in service.reads.rows(_PRESENT, {"repo": key}, keys) if plain_id(f["id"]) == f["id"]]
    if not functions:
        sys.exit(f"no function of repository {key!r} in {args.home}: pass --repo")
    # The sample is the functions whose ids hash lowest (salted by --seed): two homes of one repository
    # (code before and after a change) draw the same functions wherever their ids agree.
    functions.sort(key=lambda f: hashlib.sha1(f"{args.seed}:{f['id']}".encode()).digest())
    at_head = set(subprocess.run(["git", "-C", str(clone), "ls-tree", "-r", "--name-only", "HEAD"], capture_output=True,
                                 text=True, check=True).stdout.splitlines())
    ghosts = [f for f in functions if f["path"] not in at_head]  # counted present, though their file left
    picked = [f for f in functions if f["path"] in at_head][: args.sample]
    merge_shas = merges(clone)

    both = ours_only = git_only = merge_rows = other_path = renamed_only = exact = 0
    ours_s, git_s, shown = [], [], []
    for f in picked:
        t = time.perf_counter()
        answer = service.history(f["id"], key)
        ours_s.append(time.perf_counter() - t)
        t = time.perf_counter()
        theirs = set(git_lines(clone, f["path"], f["start"], f["end"]))
        git_s.append(time.perf_counter() - t)
        paths = {f["id"]: f["path"], **{o["id"]: o["file_path"] for o in answer["renamed_from"]}}
        ours = set()
        for c in answer["commits"]:
            if c["sha"] in merge_shas:
                merge_rows += 1
            elif paths.get(c["entity_id"], f["path"]) != f["path"] and c["sha"] not in theirs:
                other_path += 1
            elif c["change_kind"] == "renamed" and not (c["lines_added"] or c["lines_deleted"]) \
                    and c["sha"] not in theirs:
                renamed_only += 1
            else:
                ours.add(c["sha"])
        theirs -= merge_shas
        both += len(ours & theirs)
        ours_only += len(ours - theirs)
        git_only += len(theirs - ours)
        exact += ours == theirs
        if ours != theirs and len(shown) < args.show:
            shown.append({"function": f["id"], "lines": [f["start"], f["end"]], "ours": len(ours), "git": len(theirs),
                          "ours_only": sorted(ours - theirs)[:5], "git_only": sorted(theirs - ours)[:5]})
    service.close()
    result = {
        "repo": key, "functions": len(picked), "of": len(functions) - len(ghosts),
        "present_though_their_file_left": len(ghosts),
        "pairs_both": both, "pairs_ours_only": ours_only, "pairs_git_only": git_only,
        "precision": round(both / max(both + ours_only, 1), 3), "recall": round(both / max(both + git_only, 1), 3),
        "exact_share": round(exact / len(picked), 3),
        "merges_listed_by_ours": merge_rows, "former_names_at_other_paths": other_path,
        "renames_without_changed_lines": renamed_only,
        "ours_ms_median": round(1000 * statistics.median(ours_s), 1),
        "git_ms_median": round(1000 * statistics.median(git_s), 1),
    }
    if args.json:
        print(json.dumps({**result, "disagreements": shown}))
        return
    for k, v in result.items():
        print(f"{k:32} {v}")
    for s in shown:
        print(json.dumps(s))


if __name__ == "__main__":
    main()
