"""The methods of a class a memory names that it speaks of without naming them as code, and the
class of a dunder method it names. Three rules, on whole frames like the rest of the linker:

- **Described** (`described_member`): "Config looks a key up in the environment first ... env_prefix
  is prepended to every key" is about `Config.get`, though it names only the class; "pass
  follow_symlink=True to StaticFiles" is about `StaticFiles.__init__`. A memory that names a class
  often speaks of one of its methods through the code inside it: a parameter, an attribute or a
  constant. Only the class the memory names first (its subject) is read; a class named in passing
  ("picks a GZipResponder") has memories of its own. A method qualifies when its code (the `text`
  the lake keeps for each function: signature, docstring and the start of the body) holds an
  identifier the memory writes that looks like code (`snake_case`, `camelCase`, `CamelCase` of two
  words) and is not the name of a function or class: those link by name already, and a method that
  merely calls one is not described by it. Of the qualifying methods the one whose words share most
  with the memory's wins, each word weighted by how few of the class's methods use it; one per
  memory, at `MEMBER_SCORE`, below any named mention.
- **Named beside its class** (`named_member`): a dunder (`__getattr__`) or a stop-listed name written
  as code ("its copy method") links no definition bare, but beside its class it says which one.
- **The class of a dunder** (`dunder_owner`): `Macro.__call__` is how a Macro behaves when called,
  so the memory is about the class too; an ordinary method (`URL.replace`) is not its class.
"""

from __future__ import annotations

import polars as pl

from ltm.memory.mentions import written_as_code

MEMBER_SCORE = 0.6
NAMED_MEMBER_SCORE = 0.7  # a dunder or stop-listed method written beside its class: named, but not by its index
OWNER_SCORE = 0.7  # the class of a dunder method the memory names
# Looks like code, not prose: an inner underscore, or a lower-to-upper case change (camelCase,
# GZipResponder), or an acronym run into a word (HTTPException).
CODEISH = r"\b[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]*[A-Za-z0-9]\b|\b[A-Za-z][a-z0-9]+[A-Z][A-Za-z0-9]*\b|\b[A-Z]{2,}[a-z][A-Za-z0-9]*\b"
_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
# Words too common in code or prose to say which method is meant.
_COMMON = ("the and for not with from that this are was were has have any all its into when then than else only "
           "each one two but none true false self cls return def async await function var let const func nil err "
           "raise pass class new elif import").split()


def member_table(entities: pl.DataFrame) -> pl.DataFrame:
    """(class_id, id, repo, file_path, name, body): the direct methods of every class, with their code
    (`unindexed`, true for a name the name index leaves out, is added by `CodeIndex.build`).

    Empty when the entities carry no `text` (a code index built without it links no members).
    """
    schema = {"class_id": pl.String, "id": pl.String, "repo": pl.String, "file_path": pl.String,
              "name": pl.String, "body": pl.String}
    if "text" not in entities.columns:
        return pl.DataFrame(schema=schema)
    classes = entities.filter(pl.col("label") == "Class").select(
        pl.col("id").alias("class_id"), "repo", "file_path", pl.col("qualified_name").alias("owner"))
    methods = entities.filter((pl.col("label") == "Function") & pl.col("qualified_name").str.contains(".", literal=True)
                              & pl.col("text").is_not_null())
    methods = methods.with_columns(
        pl.col("qualified_name").str.replace(r"\.[^.]*$", "").alias("owner"),
        # the first line of `text` is the qualified name and the file: not code
        pl.col("text").str.replace(r"^[^\n]*\n", "").alias("body"),
    )
    return methods.join(classes, on=["repo", "file_path", "owner"], how="inner").select(list(schema))


def member_identifiers(members: pl.DataFrame, entity_names: pl.Series) -> pl.DataFrame:
    """(class_id, id, key): the code-looking identifiers in each method's code, less names of entities.

    Read once per code index, so linking joins a memory's identifiers with them instead of
    scanning the methods' code again for every memory that names their class.
    """
    return (members.select("class_id", "id", pl.col("body").str.extract_all(CODEISH).alias("key")).explode("key")
            .drop_nulls("key").filter(~pl.col("key").is_in(entity_names.implode())).unique())


