"""Auto-linking: memories -> the files, functions and classes they speak of. A pure function.

Rules (relevance_score, context):
- `metadata_file_match` 1.0: the memory's `file_path` (absolute, relative or partial) resolved to
  the File(s) sharing the longest run of trailing path components; ties prefer the memory's
  project, then link each. `content_path_match` 0.9: a path with a folder written in the content
  (`lib/utils.js`), resolved the same way; a bare file name (`utils.js`) links nothing.
- `content_name_match` 0.8: a function (RELATES_TO_FUNCTION) or class (RELATES_TO_CLASS) name of at
  least `MIN_NAME_LEN` characters appearing as an identifier in the content: identifier
  boundaries, case-sensitive, `STOP_NAMES` and dunder names never match. A qualified name
  (`Class.method`, `module.func`, any dotted suffix of `package.module.Class.method`, and the
  possessive `Class's method`) scores `QUALIFIED_SCORE` 0.9.
- A name that is also a word (`echo`, `JSON`, `Routes`) links bare only when written as code; a
  method name defined in several classes means those the memory names; a memory is about one
  repository and its bare names link only there (`ltm.memory.mentions`).
- A qualified name says which definition it means: the parts of its chain do not link by
  themselves (`Context.ClientIP` links the method, not the class Context), and the same name
  written bare elsewhere in the memory means only that definition.
- A function defined again under the same qualified name in one file (typing overloads) is its
  definition with the body (the one whose id adds no parameters or ordinal to its qualified name).
- Ambiguity: a name defined in the memory's own file (its `file_path` or a path in its text) means
  that definition alone. Else it links to the package's definitions, not to those
  in tests, examples, docs or vendored code (`ltm.code_paths`); a name only those define links
  only when the memory speaks of tests or sits in that file. The score falls with the number of
  definitions left (`DEFINITION_DECAY` per doubling) and past `MAX_DEFINITIONS` the name does not
  link at all. The memory's own module (the file's directory) loses 0.05, its own repository 0.1,
  anywhere else (no repository could be told) 0.2.
- Members of a class the memory names (`ltm.memory.members`): the method its subject class's code
  shows it describes (`described_member` 0.6: a code identifier of the memory in the method's code,
  `Config` + `env_prefix` -> `Config.get`); a dunder or a stop-listed method name written as code
  beside its class (`named_member` 0.7: "ChainableUndefined returns itself from __getattr__",
  "its copy method"); the class of a dunder method the memory names (`dunder_owner` 0.7:
  `Macro.__call__` -> Macro).
- `explicit`: a `graph_links` entry `{type, target, properties}` of the memory, target an entity id,
  a path or a (qualified) name; its properties win over the automatic ones.
One link per (rel, memory, entity): the highest score wins. An unresolvable explicit link is a
failure: counted and returned with the memory's id, never an exception.
"""

from __future__ import annotations

import json
import logging
import math
import re
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from ltm.code_paths import AUXILIARY_PATTERN, is_auxiliary
from ltm.memory.code_index import MIN_NAME_LEN, STOP_NAMES, CodeIndex, normalize_path  # noqa: F401 (their old home)
from ltm.memory.members import (
    MEMBER_SCORE, NAMED_MEMBER_SCORE, OWNER_SCORE, described_members, dunder_owners, named_members,
)
from ltm.memory.mentions import home_repos, prefer_named, with_evidence

log = logging.getLogger(__name__)

