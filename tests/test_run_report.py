"""What a run shows in the UI: the most-changed functions of the run and a readable reconciliation."""

from ltm.home import Home
from ltm.repos import register_local
from pipelines.run import ingest_partitions
from tests.builder import RepoBuilder

V1 = "def alpha():\n    return 1\n\n\ndef beta():\n    return 1\n\n\ndef gamma():\n    return 1\n"


def _history(path) -> RepoBuilder:
    b = RepoBuilder(path)
    b.write("m.py", V1).commit("Add alpha, beta, gamma")
    b.write("m.py", V1.replace("return 1\n\n\ndef beta", "return 2\n\n\ndef beta")).commit("alpha returns 2")
    src = (b.path / "m.py").read_text()
    b.write("m.py", src.replace("return 2", "return 3").replace("return 1\n\n\ndef gamma", "return 9\n\n\ndef gamma"))
    b.commit("alpha returns 3, beta 9")
    return b


def test_commits_shows_the_functions_the_run_changed_most(tmp_path):
    repo = _history(tmp_path / "hist")
    home = Home.resolve(tmp_path / "home").create()
    key = register_local(home, repo.path)
    [first] = ingest_partitions(home, [key], "hash")
    table = first.metadata["commits"]["most_changed_functions"]
    rows = [line.split("|")[1:-1] for line in table.splitlines()[2:]]
    assert [(r[0].strip(), r[1].strip(), r[2].strip()) for r in rows] == [
        ("alpha", "m.py", "3"), ("beta", "m.py", "2"), ("gamma", "m.py", "1"),
    ]
    src = (repo.path / "m.py").read_text()
    repo.write("m.py", src.replace("return 1", "return 7")).commit("gamma returns 7")
    [second] = ingest_partitions(home, [key], "hash")  # incremental: only the new commit counts
    rows = [line.split("|")[1:-1] for line in second.metadata["commits"]["most_changed_functions"].splitlines()[2:]]
    assert [(r[0].strip(), r[2].strip()) for r in rows] == [("gamma", "1")]
    [third] = ingest_partitions(home, [key], "hash")  # nothing new
    assert "No function was changed" in third.metadata["commits"]["most_changed_functions"]


def test_reconciliation_report_reads_as_markdown(repo, home_dir):
    home = Home.resolve(home_dir).create()
    [summary] = ingest_partitions(home, [register_local(home, repo.path)], "hash")
    page = summary.metadata["reconciliation"]["report_markdown"]
    assert page.startswith("**OK**")
    # 2 commits, 6 functions, 2 classes, 3 modules and the README heading as a Doc memory
    assert "| vector rows | 14 |" in page and "| coverage | 100.00% |" in page
    assert "| Function | 6 |" in page and "| nodes_without_vector_row | 0 |" in page
