"""What grows with the number of repositories in one home: the Dagster control plane and the lake.

    .venv/bin/python bench/scale.py [--repos 100,1000] [--json]

For each N, in a new home: N repositories registered one by one (`Home.register`, as `ltm repo add`
does) and added as `repos` dynamic partitions (`pipelines.run.add_partitions`),
one extraction recorded per repository in the home's own Dagster instance (sqlite) (a
materialization of `commits` per repository; a real run records five), then the control plane's reads
timed: the nightly schedule's evaluation (one run request per repository), the
`stores_after_extraction` sensor's check (`pipelines.batch.stores_request`), the materialized
partitions of one asset (what the UI's partition bar reads). Then a lake of N repositories (a small
partition per repository for each of five tables) and what every home-wide stage pays for it:
listing the files, the graph build's input digest (`ltm.graph.inputs.digest`: it hashes every file
of the tables a build copies) and reading one table whole (as COPY does). Per-node costs (graph
build, reader index, queries) are measured by `bench/query.py` and `bench/ingest.py`; this script
measures only what grows with the number of repositories. Prints one row per N.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dagster import AssetKey, AssetMaterialization, build_schedule_context  # noqa: E402

from ltm.graph.inputs import digest  # noqa: E402
from ltm.home import Home  # noqa: E402
from ltm.lake import Lake  # noqa: E402
from pipelines.batch import STORES_JOB, stores_request  # noqa: E402
from pipelines.definitions import build_definitions  # noqa: E402
from pipelines.run import add_partitions, home_instance  # noqa: E402

TABLES = {  # a few rows per repository, in each table's lake schema
    "Function": lambda k, i: {"id": f"fn:{k}:m{i}.py:f{i}", "repo": k, "name": f"f{i}", "file_path": f"m{i}.py"},
    "File": lambda k, i: {"id": f"file:{k}:m{i}.py", "repo": k, "path": f"m{i}.py"},
    "Commit": lambda k, i: {"id": f"commit:{k}:{i:040d}", "repo": k, "sha": f"{i:040d}", "message": "m"},
    "CALLS": lambda k, i: {"src": f"fn:{k}:m{i}.py:f{i}", "dst": f"fn:{k}:m{i}.py:f{i}", "repo": k,
                           "src_label": "Function", "dst_label": "Function", "confidence": 1.0},
    "MODIFIES": lambda k, i: {"src": f"commit:{k}:{i:040d}", "dst": f"fn:{k}:m{i}.py:f{i}", "repo": k,
                              "src_label": "Commit", "dst_label": "Function"},
}


def _timed(fn) -> tuple[float, object]:
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def control_plane(n: int, work: Path) -> dict[str, float]:
    """Seconds of the control plane's reads with `n` repositories registered and extracted once."""
    home = Home.resolve(str(work / f"home-{n}")).create()
    keys = [f"org__repo{i:04d}" for i in range(n)]
    out: dict[str, float] = {}
    def register() -> None:  # what `ltm repo add` does per repository: the registry, then the partition
        for key in keys:
            home.register(key, work / key)
    out["registry_s"], _ = _timed(register)
    out["partitions_s"], _ = _timed(lambda: add_partitions(home, keys))
    instance = home_instance(home)
    try:
        def record() -> None:  # one extraction asset per repository (a run records five): the reads below
            for key in keys:  # look at the latest record per asset, so one is enough to time them
                instance.report_runless_asset_event(AssetMaterialization(asset_key="commits", partition=key))
        out["record_one_asset_s"], _ = _timed(record)
        defs = build_definitions(str(home.root))
        schedule = defs.resolve_schedule_def("nightly_ingest")
        with build_schedule_context(instance=instance, scheduled_execution_time=datetime.now(timezone.utc),
                                    repository_def=defs.get_repository_def()) as ctx:
            out["nightly_schedule_s"], requests = _timed(lambda: list(schedule.evaluate_tick(ctx).run_requests or []))
        out["nightly_requests"] = len(requests)
        jobs = {STORES_JOB, "extract", "ingest"}
        out["stores_sensor_s"], _ = _timed(lambda: stores_request(instance, home, jobs))
        out["materialized_partitions_s"], got = _timed(lambda: instance.get_materialized_partitions(AssetKey("commits")))
        out["materialized_partitions"] = len(got)
    finally:
        instance.dispose()
    return out


def lake_reads(n: int, work: Path) -> dict[str, float]:
    """Seconds of what a home-wide stage pays per repository partition of the lake."""
    lake = Lake(work / f"lake-{n}", redact=False)
    for r in range(n):
        key = f"org__repo{r:04d}"
        with lake.write(key) as w:
            for table, row in TABLES.items():
                w.write(table, [row(key, i) for i in range(3)])
    out: dict[str, float] = {}
    out["list_files_s"], files = _timed(lambda: [f for t in TABLES for f in lake.files(t)])
    out["files"] = len(files)
    out["graph_input_digest_s"], _ = _timed(lambda: digest(lake))
    out["read_table_s"], table = _timed(lambda: lake.read("Function"))
    out["rows"] = table.num_rows
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repos", default="100,1000", help="Comma-separated numbers of repositories.")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="ltm-scale-") as tmp:
        os.environ.pop("LTM_HOME", None)
        for n in (int(x) for x in args.repos.split(",")):
            load = [round(x, 2) for x in os.getloadavg()]
            rows.append({"repos": n, "load_start": load, **control_plane(n, Path(tmp)), **lake_reads(n, Path(tmp))})
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    for r in rows:
        print(" ".join(f"{k}={round(v, 3) if isinstance(v, float) else v}" for k, v in r.items()))


if __name__ == "__main__":
    main()