MAX_DEFINITIONS = 4  # a name defined more often than this is too vague to link to any one definition
DEFINITION_DECAY = 0.1  # score lost per doubling of the definitions a name could mean
AUX_PENALTY = 0.1  # a test or example definition kept beside the package's (a memory about tests)
NAME_SCORE, QUALIFIED_SCORE, FILE_SCORE, PATH_SCORE = 0.8, 0.9, 1.0, 0.9
PENALTY = {"file": 0.0, "module": 0.05, "project": 0.1, "elsewhere": 0.2}
CHAIN = r"[A-Za-z0-9_]+(?:\.[A-Za-z_][A-Za-z0-9_]*)*"
PATH = r"(?:[A-Za-z0-9_.-]+/)+[A-Za-z0-9_.-]*[A-Za-z0-9_-]\.[A-Za-z][A-Za-z0-9]{0,4}\b"  # a path with a folder: lib/utils.js
RELS = {"File": "RELATES_TO_FILE", "Function": "RELATES_TO_FUNCTION", "Class": "RELATES_TO_CLASS"}
_TYPE_ALIASES = {
    **{k.lower(): k for k in RELS}, **{v.lower(): k for k, v in RELS.items()},
    "relates_to": None, "file_ref": "File", "function_ref": "Function", "class_ref": "Class",
}
LINK_SCHEMA = {
    "rel": pl.String, "src": pl.String, "dst": pl.String, "dst_label": pl.String, "repo": pl.String,
    "relevance_score": pl.Float64, "context": pl.String,
}


@dataclass
class LinkResult:
    """Links (LINK_SCHEMA columns), rule counts, and failures as (memory id, reason)."""

    links: pl.DataFrame
    failures: list[tuple[str, str]] = field(default_factory=list)

    def by_rule(self) -> dict[str, int]:
        rule = self.links.select(pl.col("context").str.split(":").list.first().alias("rule"))
        return dict(rule.group_by("rule").len().sort("rule").iter_rows())


def _file_links(memories: pl.DataFrame, code: CodeIndex) -> tuple[pl.DataFrame, pl.DataFrame]:
    """File links from `file_path` and from paths the content names, and the files a memory names
    (src, own_path, own_repo, from_metadata) for the ambiguity and repository rules."""
    links, own = [], []
    has = memories.filter(pl.col("file_path").is_not_null() & (pl.col("file_path") != ""))
    for mid, fpath, project in has.select("id", "file_path", "project_id").iter_rows():
        for fid, repo, path in code.resolve_path(fpath, project):
            links.append(("RELATES_TO_FILE", mid, fid, "File", repo, FILE_SCORE, f"metadata_file_match: {path}"))
            own.append((mid, path, repo, True))
    project = {m: r for m, _, r, _ in own}.get
    with_slash = memories.filter(pl.col("content").str.contains("/", literal=True))  # a literal scan is cheap
    mentioned = (with_slash.select("id", "project_id", pl.col("content").str.extract_all(PATH).alias("p"))
                 .explode("p").drop_nulls("p").unique(["id", "p"], maintain_order=True)) if with_slash.height else with_slash
    for mid, project_id, raw in mentioned.iter_rows():
        for fid, repo, path in code.resolve_path(raw, project_id or project(mid)):
            links.append(("RELATES_TO_FILE", mid, fid, "File", repo, PATH_SCORE, f"content_path_match: {raw}"))
            own.append((mid, path, repo, False))
    return (
        pl.DataFrame(links, schema=LINK_SCHEMA, orient="row"),
        pl.DataFrame(own, schema={"src": pl.String, "own_path": pl.String, "own_repo": pl.String,
                                  "from_metadata": pl.Boolean}, orient="row"),
    )


def _dotted_forms(chains: pl.Series) -> pl.DataFrame:
    rows = []
    for chain in chains:
        parts = chain.split(".")
        for i in range(len(parts) - 1):
            for j in range(i + 2, len(parts) + 1):
                rows.append((chain, ".".join(parts[i:j])))
    return pl.DataFrame(rows, schema={"chain": pl.String, "key": pl.String}, orient="row")


