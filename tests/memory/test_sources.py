"""Every memory source, with bad input: the bad line is reported by number, the rest loads."""

import json
from datetime import datetime, timezone

import pytest

from ltm.errors import LtmError
from ltm.graph.engine import default_engine, open_database, query
from ltm.home import Home
from ltm.lake import Lake
from ltm.memory.docs import chunk_document, doc_memory_rows
from ltm.memory.records import ImportReport
from ltm.memory.sources import read_amplihack, read_jsonl, read_tracemem
from ltm.memory.store import import_memories, read_memories


def write_lines(path, lines):
    path.write_text("\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    return path


def test_jsonl_in_the_ltm_format_keeps_every_field_and_reports_bad_lines(tmp_path):
    f = write_lines(tmp_path / "m.jsonl", [
        {"id": "a1", "content": "auth.py needs a lock", "project_id": "svc", "memory_type": "prospective",
         "metadata": {"category": "guideline", "file_path": "app/auth.py", "function_name": "validate_token",
                      "tags": ["auth", "todo"], "importance": 0.9, "created_at": "2024-05-01T12:00:00Z",
                      "last_accessed": "2024-05-02T08:30:00+02:00", "line_start": 10, "line_end": 20,
                      "graph_links": [{"type": "RELATES_TO_FILE", "target": "app/auth.py", "properties": {}}]}},
        "{broken json",
        {"id": "a2"},
        "",
        ["not", "an", "object"],
        {"id": "a3", "content": "ok", "metadata": {"importance": "high"}},
        {"id": "a4", "content": "kept", "memory_type": "dream"},
        {"id": "a5", "content": "plain note"},
    ])
    report = ImportReport("t")
    rows = list(read_jsonl(f, report))
    assert [r["id"] for r in rows] == ["mem:jsonl:a1", "mem:jsonl:a5"]
    assert [n for n, _ in report.skipped] == [2, 3, 5, 6, 7]
    assert "content" in report.skipped[1][1] and "importance" in report.skipped[3][1] and "dream" in report.skipped[4][1]
    a1 = rows[0]
    assert (a1["memory_type"], a1["category"], a1["project_id"], a1["file_path"]) == ("prospective", "guideline", "svc", "app/auth.py")
    assert a1["tags"] == ["auth", "todo"] and a1["importance"] == 0.9 and (a1["line_start"], a1["line_end"]) == (10, 20)
    assert a1["created_at"] == datetime(2024, 5, 1, 12, tzinfo=timezone.utc)
    assert a1["last_accessed"] == datetime(2024, 5, 2, 6, 30, tzinfo=timezone.utc)
    assert json.loads(a1["graph_links"])[0]["target"] == "app/auth.py"
    assert rows[1]["memory_type"] == "semantic" and rows[1]["category"] == "memory"


def test_import_persists_in_the_lake_and_a_reimport_replaces_instead_of_duplicating(tmp_path):
    home = Home.resolve(tmp_path / "home").create()
    f = write_lines(tmp_path / "m.jsonl", [{"id": "1", "content": "first"}, {"id": "2", "content": "second"}])
    assert import_memories(home, f, "jsonl").loaded == 2
    write_lines(f, [{"id": "2", "content": "second, edited"}, {"id": "3", "content": "third"}])
    import_memories(home, f, "jsonl")
    mem = read_memories(Lake(home.lake)).sort("id")
    assert mem["id"].to_list() == ["mem:jsonl:1", "mem:jsonl:2", "mem:jsonl:3"]
    assert mem["content"].to_list() == ["first", "second, edited", "third"]
    assert set(mem["repo"].to_list()) == {"memories"}


def test_import_of_a_missing_file_or_unknown_format_is_a_clear_error(tmp_path):
    home = Home.resolve(tmp_path / "home").create()
    with pytest.raises(LtmError, match="does not exist"):
        import_memories(home, tmp_path / "nope.jsonl", "jsonl")
    (tmp_path / "x").write_text("{}")
    with pytest.raises(LtmError, match="unknown memory format 'csv'"):
        import_memories(home, tmp_path / "x", "csv")


def test_tracemem_messages_become_episodic_memories_and_tool_uses_link_files(tmp_path):
    f = write_lines(tmp_path / "conv.jsonl", [
        {"id": "u1", "conversation_id": "c9", "role": "user", "content": "why does validate_token fail?",
         "timestamp": "2024-03-01T10:00:00Z"},
        {"type": "assistant", "uuid": "a1", "sessionId": "c9", "timestamp": "2024-03-01T10:00:05Z",
         "message": {"role": "assistant", "content": [
             {"type": "text", "text": "Reading the validator."},
             {"type": "tool_use", "name": "Read", "input": {"file_path": "file:///home/ada/svc/app/auth.py"}},
             {"type": "tool_use", "name": "Edit", "input": {"file_path": "/home/ada/svc/app/util.py", "old": "x"}},
         ]}},
        {"id": "s1", "conversation_id": "c9", "role": "system", "content": "you are helpful"},
        "oops",
        {"id": "u2", "conversation_id": "c9", "role": "user", "content": 42},
    ])
    report = ImportReport("t")
    rows = list(read_tracemem(f, report))
    assert [r["id"] for r in rows] == ["mem:tracemem:c9:u1", "mem:tracemem:c9:a1"]
    assert [n for n, _ in report.skipped] == [3, 4, 5]
    agent = rows[1]
    assert agent["memory_type"] == "episodic" and agent["category"] == "conversation"
    assert agent["file_path"] == "/home/ada/svc/app/auth.py"
    links = json.loads(agent["graph_links"])
    assert [(x["type"], x["target"]) for x in links] == [
        ("RELATES_TO_FILE", "/home/ada/svc/app/auth.py"), ("RELATES_TO_FILE", "/home/ada/svc/app/util.py")]
    assert "Reading the validator." in agent["content"] and "Read /home/ada/svc/app/auth.py" in agent["content"]
    assert rows[0]["created_at"] == datetime(2024, 3, 1, 10, tzinfo=timezone.utc)


def make_amplihack_db(path):
    with open_database(path, read_only=False, engine_name="kuzu") as conn:
        query(conn, "CREATE NODE TABLE SemanticMemory(memory_id STRING, concept STRING, content STRING, "
                    "metadata STRING, created_at TIMESTAMP, agent_id STRING, PRIMARY KEY(memory_id))")
        query(conn, "CREATE NODE TABLE EpisodicMemory(memory_id STRING, content STRING, metadata STRING, "
                    "created_at TIMESTAMP, PRIMARY KEY(memory_id))")
        query(conn, "CREATE NODE TABLE Agent(name STRING, PRIMARY KEY(name))")
        rows = [
            ("SemanticMemory", {"memory_id": "s1", "concept": "locking", "content": "auth.py needs a lock",
                                "metadata": json.dumps({"file_path": "app/auth.py"}), "agent_id": "svc"}),
            ("SemanticMemory", {"memory_id": "s2", "concept": "x", "content": "bad metadata",
                                "metadata": "{not json", "agent_id": "svc"}),
            ("EpisodicMemory", {"memory_id": "e1", "content": "ran the tests, parse_header failed",
                                "metadata": "", }),
        ]
        for label, props in rows:
            keys = ", ".join(f"{k}: ${k}" for k in props)
            query(conn, f"CREATE (m:{label} {{{keys}, created_at: timestamp('2024-01-02 03:04:05')}})", props)


@pytest.mark.skipif(default_engine() != "kuzu", reason="an amplihack database is a Kuzu file; a process on the "
                    "ladybug engine cannot load Kuzu beside it (tests/graph/test_engine.py checks that refusal)")
def test_amplihack_database_is_read_read_only_with_types_from_its_tables(tmp_path):
    db = tmp_path / "amp.kuzu"
    make_amplihack_db(db)
    before = db.stat().st_mtime_ns
    report = ImportReport("t")
    rows = sorted(read_amplihack(db, report), key=lambda r: r["id"])
    assert [(r["id"], r["memory_type"]) for r in rows] == [("mem:amplihack:e1", "episodic"), ("mem:amplihack:s1", "semantic")]
    s1 = rows[1]
    assert (s1["file_path"], s1["project_id"], s1["tags"]) == ("app/auth.py", "svc", ["locking"])
    assert s1["created_at"] == datetime(2024, 1, 2, 3, 4, 5, tzinfo=timezone.utc)
    assert len(report.skipped) == 1 and "SemanticMemory row 2" in report.skipped[0][1]
    assert db.stat().st_mtime_ns == before


def test_amplihack_path_that_is_not_a_database_is_a_clear_error(tmp_path):
    with pytest.raises(LtmError, match="does not exist"):
        list(read_amplihack(tmp_path / "missing.kuzu", ImportReport("t")))
    junk = tmp_path / "junk.kuzu"
    junk.write_bytes(b"this is not kuzu" * 100)
    with pytest.raises(LtmError, match="not a readable amplihack"):
        list(read_amplihack(junk, ImportReport("t")))


MARKDOWN = """Intro before any heading.

# Service

Overview of the service.

## Tokens
Use `Validator.validate_token`.

```python
# this is code, not a heading
```

## Empty

### Deep
text
"""

RST = """Title
=====

Intro text.

Install
-------
pip install it

=======
Usage
=======
Call parse_header.
"""


def test_markdown_is_chunked_by_heading_and_fenced_hashes_are_not_headings():
    chunks = chunk_document(MARKDOWN, "markdown")
    assert [c.title for c in chunks] == [None, "Service", "Tokens", "Empty", "Deep"]
    assert "# this is code" in chunks[2].text
    assert chunks[2].line_start == 7


def test_rest_is_chunked_by_underlined_and_overlined_titles():
    chunks = chunk_document(RST, "rst")
    assert [c.title for c in chunks] == ["Title", "Install", "Usage"]
    assert chunks[2].text.endswith("Call parse_header.")


def test_doc_rows_are_architecture_or_guideline_memories_named_by_path_and_chunk():
    rows = doc_memory_rows("docs/CONTRIBUTING.md", MARKDOWN, "svc", "svc")
    assert rows[1]["id"] == "mem:docs:svc:docs/CONTRIBUTING.md#2"
    assert {r["category"] for r in rows} == {"guideline"}
    assert doc_memory_rows("docs/design.rst", RST, "svc", "svc")[0]["category"] == "architecture"
    assert rows[1]["file_path"] == "docs/CONTRIBUTING.md" and rows[1]["repo"] == "svc"


def test_docs_file_import_chunks_by_heading_and_keeps_its_absolute_path(tmp_path):
    home = Home.resolve(tmp_path / "home").create()
    doc = tmp_path / "proj" / "docs" / "design.md"
    doc.parent.mkdir(parents=True)
    doc.write_text(MARKDOWN, encoding="utf-8")
    assert import_memories(home, doc, "docs").loaded == 5
    mem = read_memories(Lake(home.lake)).sort("id")
    assert set(mem["file_path"].to_list()) == {doc.resolve().as_posix()}
    assert mem["id"][0] == f"mem:docs:file:{doc.resolve().as_posix()}#1"
    (tmp_path / "notes.txt").write_text("plain")
    with pytest.raises(LtmError, match="not Markdown"):
        import_memories(home, tmp_path / "notes.txt", "docs")
