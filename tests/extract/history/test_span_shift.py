"""Spans of older versions derived from newer ones (query only where they differ) equal fresh parses."""

import pytest

from ltm.extract.history import version_chains
from ltm.extract.gitrepo import GitRepo
from ltm.extract.history.mine import mine_history
from ltm.extract.languages import LANGUAGES
from ltm.extract.history.spans import SpanCache, spans_of
from tests.builder import RepoBuilder

PY = '''import os


class Client:
    """A client."""

    def get(self, url):
        return self.send("GET", url)

    def send(self, method, url):
        def inner():
            return method
        return inner()

    @property
    def name(self):
        return "c"


def helper(x):
    return x + 1


def other():
    pass
'''

# Each step edits the previous text; the oldest version is the first.
PY_STEPS = [
    lambda t: t.replace("return x + 1", "y = x\n    return y + 1"),                      # inside a function
    lambda t: t.replace("class Client:", "class Session:"),                              # an enclosing name
    lambda t: t.replace('"""A client."""', '"""A session."""'),                          # a class docstring
    lambda t: t + "\n\ndef added():\n    return 2",                                      # at the end, no newline
    lambda t: t.replace("    @property\n", ""),                                          # a decorator goes
    lambda t: t.replace("        def inner():\n            return method\n        return inner()\n",
                        "        return method\n"),                                      # a nested function goes
    lambda t: t.replace("def other():\n    pass\n", ""),                                 # a definition at the end goes
    lambda t: "import sys\n" + t,                                                        # everything shifts
    lambda t: t.replace("    def get(self, url):", "    def fetch(self, url):"),         # a method renamed
    lambda t: t.replace("def helper(x):", "class Helper:\n  def helper(x):").replace(
        "    y = x\n    return y + 1", "    y = x\n    return y"),                       # re-nesting (indentation)
    lambda t: t.replace("def send(", "def send_(").replace("if", "if"),                  # another rename
    lambda t: t.replace("\n\n\nclass", "\nclass"),                                       # blank lines go
]

RUST = '''mod net {
    pub struct Client;

    impl Client {
        pub fn get(&self) -> u8 { 1 }
        pub fn send(&self) -> u8 { 2 }
    }
}

fn helper() -> u8 { 3 }
'''
RUST_STEPS = [
    lambda t: t.replace("{ 2 }", "{\n            4\n        }"),
    lambda t: t.replace("impl Client {", "impl Session {"),
    lambda t: t.replace("mod net {", "mod web {"),
    lambda t: t.replace("fn helper() -> u8 { 3 }", "fn helper() -> u8 { 3 }\n\nfn more() {}"),
]

GO = '''package net

type Client struct{}

func (c *Client) Get() int { return 1 }

func (c *Client) Send() int {
	return 2
}

func Helper() int { return 3 }
'''
GO_STEPS = [
    lambda t: t.replace("return 2", "x := 2\n\treturn x"),
    lambda t: t.replace("(c *Client) Get", "(c *Session) Get"),
    lambda t: t.replace("func Helper", "func Help"),
]

JS = '''class Client {
  get(url) { return url; }
  send(m) {
    return m;
  }
}
Client.prototype.extra = function () { return 1; };
function helper() { return 2; }
'''
JS_STEPS = [
    lambda t: t.replace("return m;", "const x = m;\n    return x;"),
    lambda t: t.replace("Client.prototype.extra", "Session.prototype.extra"),
    lambda t: t.replace("class Client {", "class Session {"),
]

RUBY = '''module Net
  class Client
    def get(url)
      url
    end

    def send_it
      1
    end
  end
end
'''
RUBY_STEPS = [
    lambda t: t.replace("      1\n", "      2\n      3\n"),
    # a singleton `get` beside the instance one: the older versions' untouched `def get` is `Client.get`, the
    # newer ones' `Client#get` (derived from the newer, it must be named back)
    lambda t: t.replace("    def send_it\n", "    def self.get\n      0\n    end\n\n    def send_it\n"),
    lambda t: t.replace("module Net", "module Web"),
    lambda t: t.replace("class Client", "class Session"),
]

CPP = '''namespace net {
class Client {
 public:
  int get() { return 1; }
};
int Client::send() {
  return 2;
}
}  // namespace net

int helper() { return 3; }
'''
CPP_STEPS = [
    lambda t: t.replace("return 2;", "int x = 2;\n  return x;"),
    lambda t: t.replace("int Client::send()", "int Session::send()"),
    lambda t: t.replace("class Client {", "class Session {"),
]

