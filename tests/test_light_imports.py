"""A cold `ltm query` imports LanceDB without its REST catalog client, and LanceDB still works."""

import subprocess
import sys


def test_lancedb_works_without_loading_the_rest_client_until_asked(tmp_path):
    code = f"""
import sys
import numpy as np
import ltm.vectors
from ltm.light_imports import REST_CLIENT
loaded_early = any(m.startswith(REST_CLIENT + ".api") for m in sys.modules)
db = ltm.vectors.lancedb.connect({str(tmp_path / "db")!r})
t = db.create_table("t", data=[{{"id": i, "vector": np.eye(4, dtype=np.float32)[i % 4].tolist()}} for i in range(8)])
near = t.search(np.eye(4, dtype=np.float32)[1]).limit(2).to_list()
import lance_namespace_urllib3_client as client
print(loaded_early, [r["id"] for r in near], hasattr(client, "ApiClient"), hasattr(client.models, "CreateTableRequest"))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out[0] == "False"  # none of the ten API modules was imported by `import ltm.vectors`
    assert sorted(int(x.strip("[],")) for x in out[1:3]) == [1, 5]
    assert out[3:] == ["True", "True"]  # the first read of the package runs its real __init__


def test_lancedb_import_leaves_the_overrides_checks_of_other_code_in_place():
    code = """
import overrides
import ltm.vectors
import lancedb.db
marked = lancedb.db.LanceDBConnection.open_table.__override__
try:
    class Base:
        pass

    class Child(Base):
        @overrides.override
        def not_in_base(self):
            pass
    print(marked, "unchecked")
except TypeError:
    print(marked, "checked")
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["True", "checked"]  # LanceDB's methods are marked; a wrong @override elsewhere still fails


def test_a_query_reader_does_not_import_what_building_needs():
    code = """
import sys
import ltm.query
import ltm.graph.read
print(sorted(m for m in ("polars", "dagster", "ltm.graph.amend", "ltm.graph.build") if m in sys.modules))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "[]"
