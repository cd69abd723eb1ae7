"""`ltm` with a stall at one point, so a test can SIGKILL it there: python driver.py FAULT MARKER ARGS...

The library has no fault hooks. This driver wraps one library function in the process it runs,
touches MARKER when execution reaches the point and then waits until it is killed, or until
MARKER.go appears (then it carries on):

- `graph`:     inside a graph build (a full one or an amend of a copy of the current build), after
               the first COPY into the new database
- `vectors`:   inside LanceDB's merge_insert, after half of the repository's rows were streamed in
- `embedding`: after two embedding batches were committed to the cache, before the third
"""

from __future__ import annotations

import sys
import time
from pathlib import Path


def _stall(marker: Path) -> None:
    """Touch MARKER, then wait until MARKER.go appears (or forever, until killed)."""
    marker.write_text("stalled\n")
    go = marker.with_name(marker.name + ".go")
    while not go.exists():
        time.sleep(0.05)


def install(fault: str, marker: Path) -> None:
    if fault == "graph":
        import ltm.graph.copy as copy  # every COPY of a full build and of an amend is issued here

        real, copies = copy.query, []

        def query(conn, cypher, params=None):
            if cypher.startswith("COPY"):
                copies.append(cypher)
                if len(copies) == 2:
                    _stall(marker)
            return real(conn, cypher, params)

        copy.query = query
    elif fault == "vectors":
        import pyarrow as pa
        from lancedb.merge import LanceMergeInsertBuilder

        real_execute = LanceMergeInsertBuilder.execute

        def execute(self, new_data, *args, **kwargs):
            batches = new_data.to_batches(max_chunksize=max(1, new_data.num_rows // 4))

            def stream():
                for i, batch in enumerate(batches):
                    if i == len(batches) // 2:
                        _stall(marker)
                    yield batch

            reader = pa.RecordBatchReader.from_batches(new_data.schema, stream())
            return real_execute(self, reader, *args, **kwargs)

        LanceMergeInsertBuilder.execute = execute
    elif fault == "embedding":
        from ltm.embed.hashing import HashEmbedder

        real_embed, calls = HashEmbedder.embed, []
        HashEmbedder.batch_size = 4

        def embed(self, texts):
            calls.append(len(texts))
            if len(calls) == 3:
                _stall(marker)
            return real_embed(self, texts)

        HashEmbedder.embed = embed
    else:
        raise SystemExit(f"unknown fault {fault!r}")


if __name__ == "__main__":
    fault, marker, *args = sys.argv[1:]
    install(fault, Path(marker))
    from cli import main

    main(args)
