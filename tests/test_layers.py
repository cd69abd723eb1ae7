"""The layer rules of the design: ltm/ imports no layer above it (nor dagster, nor importlib tricks);
nothing imports the CLI; the MCP server stands on the library alone; the instance config is one file."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _imports(folder: str) -> list[tuple[str, str]]:
    """(file, imported module) for every import in `folder`, also inside functions and through
    `importlib.import_module("...")` with a literal name."""
    out = []
    for py in (ROOT / folder).rglob("*.py"):
        for node in ast.walk(ast.parse(py.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names = [node.module]
            elif (isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "import_module"
                  and node.args and isinstance(node.args[0], ast.Constant)):
                names = [str(node.args[0].value)]
            out += [(str(py.relative_to(ROOT)), n) for n in names]
    return out


def test_core_library_imports_no_layer_above_it():
    above = {"assets", "resources", "pipelines", "cli", "server"}
    offenders = [f"{f}: {n}" for f, n in _imports("ltm") if n.split(".")[0] in above or n.startswith("dagster")]
    assert offenders == []


def test_nothing_imports_the_cli():
    offenders = [f"{f}: {n}" for d in ("ltm", "resources", "assets", "pipelines") for f, n in _imports(d)
                 if n.split(".")[0] == "cli"]
    assert offenders == []


def test_the_mcp_server_stands_on_the_library_alone():
    """server/ imports the library, never Dagster or the pipeline; only the CLI imports it."""
    offenders = [f"{f}: {n}" for f, n in _imports("server")
                 if n.split(".")[0] in {"assets", "resources", "pipelines", "cli"} or n.startswith("dagster")]
    offenders += [f"{f}: {n}" for d in ("ltm", "resources", "assets", "pipelines") for f, n in _imports(d)
                  if n.split(".")[0] == "server"]
    assert offenders == []


def test_instance_config_shipped_in_package_matches_dagster_yaml():
    assert (ROOT / "dagster.yaml").read_text() == (ROOT / "ltm" / "dagster_instance.yaml").read_text()


def test_project_layout_is_complete():
    for name in ("pyproject.toml", "dagster.yaml", "workspace.yaml", "Makefile", "README.md", "docs/ARCHITECTURE.md", ".ci/run"):
        assert (ROOT / name).is_file(), name
    for d in ("ltm", "assets", "resources", "pipelines", "cli", "server", "tests", "bench"):
        assert (ROOT / d).is_dir(), d