def _content_links(memories: pl.DataFrame, code: CodeIndex, own: pl.DataFrame) -> pl.DataFrame:
    # "CliRunner's isolation" is CliRunner.isolation: read the possessive of a capitalised name as a qualified name
    text = pl.col("content").str.replace_all(r"\b([A-Z][A-Za-z0-9_]*)['\u2019]s ([A-Za-z_][A-Za-z0-9_]*)", "${1}.${2}")
    tokens = (
        memories.select(pl.col("id").alias("src"), text.str.extract_all(CHAIN).alias("chain"))
        .explode("chain").drop_nulls("chain")
    )
    words = tokens.select("src", "chain", pl.col("chain").str.split(".").alias("key")).explode("key")
    # The code side cut to the memories' words first: a hash join would hash every name of the
    # code (an online add links one memory against all of it).
    names = code.names.filter(pl.col("key").is_in(words["key"].unique().implode()))
    bare = words.join(names, on="key", how="inner").with_columns(pl.lit(NAME_SCORE).alias("base"))
    dotted_chains = tokens.filter(pl.col("chain").str.contains(".", literal=True))
    expanded = _dotted_forms(dotted_chains["chain"].unique())
    if expanded.height:
        forms = code.forms.filter(pl.col("key").is_in(expanded["key"].unique().implode()))
        qualified = (
            dotted_chains.join(expanded, on="chain", how="inner").select("src", "chain", "key")
            .join(forms, on="key", how="inner").with_columns(pl.lit(QUALIFIED_SCORE).alias("base"))
        )
        # A qualified name says which definition it means: the parts of its chain link nothing by
        # themselves (`Context.ClientIP` is not the class Context), and the same name written bare
        # elsewhere in the memory means that definition, not the others.
        bare = bare.join(qualified.select("src", "chain").unique(), on=["src", "chain"], how="anti")
        meant = qualified.select("src", pl.col("key").str.split(".").list.last().alias("key")).unique()
        bare = bare.join(meant, on=["src", "key"], how="anti").drop("chain")
        qualified = qualified.drop("chain")
        hits = pl.concat([bare.select(qualified.columns), qualified], how="vertical")
    else:  # no dotted name written (most online notes): the bare names alone
        hits = bare.drop("chain")
    hits = hits.unique(["src", "id", "key"])
    if hits.height == 0:
        return pl.DataFrame(schema=LINK_SCHEMA)
    group = ["src", "key", "label"]
    hits = prefer_named(with_evidence(hits, memories, NAME_SCORE), words, group)
    home = home_repos(hits, memories, own, code.repos, QUALIFIED_SCORE)
    if memories.height == 1:  # an online add: the same rules over its few hits, without a frame pass per rule
        scored = _scored_one(hits, memories, own, home)
    else:
        scored = _scored(hits, memories, own, home, group)
    best = (scored.sort(["relevance_score", "key"], descending=[True, False])  # ties: the same link every run
            .unique(["src", "id"], keep="first", maintain_order=True))
    return best.select(
        pl.col("label").replace_strict(RELS).alias("rel"), "src", pl.col("id").alias("dst"),
        pl.col("label").alias("dst_label"), "repo", "relevance_score",
        (pl.lit("content_name_match: ") + pl.col("key")).alias("context"),
    )