JAVA = '''package net;

public class Client {
    public int get() { return 1; }

    static class Inner {
        int send() {
            return 2;
        }
    }
}
'''
JAVA_STEPS = [
    lambda t: t.replace("return 2;", "int x = 2;\n            return x;"),
    lambda t: t.replace("static class Inner {", "static class Nested {"),
    lambda t: t.replace("public class Client {", "public class Session {"),
]

FILES = {"src/net.cpp": (CPP, CPP_STEPS), "src/Client.java": (JAVA, JAVA_STEPS), "pkg/client.py": (PY, PY_STEPS), "src/lib.rs": (RUST, RUST_STEPS), "net/client.go": (GO, GO_STEPS),
         "web/client.js": (JS, JS_STEPS), "lib/net.rb": (RUBY, RUBY_STEPS)}


def _history(tmp_path) -> RepoBuilder:
    b = RepoBuilder(tmp_path / "shift")
    texts = {path: text for path, (text, _) in FILES.items()}
    for path, text in texts.items():
        b.write(path, text)
    b.commit("Add files")
    for step in range(max(len(steps) for _, steps in FILES.values())):
        for path, (_, steps) in FILES.items():
            if step < len(steps):
                texts[path] = steps[step](texts[path])
                b.write(path, texts[path])
        b.commit(f"Step {step}")
    # A side branch: its version of the file has no diff to any newer one (the merge is diffed
    # against its first parent), so it is reparsed from a newer version of the path.
    py = "pkg/client.py"
    b.checkout("-b", "side")
    b.write(py, texts[py].replace("return 2", "return 22"))
    b.commit("Side: change added")
    b.checkout("main")
    texts[py] = texts[py].replace("import sys\n", "import sys\nimport re\n")
    b.write(py, texts[py])
    b.commit("Main: import re")
    b.merge("side", "Merge side")
    return b


def test_every_version_equals_a_fresh_parse_and_most_were_derived(tmp_path):
    b = _history(tmp_path)
    cache = SpanCache(None)
    out = mine_history(GitRepo(b.path), "s", "HEAD", cache=cache, workers=1)
    versions = sum(len(steps) + 1 for _, steps in FILES.values()) + 3  # every file's texts; side, main, merge
    checked = 0
    with GitRepo(b.path).blobs() as blobs:
        for (blob, lang), spans in cache._mem.items():
            fresh = spans_of(LANGUAGES[lang.rsplit("-", 1)[0]], blobs.read(blob))
            assert spans == fresh, (lang, blob)
            checked += 1
    assert checked == versions
    # Only the newest version of each file is parsed from scratch (the side branch's too is
    # reparsed); where an enclosing name changed the older version is queried in full; every
    # other older version is derived.
    assert out.blobs_parsed == len(FILES)
    assert 0 < out.spans_derived < checked - len(FILES)
    renamed = {m["dst"] for m in out.modifies if m["dst_label"] == "Function"}
    assert "fn:s:pkg/client.py:Session.fetch" in renamed and "fn:s:pkg/client.py:Client.get" in renamed


def test_rows_do_not_depend_on_workers_or_chunks(tmp_path):
    b = _history(tmp_path)
    one = mine_history(GitRepo(b.path), "s", "HEAD", cache=SpanCache(None), workers=1)
    two = mine_history(GitRepo(b.path), "s", "HEAD", cache=SpanCache(None), workers=2, chunk_commits=3)
    for table in ("commits", "parents", "file_changes", "modifies", "renamed_from", "seen"):
        assert getattr(two, table) == getattr(one, table), table
    assert len(one.modifies) > 40 and one.renamed_from


def test_a_chain_goes_on_across_chunks_from_the_tree_held_at_its_end(tmp_path, monkeypatch):
    b = _history(tmp_path)
    whole = mine_history(GitRepo(b.path), "s", "HEAD", cache=SpanCache(None), workers=1)
    for workers in (1, 2):
        cache = SpanCache(None)
        small = mine_history(GitRepo(b.path), "s", "HEAD", cache=cache, workers=workers, chunk_commits=2)
        for table in ("commits", "parents", "file_changes", "modifies", "renamed_from", "seen"):
            assert getattr(small, table) == getattr(whole, table), (workers, table)
        with GitRepo(b.path).blobs() as blobs:
            for (blob, lang), spans in cache._mem.items():
                assert spans == spans_of(LANGUAGES[lang.rsplit("-", 1)[0]], blobs.read(blob)), (workers, blob)
        if workers == 1:
            held = small.blobs_parsed
    # Chunks of two commits, yet only each file's newest version is parsed from scratch (and the
    # side branch's, whose newer sibling is in another chunk): every later chunk starts from the
    # tree the one before it ended with. Holding nothing, each chunk parses its bases again.
    monkeypatch.setattr(version_chains, "HOLD_BYTES", 0)
    unheld = mine_history(GitRepo(b.path), "s", "HEAD", cache=SpanCache(None), workers=1, chunk_commits=2)
    assert whole.blobs_parsed == len(FILES) and held <= len(FILES) + 1 < unheld.blobs_parsed
    assert unheld.modifies == whole.modifies


