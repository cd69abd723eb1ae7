"""Where a cold `ltm ingest` spends its time, phase by phase, in one process as the CLI runs it.

    PYTHONPATH=$PWD .venv/bin/python bench/cold_profile.py PATH [--runs 3] [--embedder hash]

Each run ingests PATH into a new home the way `ltm ingest` does (`pipelines.run`'s calls, in this
process) and splits its wall seconds into: the imports the CLI makes before a run (cli, then
`pipelines.run` with Dagster, the stores and the grammars: only the first run of the process pays
them), opening the home's new Dagster instance, then each Dagster run of the batch (`extract`,
`stores`): per step, the asset's own `seconds` (its metadata, where it reports them) and the
step's wall time between its STEP_START and STEP_SUCCESS events, and what the run spent outside its
steps (creating the run, starting it, the gaps between steps). `overhead_s` sums the Dagster time
that is not the assets' own: run creation and start, between steps, and each step's wall minus its
asset's seconds. CPU seconds (this process and the processes it waited for) are given per phase.
Prints one JSON object per run. `PYTHONPATH` picks the checkout measured.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import tempfile
import time
from pathlib import Path


def _cpu() -> float:
    s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime


class Clock:
    def __init__(self) -> None:
        self.out: dict[str, dict[str, float]] = {}
        self._wall, self._cpu = time.perf_counter(), _cpu()

    def lap(self, name: str) -> None:
        wall, cpu = time.perf_counter(), _cpu()
        self.out[name] = {"wall_s": round(wall - self._wall, 3), "cpu_s": round(cpu - self._cpu, 3)}
        self._wall, self._cpu = wall, cpu


def _steps(instance, run_id: str, metadata: dict) -> dict:
    """Per step: wall between STEP_START and STEP_SUCCESS, and the asset's own seconds."""
    record = instance.get_run_record_by_id(run_id)
    created = record.create_timestamp.timestamp()
    starts, ends, last = {}, {}, created
    for e in instance.all_logs(run_id):
        ev = e.dagster_event
        if ev is None:
            continue
        if ev.event_type_value == "STEP_START":
            starts[e.step_key] = e.timestamp
        elif ev.event_type_value == "STEP_SUCCESS":
            ends[e.step_key] = e.timestamp
        last = max(last, e.timestamp)
    steps = {}
    for key, t in sorted(starts.items(), key=lambda kv: kv[1]):
        own = (metadata.get(key) or {}).get("seconds")
        steps[key] = {"step_wall_s": round(ends.get(key, t) - t, 3), "asset_s": own}
    in_steps = sum(s["step_wall_s"] for s in steps.values())
    own = sum(s["asset_s"] or s["step_wall_s"] for s in steps.values())  # no seconds: the step counts as its own
    return {"run_wall_s": round(last - created, 3), "outside_steps_s": round(last - created - in_steps, 3),
            "step_overhead_s": round(in_steps - own, 3), "steps": steps}


def one_run(repo: Path, embedder: str) -> dict:
    clock = Clock()
    import cli.app  # noqa: F401 - what `ltm` imports before it knows the command
    from ltm.home import Home
    from ltm.repos import add_repository
    clock.lap("import_cli")
    import pipelines.run as run
    clock.lap("import_pipelines")
    with tempfile.TemporaryDirectory(prefix="cold-") as tmp:
        h = Home.resolve(Path(tmp) / "home").create()
        h.update_settings(embedder=embedder, graph_engine=h.graph_engine())
        key = add_repository(h, str(repo))
        clock.lap("home")
        with run.quick_commits(h.dagster):  # as `ingest_partitions` runs them
            instance = run.home_instance(h)
            run.release_dead_runs(instance)
            defs = run.build_definitions(home=str(h.root), embedder=embedder)
            extract, stores = defs.resolve_job_def(run.EXTRACT_JOB), defs.resolve_job_def(run.STORES_JOB)
            instance.add_dynamic_partitions("repos", [key])
            clock.lap("instance")
            ex_id, ex_meta = run._execute(extract, instance, key, None, run_config=run._QUIET_RUN, partition_key=key)
            clock.lap("extract_run")
            st_id, st_meta = run._execute(stores, instance, key, None, run_config=run._QUIET_RUN)
            clock.lap("stores_run")
            runs = {"extract": _steps(instance, ex_id, ex_meta), "stores": _steps(instance, st_id, st_meta)}
    total = {k: round(sum(v[k] for v in clock.out.values()), 2) for k in ("wall_s", "cpu_s")}
    overhead = sum(r["outside_steps_s"] + r["step_overhead_s"] for r in runs.values())
    return {"repo": repo.name, "total": total, "phases": clock.out, "dagster_overhead_s": round(overhead, 2),
            "runs": runs, "loadavg": [round(x, 2) for x in os.getloadavg()]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("repo", type=Path)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--embedder", default="hash")
    args = ap.parse_args()
    for _ in range(args.runs):
        print(json.dumps(one_run(args.repo.resolve(), args.embedder)), flush=True)


if __name__ == "__main__":
    main()
