"""The Dagster web UI in a real headless Chromium: our assets, their row counts and columns, and the
finished run are shown.

Chromium is Debian's (`apt-get install chromium chromium-driver`, done by `make test` where it is
missing); Playwright only drives it and never downloads a browser.
"""

import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from click.testing import CliRunner

from cli import main
from cli.ui import asset_graph_path

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path(os.environ.get("LTM_CHROMIUM", "/usr/bin/chromium"))
ASSETS = ["repository", "commits", "code_entities", "embeddings", "graph", "vectors", "reconciliation"]
CHECKS = {  # check -> its description, shown in the detail pane once the check is selected
    "graph_nodes_have_vector_rows": "Every graph node with a vector_id has its row, naming the node back.",
    "vector_rows_have_graph_nodes": "Every vector row's graph_entity_id is a node carrying that vector_id.",
}
# asset -> the sample repository's rows in it (tests/builder.py), and columns of its lake table with their types
ASSET_PAGES = [
    ("commits", 2, {"sha": "string", "author_name": "string", "committed_at": "timestamp[us, tz=UTC]"}),
    ("code_entities", 6, {"qualified_name": "string", "line_start": "int32"}),
]
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for_server(url: str, proc: subprocess.Popen, log: Path, timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"dagster-webserver exited with {proc.returncode}: {log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(url, timeout=5) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        time.sleep(1)
    pytest.fail(f"dagster-webserver did not answer on {url} in {timeout}s: {log.read_text()[-3000:]}")


@pytest.fixture
def chromium() -> Path:
    if not CHROMIUM.exists():
        msg = f"{CHROMIUM} is missing: `apt-get install chromium chromium-driver` (make test does it as root)"
        if os.environ.get("CI"):
            pytest.fail(msg)
        pytest.skip(msg)
    return CHROMIUM


def test_web_ui_shows_our_assets_and_the_successful_run(repo, tmp_path, chromium):
    from playwright.sync_api import sync_playwright

    home = tmp_path / "home"
    res = CliRunner().invoke(main, ["ingest", str(repo.path), "--home", str(home), "--embedder", "hash"])
    assert res.exit_code == 0, res.output
    # one repository: one run of the ingest job, extraction and the home's stores (reconciliation)
    run_id = re.search(r"\(run ([0-9a-f-]{36})\)", res.output).group(1)

    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    log = tmp_path / "webserver.log"
    env = {**os.environ, "DAGSTER_HOME": str(home / "dagster"), "LTM_HOME": str(home)}
    exe = Path(sys.executable).with_name("dagster-webserver")
    with open(log, "w") as out:
        proc = subprocess.Popen(
            [str(exe), "-m", "pipelines.definitions", "-a", "defs", "-h", "127.0.0.1", "-p", str(port)],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
        )
    try:
        _wait_for_server(f"{base}/server_info", proc, log)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(chromium), headless=True, args=ARGS)
            page = browser.new_page(viewport={"width": 1600, "height": 1000})
            page.set_default_timeout(120_000)

            # the lineage of `reconciliation`: every ingest asset, expanded, with its partition status
            page.goto(f"{base}/assets/reconciliation?view=lineage&lineageScope=upstream&lineageDepth=6",
                      wait_until="domcontentloaded")
            for name in ASSETS:
                page.get_by_text(name, exact=True).first.wait_for(state="visible")

            page.screenshot(path=str(tmp_path / "asset-graph.png"), full_page=True)

            # the global asset graph as `ltm ui` links it: every group expanded, every asset a node
            page.goto(f"{base}{asset_graph_path()}", wait_until="domcontentloaded")
            for name in ASSETS + ["bugs", "doc_memories", "imported_memories", "memory_links", "maintenance"]:
                page.get_by_text(name, exact=True).first.wait_for(state="visible")

            # an asset's page: the row count of its last materialization and the lake table's columns
            for asset, rows, columns in ASSET_PAGES:
                page.goto(f"{base}/assets/{asset}", wait_until="domcontentloaded")
                page.get_by_text("Columns", exact=True).first.wait_for(state="visible")
                page.get_by_text("Row count", exact=True).first.wait_for(state="visible")
                text = page.inner_text("body")
                assert re.search(rf"Row count\s+{rows}\s", text), (asset, text[:2000])
                for column, kind in columns.items():
                    page.get_by_text(column, exact=True).first.wait_for(state="visible")
                    assert re.search(rf"\n{re.escape(column)}\s+{re.escape(kind)}\s", text), (asset, column)
            page.screenshot(path=str(tmp_path / "asset-page.png"), full_page=True)

            page.goto(f"{base}/runs/{run_id}", wait_until="domcontentloaded")
            page.get_by_text("Success", exact=True).first.wait_for(state="visible")
            page.get_by_text(re.compile(r"^Succeeded \(\d+\)$")).first.wait_for(state="visible")
            page.get_by_text("Errored (0)").first.wait_for(state="visible")
            page.get_by_text("RUN_SUCCESS").first.wait_for(state="visible")
            page.get_by_text("reconciliation", exact=True).first.wait_for(state="visible")
            assert run_id.split("-")[0] in page.content()
            page.screenshot(path=str(tmp_path / "run.png"), full_page=True)

            # the asset's Checks tab: the list shows each reconciliation check's latest execution as
            # "Succeeded"; the selected check's detail pane shows its evaluation result, "Passed"
            page.goto(f"{base}/assets/reconciliation?view=checks", wait_until="domcontentloaded")
            page.get_by_text(f"Checks ({len(CHECKS)})", exact=True).first.wait_for(state="visible")
            page.get_by_text("Succeeded", exact=True).nth(len(CHECKS) - 1).wait_for(state="visible")
            assert page.get_by_text("Succeeded", exact=True).count() == len(CHECKS)
            assert page.get_by_text("Failed", exact=True).count() == 0
            for check, description in CHECKS.items():
                page.get_by_text(check, exact=True).first.click()
                page.get_by_text(description, exact=True).first.wait_for(state="visible")
                detail = page.get_by_text("Evaluation result", exact=True).first
                detail.wait_for(state="visible")
                page.get_by_text("Passed", exact=True).first.wait_for(state="visible")
                assert page.get_by_text("Passed", exact=True).count() == 1
            page.screenshot(path=str(tmp_path / "checks.png"), full_page=True)
            browser.close()
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    assert (tmp_path / "asset-graph.png").stat().st_size > 10_000
    assert (tmp_path / "run.png").stat().st_size > 10_000
    assert (tmp_path / "checks.png").stat().st_size > 10_000
    assert (tmp_path / "asset-page.png").stat().st_size > 10_000
