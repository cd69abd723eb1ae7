"""The code location of the asset-backfill test: the project's definitions with every step in the
run's own process, so a run the test's in-memory launcher starts reads the test's $LTM_HOME (the
default executor forks from a server started once per process, with the environment of then)."""

from dagster import in_process_executor

from pipelines.definitions import build_definitions

defs = build_definitions(executor=in_process_executor)