def _scored(hits: pl.DataFrame, memories: pl.DataFrame, own: pl.DataFrame, home: pl.DataFrame,
            group: list[str]) -> pl.DataFrame:
    """The hits a memory keeps, with their `relevance_score` (the module doc's ambiguity rules)."""
    hits = hits.join(home, on="src", how="left").filter(
        pl.col("home").is_null() | (pl.col("repo") == pl.col("home")) | (pl.col("base") >= QUALIFIED_SCORE)).drop("home")
    # The files the memory names (its file_path, paths in its text) and their folders: a name
    # defined there means that definition, and the other definitions give way to it.
    named_files = own.select("src", pl.col("own_repo").alias("repo"), pl.col("own_path").alias("file_path")).unique()
    named_dirs = named_files.select("src", "repo", pl.col("file_path").str.replace(r"/?[^/]*$", "").alias("dir")).unique()
    hits = (hits.join(home, on="src", how="left")
            .join(named_files.with_columns(pl.lit(True).alias("own_file")), on=["src", "repo", "file_path"], how="left")
            .with_columns(pl.col("file_path").str.replace(r"/?[^/]*$", "").alias("dir"))
            .join(named_dirs.with_columns(pl.lit(True).alias("own_module")), on=["src", "repo", "dir"], how="left")
            .with_columns(pl.col("own_file").fill_null(False), pl.col("own_module").fill_null(False)))
    hits = hits.filter(~pl.col("own_file").any().over(group) | pl.col("own_file"))
    about_tests = memories.select(pl.col("id").alias("src"),
                                  pl.col("content").str.contains(r"(?i)\btests?\b|\btesting\b").alias("about_tests"))
    hits = (hits.join(about_tests, on="src", how="left")
            .with_columns(pl.col("file_path").fill_null("").str.contains(AUXILIARY_PATTERN).alias("aux"))
            .with_columns((~pl.col("aux")).sum().over(group).alias("n_pkg")))
    # tests, examples and docs give way to the package's own definition, unless the memory is about
    # tests; a definition in the memory's own file or module always stays
    mine = pl.col("own_file") | pl.col("own_module")
    hits = hits.filter(~pl.col("aux") | pl.col("about_tests") | pl.col("own_file"))
    hits = hits.with_columns(pl.len().over(group).alias("n_left"))
    hits = hits.filter((pl.col("n_left") <= MAX_DEFINITIONS) | pl.col("own_file"))
    tier = (
        pl.when(pl.col("n_left") <= 1).then(pl.lit(PENALTY["file"]))
        .when(pl.col("own_file")).then(pl.lit(PENALTY["file"]))
        .when(pl.col("own_module")).then(pl.lit(PENALTY["module"]))
        .when(pl.col("home") == pl.col("repo")).then(pl.lit(PENALTY["project"]))
        .otherwise(pl.lit(PENALTY["elsewhere"]))
    )
    decay = pl.when(mine | (pl.col("n_left") <= 1)).then(0.0).otherwise(
        pl.col("n_left").cast(pl.Float64).log(2) * DEFINITION_DECAY)
    aux_kept = pl.when(pl.col("aux") & (pl.col("n_pkg") > 0) & ~mine).then(AUX_PENALTY).otherwise(0.0)
    return hits.with_columns((pl.col("base") - tier - decay - aux_kept).round(4).alias("relevance_score"))


def _folder(path: str | None) -> str | None:
    return None if path is None else re.sub(r"/?[^/]*$", "", path, count=1)


def _scored_one(hits: pl.DataFrame, memories: pl.DataFrame, own: pl.DataFrame, home: pl.DataFrame) -> pl.DataFrame:
    """`_scored` for a single memory, in Python over its rows (a test holds the two to the same links)."""
    mine_home = home["home"][0] if home.height else None
    rows = [r for r in hits.select("src", "key", "label", "id", "repo", "file_path", "base").iter_rows(named=True)
            if mine_home is None or r["repo"] == mine_home or r["base"] >= QUALIFIED_SCORE]
    files = {(repo, path) for path, repo in own.select("own_path", "own_repo").iter_rows()}
    folders = {(repo, _folder(path)) for repo, path in files}
    for r in rows:
        r["own_file"] = r["file_path"] is not None and (r["repo"], r["file_path"]) in files
        folder = _folder(r["file_path"])
        r["own_module"] = folder is not None and (r["repo"], folder) in folders
        r["aux"] = is_auxiliary(r["file_path"] or "")
    groups: dict[tuple[str, str], list[dict]] = {}
    for r in rows:
        groups.setdefault((r["key"], r["label"]), []).append(r)
    about_tests = bool(re.search(r"(?i)\btests?\b|\btesting\b", memories["content"][0] or ""))
    out = []
    for group in groups.values():
        if any(r["own_file"] for r in group):
            group = [r for r in group if r["own_file"]]
        n_pkg = sum(not r["aux"] for r in group)
        group = [r for r in group if not r["aux"] or about_tests or r["own_file"]]
        n_left = len(group)
        for r in group:
            if n_left > MAX_DEFINITIONS and not r["own_file"]:
                continue
            mine = r["own_file"] or r["own_module"]
            tier = (PENALTY["file"] if n_left <= 1 or r["own_file"] else PENALTY["module"] if r["own_module"]
                    else PENALTY["project"] if mine_home is not None and mine_home == r["repo"] else PENALTY["elsewhere"])
            decay = 0.0 if mine or n_left <= 1 else math.log(n_left, 2) * DEFINITION_DECAY
            aux_kept = AUX_PENALTY if r["aux"] and n_pkg > 0 and not mine else 0.0
            out.append((r["src"], r["key"], r["label"], r["id"], r["repo"], r["base"] - tier - decay - aux_kept))
    frame = pl.DataFrame(out, schema={"src": pl.String, "key": pl.String, "label": pl.String, "id": pl.String,
                                      "repo": pl.String, "relevance_score": pl.Float64}, orient="row")
    return frame.with_columns(pl.col("relevance_score").round(4))  # rounded as the frame rules round