def _words(frame: pl.DataFrame, col: str, key: str) -> pl.DataFrame:
    """(key, word): the lower-case parts (snake and camel case split) of every identifier in `col`."""
    parts = (frame.select(key, pl.col(col).str.extract_all(_IDENT).alias("w")).explode("w").drop_nulls("w")
             .with_columns(pl.col("w").str.replace_all(r"([a-z0-9])([A-Z])", "${1}_${2}").str.to_lowercase()
                           .str.split("_").alias("w")).explode("w"))
    return parts.filter((pl.col("w").str.len_chars() >= 3) & ~pl.col("w").is_in(_COMMON)).unique()


def described_members(memories: pl.DataFrame, class_links: pl.DataFrame, members: pl.DataFrame,
                      idents: pl.DataFrame, entity_names: pl.Series, linked: pl.DataFrame) -> pl.DataFrame:
    """(src, dst, repo, file_path, key): the method of each memory's subject class that it describes.

    `class_links` (src, dst, name) are the classes the memory links by name, `idents` the methods'
    identifiers (`member_identifiers`), `linked` (src, dst) every entity the memory links already;
    `key` is the code identifier the choice rests on.
    """
    empty = pl.DataFrame(schema={"src": pl.String, "dst": pl.String, "repo": pl.String, "file_path": pl.String,
                                 "key": pl.String})
    if class_links.height == 0 or idents.height == 0:
        return empty
    text = memories.select(pl.col("id").alias("src"), "content").filter(
        pl.col("src").is_in(class_links["src"].unique().implode()))
    codeish = (text.select("src", pl.col("content").str.extract_all(CODEISH).alias("key")).explode("key")
               .drop_nulls("key").unique().filter(~pl.col("key").is_in(entity_names.implode())))
    if codeish.height == 0:  # most memories write no such identifier: nothing to read
        return empty
    text = text.filter(pl.col("src").is_in(codeish["src"].unique().implode()))
    # the subject: the class whose name comes first in the memory's text
    subject = (class_links.join(text, on="src", how="inner")
               .with_columns(pl.col("content").str.find(pl.col("name"), literal=True).alias("at"))
               .drop_nulls("at").sort(["src", "at", "dst"]).unique("src", keep="first")
               .select("src", pl.col("dst").alias("class_id")))
    evidence = (subject.join(codeish, on="src", how="inner").join(idents, on=["class_id", "key"], how="inner")
                .join(linked.select("src", pl.col("dst").alias("id")), on=["src", "id"], how="anti")
                .group_by("src", "class_id", "id").agg(pl.col("key").sort().first()))
    if evidence.height == 0:
        return empty
    # one method with the evidence is the one; of several, the one whose words the memory shares
    # most, each word weighted by how few of the class's methods use it (a word in all says nothing)
    several = evidence.filter(pl.len().over("src") > 1)
    scored = evidence.filter(pl.len().over("src") == 1).with_columns(pl.lit(0.0).alias("s"))
    if several.height:
        of_class = members.filter(pl.col("class_id").is_in(several["class_id"].unique().implode()))
        method_words = _words(of_class.with_columns(pl.concat_str("name", pl.lit(" "), "body").alias("code")), "code", "id")
        method_words = method_words.join(of_class.select("id", "class_id"), on="id", how="inner")
        size = of_class.group_by("class_id").len("n")
        idf = (method_words.group_by("class_id", "w").len("df").join(size, on="class_id", how="inner")
               .with_columns(((pl.col("n") + 1) / (pl.col("df") + 0.5)).log().alias("idf")))
        memory_words = _words(text.filter(pl.col("src").is_in(several["src"].unique().implode())), "content", "src")
        score = (several.select("src", "id", "class_id")
                 .join(method_words.select("id", "w"), on="id", how="inner")
                 .join(memory_words, on=["src", "w"], how="semi")
                 .join(idf.select("class_id", "w", "idf"), on=["class_id", "w"], how="inner")
                 .group_by("src", "id").agg(pl.col("idf").sum().alias("s")))
        scored = pl.concat([scored, several.join(score, on=["src", "id"], how="left").with_columns(pl.col("s").fill_null(0.0))],
                           how="vertical")
    best = scored.sort(["src", "s", "id"], descending=[False, True, False]).unique("src", keep="first")
    return best.join(members.select("id", "repo", "file_path").unique("id"), on="id", how="inner").select(
        "src", pl.col("id").alias("dst"), "repo", "file_path", "key")


