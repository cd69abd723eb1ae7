"""The errors a user can act on. The CLI prints their message as one line and exits with the code of
their `kind`: `input` (a bad argument, file or repository), `busy` (another writer holds the home),
`environment` (the home, the disk, a credential, a service or a damaged store)."""

from __future__ import annotations

from typing import Literal

ErrorKind = Literal["input", "busy", "environment"]


class LtmError(Exception):
    """Base of every error that names a bad input or state and how to fix it."""

    kind: ErrorKind = "input"


class HomeError(LtmError):
    """The home directory is missing, unwritable or in use."""

    kind: ErrorKind = "environment"


class RepositoryError(LtmError):
    """A path or URL is not a usable git repository."""


class EmbeddingError(LtmError):
    """An embedding provider is misconfigured or failed."""

    kind: ErrorKind = "environment"


class DimensionMismatchError(EmbeddingError):
    """The vector table was written with another model dimension."""

    kind: ErrorKind = "input"


class LakeError(LtmError):
    """A lake file cannot be read (truncated or overwritten); the next ingest of its repository rebuilds it."""

    kind: ErrorKind = "environment"


class GraphError(LtmError):
    """A graph build or read failed."""

    kind: ErrorKind = "environment"


class VectorStoreError(LtmError):
    """The LanceDB store is damaged (a table whose files were lost); the next ingest rebuilds it."""

    kind: ErrorKind = "environment"


class LockedError(LtmError):
    """Another writer holds the lock on this home."""

    kind: ErrorKind = "busy"


class NotIngestedError(LtmError):
    """A read command found nothing ingested yet."""

    kind: ErrorKind = "environment"


class IssueExportError(LtmError):
    """An issue export file is missing or unreadable."""


class BatchFailedError(EmbeddingError):
    """One embedding request failed for good (after its retries, or at once when not retryable)."""

    def __init__(self, message: str, tries: int, retryable: bool):
        super().__init__(message)
        self.tries = tries
        self.retryable = retryable


class ModelSwitchError(EmbeddingError):
    """A new model's vector table does not match the graph; readers were not switched."""


class QueryError(LtmError):
    """A query, its strategy or its filters are invalid."""
