"""How a memory mentions code: which of its words are written as code, which class a method name
means, and which repository the memory is about. The linker (`ltm.memory.linking`) reads these
rules; each works on whole frames (polars), so a million memories cost a few passes, not a loop.

- A **word-like** name (`echo`, `invoke`, `JSON`, `Routes`: letters only, all lower, all upper, or
  one capital then lower case) is also an ordinary word of the prose around it. Written bare it
  links only with evidence that it is code: a call (`echo(`), backticks (`` `echo` ``), or a noun
  that says so right after it (`the echo helper`, `the View object`). A class with a capitalised
  name (`Context`, `Choice`) needs none: class names are the nouns the prose uses for them.
- A method name defined in several classes (`consume_value` in `Parameter` and `Option`) means the
  definitions of the classes the memory names, when it names any of them.
- A memory is about one repository: its `project_id` if that is an ingested repository, else the
  repository of its `file_path`, else the one where most of its names resolve (a clear majority;
  a qualified name counts twice). Bare names link only inside it; another repository's code only
  through a qualified name (`Context.JSON`, `binding.Default`) or a path.
"""

from __future__ import annotations

import polars as pl

WORD_LIKE = r"^(?:[a-z]+|[A-Z]+|[A-Z][a-z]+)$"
CAPITALISED = r"^[A-Z][a-z]+$"
# Nouns that, right after a name, say the name is code ("the stringify helper", "the View object").
CODE_NOUNS = ("helper", "helpers", "function", "functions", "method", "methods", "class", "object", "objects",
              "constructor", "decorator", "callback", "hook", "property", "getter", "setter", "struct",
              "interface", "type", "middleware", "filter", "fixture", "handler")
_CHAIN = r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*"
_DOTTED = r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+"
_AS_CODE = rf"`{_CHAIN}|\b{_CHAIN}\(|\b{_CHAIN} (?:{'|'.join(CODE_NOUNS)})\b|\b{_DOTTED}"
# The last part of `package.json` or `README.md` is a file extension, not an attribute.
EXTENSIONS = ("py", "pyi", "js", "mjs", "cjs", "ts", "tsx", "jsx", "go", "rs", "java", "kt", "kts", "rb", "php", "swift",
              "json", "yaml", "yml", "toml", "html", "htm", "xml", "md", "rst", "txt", "cfg", "ini", "lock", "css", "scss",
              "sql", "sh")
VOTE_QUALIFIED = 2  # a qualified name says more about the repository than a bare one


def needs_evidence(name: pl.Expr, label: pl.Expr) -> pl.Expr:
    """True for a word-like name that links bare only when written as code (see the module doc)."""
    return name.str.contains(WORD_LIKE) & ~((label == "Class") & name.str.contains(CAPITALISED))


def owners(qualified_name: pl.Expr) -> pl.Expr:
    """The parts of a qualified name before the name itself (`Parameter` of `Parameter.consume_value`)."""
    return qualified_name.str.split(".").list.slice(0, qualified_name.str.split(".").list.len() - 1)


def written_as_code(memories: pl.DataFrame) -> pl.DataFrame:
    """(src, key) of every name a memory writes as code: called, in backticks, or followed by a code noun.

    For a call, a noun or a dotted chain (`request.session`: attribute access) only the last part
    counts (`request.form(` is evidence for `form`); in backticks every part does.
    """
    marks = (
        memories.select(pl.col("id").alias("src"), pl.col("content").str.extract_all(_AS_CODE).alias("m"))
        .explode("m").drop_nulls("m")
    )
    ticked = marks.filter(pl.col("m").str.starts_with("`")).select(
        "src", pl.col("m").str.strip_chars_start("`").str.split(".").alias("key")).explode("key")
    called = marks.filter(~pl.col("m").str.starts_with("`")).select(
        "src", pl.col("m").str.replace(r"(?:\(| \w+)$", "").str.split(".").list.last().alias("key"),
        pl.col("m").str.ends_with("(").alias("call"))
    called = called.filter(pl.col("call") | ~pl.col("key").is_in(EXTENSIONS)).drop("call")
    return pl.concat([ticked, called], how="vertical").unique()


def with_evidence(hits: pl.DataFrame, memories: pl.DataFrame, bare_score: float) -> pl.DataFrame:
    """The hits without the bare word-like names a memory does not write as code."""
    doubtful = pl.col("word") & (pl.col("base") == bare_score)
    suspect = hits.filter(doubtful)
    if suspect.height == 0:
        return hits
    as_code = written_as_code(memories.filter(pl.col("id").is_in(suspect["src"].unique().implode())))
    vouched = suspect.join(as_code, on=["src", "key"], how="semi")
    return pl.concat([hits.filter(~doubtful), vouched], how="vertical")