def _member_links(memories: pl.DataFrame, code: CodeIndex, content: pl.DataFrame) -> pl.DataFrame:
    """Links through the classes a memory names (`ltm.memory.members`): the method it describes, the
    dunders and stop-listed methods it writes beside them, and the class of a dunder it names."""
    if code.members.height == 0 or content.height == 0:
        return pl.DataFrame(schema=LINK_SCHEMA)
    # The code side is cut to what the links name before any join: an online add links one memory,
    # and a join would hash a whole table of the code for it.
    linked = content.select("src", "dst")
    class_links = content.filter(pl.col("dst_label") == "Class").select("src", "dst")
    classes = class_links.join(code.entities.filter(pl.col("id").is_in(class_links["dst"].implode()))
                               .select(pl.col("id").alias("dst"), "name"), on="dst", how="inner")
    methods = code.members.filter(pl.col("id").is_in(linked["dst"].implode()))
    # the classes a memory names: bare, or as the owner of a method it names
    owners = pl.concat([classes.select("src", pl.col("dst").alias("class_id")),
                        linked.join(methods.select(pl.col("id").alias("dst"), "class_id"), on="dst", how="inner")
                        .select("src", "class_id")], how="vertical").unique()
    if owners.height == 0:  # no class named, no method linked: no member to link through
        return pl.DataFrame(schema=LINK_SCHEMA)
    of_owners = pl.col("class_id").is_in(owners["class_id"].implode())
    members, idents = code.members.filter(of_owners), code.member_idents.filter(of_owners)
    named = named_members(memories, owners, members, linked)
    described = described_members(memories, classes, members, idents, code.entity_names,
                                  pl.concat([linked, named.select("src", "dst")], how="vertical"))
    owners_of = dunder_owners(pl.concat([linked, named.select("src", "dst")], how="vertical"), members)
    if named.height + described.height + owners_of.height == 0:  # most memories: no member to link
        return pl.DataFrame(schema=LINK_SCHEMA)
    owners_of = owners_of.join(code.entities.filter(pl.col("id").is_in(owners_of["dst"].implode()))
                               .select(pl.col("id").alias("dst"), "repo"), on="dst", how="inner")
    funcs = pl.concat([
        named.with_columns(pl.lit(NAMED_MEMBER_SCORE).alias("relevance_score"), (pl.lit("named_member: ") + pl.col("key")).alias("context")),
        described.with_columns(pl.lit(MEMBER_SCORE).alias("relevance_score"), (pl.lit("described_member: ") + pl.col("key")).alias("context")),
    ], how="vertical").select(
        pl.lit(RELS["Function"]).alias("rel"), "src", "dst", pl.lit("Function").alias("dst_label"), "repo",
        "relevance_score", "context",
    )
    classes_of = owners_of.select(
        pl.lit(RELS["Class"]).alias("rel"), "src", "dst", pl.lit("Class").alias("dst_label"), "repo",
        pl.lit(OWNER_SCORE).alias("relevance_score"), (pl.lit("dunder_owner: ") + pl.col("key")).alias("context"),
    )
    return pl.concat([funcs, classes_of], how="vertical")


