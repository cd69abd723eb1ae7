"""The layer rules of the design: ltm/ never imports dagster; the instance config is one file."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_core_library_never_imports_dagster():
    offenders = []
    for py in (ROOT / "ltm").rglob("*.py"):
        for node in ast.walk(ast.parse(py.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            offenders += [f"{py.relative_to(ROOT)}: {n}" for n in names if n.split(".")[0].startswith("dagster")]
    assert offenders == []


def test_instance_config_shipped_in_package_matches_dagster_yaml():
    assert (ROOT / "dagster.yaml").read_text() == (ROOT / "ltm" / "dagster_instance.yaml").read_text()


def test_project_layout_is_complete():
    for name in ("pyproject.toml", "dagster.yaml", "workspace.yaml", "Makefile", "README.md", "docs/ARCHITECTURE.md", ".ci/run"):
        assert (ROOT / name).is_file(), name
    for d in ("ltm", "assets", "resources", "pipelines", "tests", "bench"):
        assert (ROOT / d).is_dir(), d