def prefer_named(hits: pl.DataFrame, words: pl.DataFrame, group: list[str]) -> pl.DataFrame:
    """Of the definitions a name could mean, those whose class (or object) the memory names, when it
    names any (`consume_value` beside `Parameter.handle_parse_result` is Parameter's)."""
    tagged = hits.with_row_index("_row")
    ambiguous = tagged.filter(pl.len().over(group) > 1)  # most names have one definition: nothing to choose
    if ambiguous.height == 0:
        return hits
    mentioned = words.filter(pl.col("src").is_in(ambiguous["src"].unique().implode())).select(
        "src", pl.col("key").alias("owner")).unique()
    named = (
        ambiguous.select("_row", "src", pl.col("owners").alias("owner")).explode("owner").drop_nulls("owner")
        .join(mentioned, on=["src", "owner"], how="semi").select("_row").unique()
        .with_columns(pl.lit(True).alias("_named"))
    )
    if named.height == 0:
        return hits
    tagged = tagged.join(named, on="_row", how="left").with_columns(pl.col("_named").fill_null(False))
    return tagged.filter(~pl.col("_named").any().over(group) | pl.col("_named")).drop("_row", "_named")


def home_repos(hits: pl.DataFrame, memories: pl.DataFrame, own: pl.DataFrame, repos: list[str],
               qualified_score: float) -> pl.DataFrame:
    """(src, home): the repository each memory is about, where one can be told (see the module doc)."""
    if memories.height == 1:  # an online add: the same rules over a few rows, without a frame pass per rule
        return _home_repo_of_one(hits, memories, own, repos, qualified_score)
    by_project = memories.filter(pl.col("project_id").is_in(repos)).select(
        pl.col("id").alias("src"), pl.col("project_id").alias("home"))
    by_file = (own.filter(pl.col("from_metadata")).group_by("src").agg(pl.col("own_repo").unique().alias("r"))
               .filter(pl.col("r").list.len() == 1).select("src", pl.col("r").list.first().alias("home")))
    votes = (
        hits.with_columns(pl.when(pl.col("base") >= qualified_score).then(VOTE_QUALIFIED).otherwise(1).alias("w"))
        .group_by("src", "repo", "key").agg(pl.col("w").max())
        .group_by("src", "repo").agg(pl.col("w").sum())
        .with_columns(pl.col("w").max().over("src").alias("top"))
        .filter(pl.col("w") == pl.col("top"))
        .filter(pl.len().over("src") == 1)  # a tie says nothing
        .select("src", pl.col("repo").alias("home"))
    )
    chosen = pl.concat([by_project.with_columns(pl.lit(0).alias("p")), by_file.with_columns(pl.lit(1).alias("p")),
                        votes.with_columns(pl.lit(2).alias("p"))], how="vertical")
    return chosen.sort("p").unique("src", keep="first").select("src", "home")


def _home_repo_of_one(hits: pl.DataFrame, memories: pl.DataFrame, own: pl.DataFrame, repos: list[str],
                      qualified_score: float) -> pl.DataFrame:
    """`home_repos` of a single memory: its project, else its file's repository, else the clear vote."""
    src, project = memories.select("id", "project_id").row(0)
    home = project if project in repos else None
    if home is None:
        mine = {r for s, r, m in own.select("src", "own_repo", "from_metadata").iter_rows() if s == src and m}
        home = next(iter(mine)) if len(mine) == 1 else None
    if home is None:
        best: dict[tuple[str, str], int] = {}
        for s, repo, key, base in hits.select("src", "repo", "key", "base").iter_rows():
            if s == src:
                w = VOTE_QUALIFIED if base >= qualified_score else 1
                best[(repo, key)] = max(best.get((repo, key), 0), w)
        votes: dict[str, int] = {}
        for (repo, _), w in best.items():
            votes[repo] = votes.get(repo, 0) + w
        top = [r for r, w in votes.items() if w == max(votes.values())]
        home = top[0] if len(top) == 1 else None  # a tie says nothing
    return pl.DataFrame({"src": [src] if home is not None else [], "home": [home] if home is not None else []},
                        schema={"src": pl.String, "home": pl.String})
