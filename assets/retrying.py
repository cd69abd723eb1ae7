"""Step retries where the network is, and only for what a retry can fix.

`repository` (clone, fetch) and `embeddings` (an OpenAI-compatible server) carry a Dagster
`RetryPolicy` with exponential backoff and jitter, shown on the asset in the UI. Dagster retries a
step whatever it raised, so the step body runs inside `retry_only_if`: an `LtmError` that no retry
can fix (a missing path, a refused key, another model dimension) is re-raised as
`Failure(allow_retries=False)` with the original as its cause, and the run fails at once with
that one line. The wait before retry n is `delay * (2**n - 1)`, +/- up to `delay` of jitter (so
that many partitions failing together do not come back together).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from dagster import Backoff, Failure, Jitter, RetryPolicy

from ltm.errors import BatchFailedError, LtmError, RepositoryError

REPOSITORY_RETRY = RetryPolicy(max_retries=3, delay=5, backoff=Backoff.EXPONENTIAL, jitter=Jitter.PLUS_MINUS)
"""A clone or fetch that failed: tried again after about 5, 15 and 35 seconds."""

EMBEDDINGS_RETRY = RetryPolicy(max_retries=2, delay=5, backoff=Backoff.EXPONENTIAL, jitter=Jitter.PLUS_MINUS)
"""A batch the embedder gave up on after its own retries (429, 5xx, timeouts): the step again after
about 5 and 15 seconds; vectors already made are cached, so nothing is paid twice."""


def network_repository_error(e: LtmError, remote: bool) -> bool:
    """Whether a retry can fix `e` from the repository step: git failing to reach a remote."""
    return remote and isinstance(e, RepositoryError)


def retryable_embedding_error(e: LtmError) -> bool:
    """Whether a retry can fix `e` from the embeddings step: a batch failed on 429, 5xx or a timeout."""
    return isinstance(e, BatchFailedError) and e.retryable


@contextmanager
def retry_only_if(retryable: Callable[[LtmError], bool]) -> Iterator[None]:
    """Let an `LtmError` that `retryable` accepts through (the step's RetryPolicy retries it); turn any
    other into a Failure that Dagster does not retry. Errors that are not LtmError pass unchanged."""
    try:
        yield
    except LtmError as e:
        if retryable(e):
            raise
        raise Failure(description=str(e), allow_retries=False) from e
