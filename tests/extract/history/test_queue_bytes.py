"""The blobs waiting for the parser processes are bounded by `queue_bytes`, not by the chunk sizes."""

from ltm.extract.gitrepo import GitRepo
from ltm.extract.history import mine as mine_module
from ltm.extract.history.mine import mine_history
from ltm.extract.history.spans import SpanCache
from tests.builder import RepoBuilder

FILES = ("app/a.py", "app/b.py", "app/c.py")


def _source(version: int, n: int = 40) -> str:
    return "".join(f"def f{i}(x):\n    return x + {i if i % 12 != version % 12 else version}\n\n\n" for i in range(n))


def _repo(tmp_path) -> RepoBuilder:
    b = RepoBuilder(tmp_path / "big")
    for version in range(12):  # every commit changes three files: several chains to parse per chunk
        for path in FILES:
            b.write(path, _source(version))
        b.commit(f"Change {version}")
    return b


def _mine(b: RepoBuilder, monkeypatch, queue_bytes: int, chunk_bytes: int | None = None) -> tuple[object, list]:
    """The rows, and per chunk: its commits, the blob bytes still queued when it was read, the bytes it read."""
    chunks: list[tuple[int, int, int]] = []
    submit = mine_module._Miner.submit

    def recording(self, chunk):
        queued = sum(self.reader._procs.loads()) if self.reader._procs else 0
        before = self.reader.bytes_parsed
        out = submit(self, chunk)
        if chunk:  # the last flush may hand over an empty chunk
            chunks.append((len(chunk), queued, self.reader.bytes_parsed - before))
        return out

    monkeypatch.setattr(mine_module._Miner, "submit", recording)
    rows = mine_history(GitRepo(b.path), "q", "HEAD", cache=SpanCache(None), workers=2, chunk_commits=4,
                        queue_bytes=queue_bytes, chunk_bytes=chunk_bytes)
    monkeypatch.setattr(mine_module._Miner, "submit", submit)
    return rows, chunks


def test_a_small_queue_waits_for_the_parsers_with_the_same_chunks_and_rows(tmp_path, monkeypatch):
    b = _repo(tmp_path)
    wide, wide_chunks = _mine(b, monkeypatch, queue_bytes=1 << 30)
    small, small_chunks = _mine(b, monkeypatch, queue_bytes=1)
    assert [n for n, _, _ in wide_chunks] == [n for n, _, _ in small_chunks] == [4, 4, 4]
    # A chunk is read only once no more than the previous chunk's blobs wait for the parsers.
    for (_, _, read_before), (_, queued, _) in zip(small_chunks, small_chunks[1:]):
        assert queued <= read_before
    for name in ("commits", "parents", "file_changes", "modifies", "renamed_from"):
        assert getattr(small, name) == getattr(wide, name), name
    assert small.seen == wide.seen


def test_chunk_bytes_cuts_the_chunks_after_one_read_more_with_the_same_rows(tmp_path, monkeypatch):
    b = _repo(tmp_path)
    wide, _ = _mine(b, monkeypatch, queue_bytes=1 << 30)
    cut, chunks = _mine(b, monkeypatch, queue_bytes=1 << 30, chunk_bytes=1)
    # After the first chunk read more than one byte, every chunk is cut to one commit.
    assert [n for n, _, _ in chunks] == [4] + [1] * 8
    for name in ("commits", "parents", "file_changes", "modifies", "renamed_from"):
        assert getattr(cut, name) == getattr(wide, name), name
