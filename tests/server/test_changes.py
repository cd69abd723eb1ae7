"""Reading a unified diff into the old-side lines it changes (what `detect_changes` matches)."""

import pytest

from ltm.errors import QueryError
from server.changes import parse_diff

DIFF = """diff --git a/pkg/core.py b/pkg/core.py
--- a/pkg/core.py
+++ b/pkg/core.py
@@ -2,5 +2,5 @@ def helper(x):
     if x is None:
-        return 0
+        return -1
     return x + 1
 
 
@@ -20,0 +21,2 @@ def tail():
+    one()
+    two()
--- /dev/null
+++ b/pkg/new.py
@@ -0,0 +1 @@
+x = 1
--- a/pkg/odd.py
+++ b/pkg/odd.py
@@ -5,2 +5 @@
--- a line that looks like a header
-++ and another
+replaced
\\ No newline at end of file
"""


def test_a_diff_reads_as_the_old_lines_it_changes_context_aside():
    core, new, odd = parse_diff(DIFF)
    assert (core.old_path, core.new_path, core.ranges, core.added, core.deleted) == (
        "pkg/core.py", "pkg/core.py", [(3, 3), (20, 20)], 3, 1)
    assert (new.old_path, new.new_path, new.added) == (None, "pkg/new.py", 1)
    assert (odd.ranges, odd.added, odd.deleted) == ([(5, 6)], 1, 2)


def test_what_is_not_a_diff_says_so():
    with pytest.raises(QueryError, match="no file in the diff"):
        parse_diff("hello")
    with pytest.raises(QueryError, match="hunk header"):
        parse_diff("--- a/x\n+++ b/x\n@@ nonsense @@\n")
    assert parse_diff("") == []
