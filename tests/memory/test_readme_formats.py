"""The memory format examples in the README import as they are shown."""

import re
from pathlib import Path

import pytest

from ltm.home import Home
from ltm.memory.store import import_memories

README = (Path(__file__).resolve().parents[2] / "README.md").read_text()
SECTION = README[README.index("### Memory formats"):README.index("### Exit codes")]
ITEMS = {item.split("`", 1)[0]: item for item in SECTION.split("\n- `")[1:]}
BLOCKS = {fmt: m.group(1) for fmt, item in ITEMS.items() if (m := re.search(r"```\n(.*?)\n\s*```", item, re.S))}


@pytest.mark.parametrize("fmt, suffix, loaded", [("jsonl", ".jsonl", 2), ("tracemem", ".jsonl", 2), ("docs", ".md", 1)])
def test_the_readme_example_of_each_format_loads(tmp_path, fmt, suffix, loaded):
    text = "\n".join(line.strip() for line in BLOCKS[fmt].splitlines()) + "\n"
    f = tmp_path / f"example{suffix}"
    f.write_text(text)
    home = Home(tmp_path / "home").create()
    report = import_memories(home, f, fmt)
    assert (report.loaded, report.skipped) == (loaded, []), report.skipped