def named_members(memories: pl.DataFrame, owners: pl.DataFrame, members: pl.DataFrame,
                  linked: pl.DataFrame) -> pl.DataFrame:
    """(src, dst, repo, file_path, key): methods of the classes a memory names, written bare by their name.

    `owners` (src, class_id) are the classes the memory names, bare or as the owner of a qualified
    name it writes. Beside its class a method's name says which definition it means, so a dunder
    (`__getattr__`) or a name on the stop list written as code ("its copy method") links, though
    neither links bare on its own.
    """
    empty = pl.DataFrame(schema={"src": pl.String, "dst": pl.String, "repo": pl.String, "file_path": pl.String,
                                 "key": pl.String})
    if owners.height == 0 or members.height == 0:
        return empty
    # a name the index holds links through it already (and a qualified mention says which one)
    pairs = owners.join(members.filter(pl.col("unindexed")).select(
        "class_id", "id", "repo", "file_path", pl.col("name").alias("key")), on="class_id", how="inner")
    pairs = pairs.join(linked.select("src", pl.col("dst").alias("id")), on=["src", "id"], how="anti")
    if pairs.height == 0:
        return empty
    text = memories.select(pl.col("id").alias("src"), "content").filter(
        pl.col("src").is_in(pairs["src"].unique().implode())
        & pl.col("content").str.contains_any(pairs["key"].unique().to_list()))
    # bare words only: a part of a dotted chain (`ctx.copy`, `os.path`) is another object's attribute
    bare = (text.select("src", pl.col("content").str.extract_all(r"[A-Za-z0-9_]+(?:\.[A-Za-z_][A-Za-z0-9_]*)*").alias("key"))
            .explode("key").drop_nulls("key").filter(~pl.col("key").str.contains(".", literal=True)).unique())
    cand = pairs.join(bare, on=["src", "key"], how="semi")
    if cand.height == 0:
        return empty
    text = text.filter(pl.col("src").is_in(cand["src"].unique().implode()))
    # a dunder is code by its look; any other name must still be written as code (`copy()`, "its copy
    # method"): "the command line" beside Context is not Context.command
    dunder = pl.col("key").str.contains(r"^__\w+__$")
    as_code = written_as_code(text.rename({"src": "id"}))
    cand = pl.concat([cand.filter(dunder), cand.filter(~dunder).join(as_code, on=["src", "key"], how="semi")], how="vertical")
    return cand.select("src", pl.col("id").alias("dst"), "repo", "file_path", "key").unique(["src", "dst"])


def dunder_owners(linked: pl.DataFrame, members: pl.DataFrame) -> pl.DataFrame:
    """(src, dst, key): the class of every dunder method a memory links (`Macro.__call__` -> Macro).

    A dunder is how the class itself behaves (constructed, called, read as an attribute), so a
    memory about `Undefined.__getattr__` is about the class Undefined too; an ordinary method
    (`URL.replace`) says nothing more of its class than that it has the method.
    """
    dunders = members.filter(pl.col("name").str.contains(r"^__\w+__$")).select(
        pl.col("id").alias("dst"), "class_id", "name")
    if dunders.height == 0:
        return pl.DataFrame(schema={"src": pl.String, "dst": pl.String, "key": pl.String})
    found = linked.select("src", "dst").join(dunders, on="dst", how="inner").select(
        "src", pl.col("class_id").alias("dst"), pl.col("name").alias("key"))
    return found.join(linked.select("src", "dst"), on=["src", "dst"], how="anti").unique(["src", "dst"])