def _mine_in_child(path: str, out) -> None:
    from ltm.extract.code.entities import extract_code

    try:
        mined = mine_history(GitRepo(path), "s", "HEAD", cache=SpanCache(None), workers=2)
        code = extract_code(GitRepo(path), "s", workers=2)
        out.put((sorted(m["dst"] for m in mined.modifies), len(code.tables["Function"]), None))
    except Exception as e:  # noqa: BLE001 - reported to the test
        out.put((None, None, repr(e)))


def test_mining_inside_a_daemonic_process_parses_in_process(tmp_path):
    """A Dask worker is a daemonic process, which may not start processes of its own."""
    import multiprocessing

    from ltm.extract.code.entities import extract_code

    b = _history(tmp_path)
    ctx = multiprocessing.get_context("spawn")
    out = ctx.Queue()
    child = ctx.Process(target=_mine_in_child, args=(str(b.path), out), daemon=True)
    child.start()
    modifies, functions, error = out.get(timeout=300)
    child.join(timeout=60)
    assert error is None
    here = mine_history(GitRepo(b.path), "s", "HEAD", cache=SpanCache(None), workers=1)
    assert modifies == sorted(m["dst"] for m in here.modifies)
    assert functions == len(extract_code(GitRepo(b.path), "s", workers=1).tables["Function"]) > 0



# A class header (an `impl`, a `module`) inserted below the first one's opening: every method after
# it moves into the new one. git aligns the old body with the new one's, so `send` itself is
# untouched by the diff, and tree-sitter reuses it under its new parent without counting it as
# changed (as in sqlalchemy's test_tm_future_annotations_sync.py at 8e890609eb).
SPLITS = {
    "pkg/split.py": (
        "class Client:\n    x = 1\n\n    def get(self):\n        return 1\n\n    def send(self):\n"
        "        class Inner:\n            pass\n        return Inner\n\n    def tail(self):\n        return 0\n",
        "class Client:\n    x = 1\n\n    def other(self):\n        return 0\n\n\nclass Split:\n    x = 1\n\n"
        "    def get(self):\n        return 2\n\n    def send(self):\n        class Inner:\n            pass\n"
        "        return Inner\n\n    def tail(self):\n        return 1\n",
        {"Client.send", "Client.send.Inner"}, {"Split.send", "Split.send.Inner"},
    ),
    "src/split.rs": (
        "impl Client {\n    fn get(&self) -> u8 { 1 }\n\n    fn send(&self) -> u8 {\n        2\n    }\n\n"
        "    fn tail(&self) -> u8 { 0 }\n}\n",
        "impl Client {\n    fn other(&self) -> u8 { 0 }\n}\n\nimpl Split {\n    fn get(&self) -> u8 { 3 }\n\n"
        "    fn send(&self) -> u8 {\n        2\n    }\n\n    fn tail(&self) -> u8 { 1 }\n}\n",
        {"Client.send"}, {"Split.send"},
    ),
    "lib/split.rb": (
        "module Net\n  def get\n    1\n  end\n\n  def send_it\n    2\n  end\n\n  def tail\n    0\n  end\nend\n",
        "module Net\n  def other\n    0\n  end\nend\n\nmodule Split\n  def get\n    3\n  end\n\n"
        "  def send_it\n    2\n  end\n\n  def tail\n    1\n  end\nend\n",
        {"Net.send_it"}, {"Split.send_it"},
    ),
}


@pytest.mark.parametrize("path", SPLITS)
def test_a_method_moved_under_an_inserted_class_keeps_its_older_name(tmp_path, path):
    old, new, old_names, new_names = SPLITS[path]
    b = RepoBuilder(tmp_path / "split")
    b.write(path, old)
    b.commit("Add client")
    b.write(path, new)
    b.commit("Split the client")
    cache = SpanCache(None)
    out = mine_history(GitRepo(b.path), "s", "HEAD", cache=cache, workers=1)
    names = {}
    with GitRepo(b.path).blobs() as blobs:
        for (blob, lang), spans in cache._mem.items():
            text = blobs.read(blob)
            assert spans == spans_of(LANGUAGES[lang.rsplit("-", 1)[0]], text), blob
            names[text.decode()] = {s.qualified_name for s in spans}
    assert old_names <= names[old] and new_names <= names[new]
    touched = {m["dst"] for m in out.modifies if m["dst_label"] == "Function"}
    assert {f"fn:s:{path}:{n}" for n in old_names | new_names if "Inner" not in n} <= touched
