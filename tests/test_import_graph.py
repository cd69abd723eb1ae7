"""No import circles among the modules of `ltm/`: a newcomer can read the library bottom up.

Every import counts, also one inside a function (it still ties the two modules together); only
imports under `if TYPE_CHECKING:` do not, since they never run.
"""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# The whole library is checked.
CHECKED = ("ltm",)


def _module_name(py: Path) -> str:
    parts = list(py.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imported(tree: ast.AST, module: str, is_package: bool) -> set[str]:
    """Every module name an import in `tree` names (a `from X import Y` names X and X.Y)."""
    out: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = module.split(".") if is_package else module.split(".")[:-1]
                package = package[: len(package) - (node.level - 1)]
                base = ".".join(package + ([base] if base else []))
            out.add(base)
            out.update(f"{base}.{a.name}" for a in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return out


def import_graph() -> dict[str, set[str]]:
    """ltm module -> the ltm modules it imports (anywhere in the file, TYPE_CHECKING aside)."""
    files = {_module_name(py): py for py in (ROOT / "ltm").rglob("*.py")}
    return {
        name: {m for m in _imported(ast.parse(py.read_text(encoding="utf-8")), name, py.name == "__init__.py")
               if m in files and m != name}
        for name, py in files.items()
    }


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return found


def _checked(name: str) -> bool:
    return any(name == p or name.startswith(p + ".") for p in CHECKED)


def test_no_import_circle_in_the_checked_packages():
    offenders = [c for c in circles(import_graph()) if any(_checked(m) for m in c)]
    assert offenders == []


def test_the_circle_finder_sees_a_circle_through_a_function_level_import():
    src = "import ltm.b\n\ndef f():\n    from ltm import a\n"
    tree = ast.parse(src)
    assert _imported(tree, "ltm.b", False) >= {"ltm", "ltm.a"}
    assert circles({"ltm.a": {"ltm.b"}, "ltm.b": {"ltm.a"}, "ltm.c": {"ltm.a"}}) == [["ltm.a", "ltm.b"]]
    guarded = ast.parse("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import ltm.a\n")
    assert "ltm.a" not in _imported(guarded, "ltm.b", False)