def _explicit_links(memories: pl.DataFrame, code: CodeIndex, failures: list[tuple[str, str]]) -> pl.DataFrame:
    rows = []
    has = memories.filter(pl.col("graph_links").is_not_null())
    for mid, raw, project in has.select("id", "graph_links", "project_id").iter_rows():
        try:
            entries = json.loads(raw)
        except json.JSONDecodeError:
            failures.append((mid, "graph_links is not valid JSON"))
            continue
        for link in entries:
            kind = str(link.get("type", "")).lower()
            label = _TYPE_ALIASES.get(kind)
            target = str(link.get("target", ""))
            if label is None:
                failures.append((mid, f"graph_links type {link.get('type')!r} is not RELATES_TO_FILE/FUNCTION/CLASS"))
                continue
            if label == "File":
                found = code.resolve_id(target, label) or [(f, r) for f, r, _ in code.resolve_path(target, project)]
            else:
                found = code.resolve_name(target, label)
            if not found:
                failures.append((mid, f"graph_links target {target!r} ({label}) is not in the code graph"))
                continue
            props = link.get("properties") or {}
            score = props.get("relevance_score", 1.0)
            score = float(score) if isinstance(score, (int, float)) and not isinstance(score, bool) else 1.0
            ctx = f"explicit: {props['context']}" if props.get("context") else "explicit"
            for dst, repo in found:
                rows.append((RELS[label], mid, dst, label, repo, score, ctx))
    return pl.DataFrame(rows, schema=LINK_SCHEMA, orient="row")


def link_memories(memories: pl.DataFrame, code: CodeIndex) -> LinkResult:
    """Every link of every memory (columns id, content, file_path, project_id, graph_links, and
    optionally function_name: a function the metadata names links as if the text wrote it as code)."""
    failures: list[tuple[str, str]] = []
    if memories.height == 0 or code.files.height + code.entities.height == 0:
        return LinkResult(pl.DataFrame(schema=LINK_SCHEMA), failures)
    if "function_name" in memories.columns:  # the metadata names a function: read as a mention written as code
        named = pl.col("function_name").is_not_null() & (pl.col("function_name") != "")
        memories = memories.with_columns(pl.when(named).then(pl.col("content").fill_null("") + "\n`" + pl.col("function_name") + "`")
                                         .otherwise(pl.col("content")).alias("content"))
    file_links, own = _file_links(memories, code)
    content = _content_links(memories, code, own)
    members = _member_links(memories, code, content)
    explicit = _explicit_links(memories, code, failures)
    priority = pl.concat(
        [explicit.with_columns(pl.lit(0).alias("p")), file_links.with_columns(pl.lit(1).alias("p")),
         content.with_columns(pl.lit(2).alias("p")), members.with_columns(pl.lit(3).alias("p"))], how="vertical",
    )
    links = priority.sort(["p", "relevance_score"], descending=[False, True]).unique(
        ["rel", "src", "dst"], keep="first"
    ).drop("p").sort(["src", "rel", "dst"])
    for mid, reason in failures[:20]:
        log.warning("memory %s: %s", mid, reason)
    return LinkResult(links, failures)


def memory_frame(rows: list[dict[str, Any]] | pl.DataFrame) -> pl.DataFrame:
    """The columns the linker reads, from lake rows."""
    df = rows if isinstance(rows, pl.DataFrame) else pl.DataFrame(rows, infer_schema_length=None)
    cols = {"id": pl.String, "content": pl.String, "file_path": pl.String, "project_id": pl.String, "graph_links": pl.String,
            "function_name": pl.String}
    return df.select([
        (pl.col(c) if c in df.columns else pl.lit(None)).cast(t).alias(c) for c, t in cols.items()
    ])
