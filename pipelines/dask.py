"""Dagster's Dask executor (`dagster-dask`), made to work with today's Dagster runs.

dagster-dask 0.29 hands the whole `DagsterRun` to `dask.distributed.Client.submit`. Dask walks
tuple arguments looking for futures, and a run of this pipeline carries `@record` values that
refuse iteration (the op-concurrency record of the `kuzu` / `lancedb` pools, the partition
subset), so every run fails at submission. This executor is the upstream one (same name, same
config, one Dask task per step, dependencies as Dask futures) except that a task receives the
run *id* and the serialized known state, and the worker reads the run from the instance.

Pools are not enforced by Dask; the graph build and the vector writes stay single-writer
through the home's file locks, which every step takes.

A worker process may start with SIGTERM ignored: Dagster's interrupt handling gives SIGTERM
whatever SIGINT has, a process started in the background of a non-interactive shell ignores
SIGINT, and a worker that such a process spawns (a `LocalCluster`) inherits the ignored SIGTERM.
An ignored signal survives `exec`, so the `tail -F` processes that mirror a step's compute logs
ignored the SIGTERM Dagster stops them with, and every step waited out Dagster's two 30 s
cleanup timeouts. `SigtermForStepProcesses` (a worker plugin the executor registers) catches
SIGTERM instead, and a caught signal is reset to the default in a child at `exec`.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

try:
    import dask.distributed
except ImportError as e:  # an optional extra: say which
    raise ImportError("pipelines.dask needs the `dask` extra: pip install 'hybrid-ltm[dask]'") from e
from dagster import DagsterInstance, ExecutorDefinition, multiple_process_executor_requirements
from dagster import _check as check
from dagster._core.definitions.reconstruct import ReconstructableJob
from dagster._core.errors import raise_execution_interrupts
from dagster._core.events import DagsterEvent
from dagster._core.execution.api import create_execution_plan, execute_plan
from dagster._core.execution.context.system import PlanOrchestrationContext
from dagster._core.execution.plan.plan import ExecutionPlan
from dagster._core.instance.ref import InstanceRef
from dagster._serdes import deserialize_value, serialize_value
from dagster._utils import iterate_with_context
from dagster_dask import dask_executor as upstream_dask_executor
from dagster_dask.executor import DaskExecutor, get_dask_resource_requirements


def run_steps_on_worker(
    dependencies: Any, recon_job: ReconstructableJob, run_id: str, run_config: Mapping[str, object] | None,
    step_keys: Sequence[str], instance_ref: InstanceRef, known_state: str | None,
) -> list[DagsterEvent]:
    """Execute `step_keys` of run `run_id` on a Dask worker (`dependencies` only orders the tasks)."""
    with DagsterInstance.from_ref(instance_ref) as instance:
        run = instance.get_run_by_id(run_id)
        check.invariant(run is not None, f"run {run_id} is not in the instance the worker opened")
        job = recon_job.get_subset(op_selection=run.resolved_op_selection)
        plan = create_execution_plan(
            job, run_config=run_config, step_keys_to_execute=list(step_keys),
            known_state=deserialize_value(known_state) if known_state else None,
        )
        return list(execute_plan(plan, job, instance, run, run_config=run_config))


def _ignore_sigterm(signum: int, frame: object) -> None:
    """SIGTERM as the worker had it (ignored), though caught, so children start with the default."""


class SigtermForStepProcesses(dask.distributed.WorkerPlugin):
    """Worker plugin: a worker that ignores SIGTERM catches it instead, doing nothing with it.

    The worker behaves as before, and the processes a step starts (Dagster's compute-log `tail`)
    stop on SIGTERM again. Signal handlers can only be set from a process's main thread, where
    a worker process runs its plugins; a worker running as a thread of another process is left
    as it is.
    """

    idempotent = True
    name = "hybrid-ltm-sigterm-for-step-processes"

    def setup(self, worker: Any) -> None:
        if signal.getsignal(signal.SIGTERM) == signal.SIG_IGN and threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, _ignore_sigterm)


class RunIdDaskExecutor(DaskExecutor):
    """`DaskExecutor` whose tasks carry the run id instead of the run record."""

    def execute(self, plan_context: PlanOrchestrationContext, execution_plan: ExecutionPlan) -> Iterator[DagsterEvent]:
        check.invariant(plan_context.instance.is_persistent, "Dask execution requires a persistent DagsterInstance")
        cluster: Any = self.cluster_configuration["address"] if self.cluster_type == "existing" else None
        if cluster is None:
            # every other cluster kind: let the upstream executor build it
            yield from super().execute(plan_context, execution_plan)
            return
        known = execution_plan.known_state
        known_state = serialize_value(known) if known is not None else None
        with dask.distributed.Client(cluster) as client:
            client.register_plugin(SigtermForStepProcesses())
            futures: dict[str, Any] = {}
            for level in execution_plan.get_steps_to_execute_by_level():
                for step in level:
                    deps = [futures[k] for inp in step.step_inputs for k in inp.dependency_keys]
                    futures[step.key] = client.submit(
                        run_steps_on_worker, deps, plan_context.reconstructable_job, plan_context.run_id,
                        plan_context.run_config, [step.key], plan_context.instance.get_ref(), known_state,
                        key=f"{plan_context.job_name}.{step.key}.{plan_context.run_id}",
                        resources=get_dask_resource_requirements(step.tags), pure=False,
                    )
            done = dask.distributed.as_completed(list(futures.values()), with_results=True)
            for _, events in iterate_with_context(raise_execution_interrupts, done):
                for event in events:
                    yield check.inst(event, DagsterEvent)


def _create(init_context) -> RunIdDaskExecutor:
    ((cluster_type, cluster_configuration),) = init_context.executor_config["cluster"].items()
    return RunIdDaskExecutor(cluster_type, cluster_configuration)


dask_executor = ExecutorDefinition(
    name="dask",
    config_schema=upstream_dask_executor.config_schema,
    requirements=multiple_process_executor_requirements(),
    executor_creation_fn=_create,
    description="dagster-dask's executor (one Dask task per step) for an existing Dask scheduler.",
)
