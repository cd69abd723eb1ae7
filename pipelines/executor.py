"""The jobs' default executor: Dagster's multiprocess executor, every step forked from a warm server.

Dagster's multiprocess executor starts each step with `spawn` by default: a fresh interpreter
that imports Dagster, LanceDB, polars, pyarrow, Kuzu and the grammars again (6-20 s on a busy
2-core machine), eleven times per ingest run. A run launched from the web UI, a sensor or a
backfill took minutes for a repository of one file, and a backfill of three partitions ran past
the test suite's timeout in the middle of its second run, which looked like a hang.

With `forkserver` the run worker starts one server process that imports `pipelines.definitions`
once (no database is opened there: importing opens no Kuzu or LanceDB handle), and every step
is a `fork()` of that idle server: a fraction of a second. Each step still opens its own stores,
so nothing is inherited across the fork but imported modules. LanceDB resets its background
event loop in a forked child (its own at-fork hook) and warns that this is experimental because
another thread could be mid-operation at fork time; the server never runs a LanceDB operation,
so that warning is filtered here, for that message only.
"""

from __future__ import annotations

import warnings

from dagster import ExecutorDefinition, multiprocess_executor

warnings.filterwarnings("ignore", message="lancedb fork support is experimental", category=RuntimeWarning)

PRELOAD = ["pipelines.executor", "pipelines.definitions"]

forked_multiprocess_executor: ExecutorDefinition = multiprocess_executor.configured(
    {"start_method": {"forkserver": {"preload_modules": PRELOAD}}}, name="multiprocess",
)
