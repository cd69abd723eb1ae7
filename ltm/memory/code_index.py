"""The code a memory can link to, indexed for the linker: files by basename, entities by name and
by every qualified form a memory may write (`Class.method`, `module.func`, `pkg.name`, a Go or JS
package's last segment). Built once per lake state (`ltm.memory.store.code_index`)."""

from __future__ import annotations

from dataclasses import dataclass, field

import polars as pl

from ltm.memory.members import member_identifiers, member_table
from ltm.memory.mentions import needs_evidence, owners

MIN_NAME_LEN = 4
STOP_NAMES = frozenset(
    """
    self main test tests init data name names value values type types list dict item items keys
    None True False return print args kwargs call calls func function method class object string
    text file files path paths line lines open close read write load save dump dumps loads start
    stop next done this that with from into then when what where which there here have make build
    create delete remove update insert append extend clear copy count index find format parse split
    join strip lower upper replace match search sort sorted filter apply error errors result
    results config setup check help info warn debug default setUp tearDown wrapper inner decorator
    handler callback process execute handle send size length empty reset flush sync wait time date
    node edge tree root base core note todo fixme host port user body content header headers status
    code json html request response message event events state context source target input output
    first last once always never some many more most other only also just like each every again
    after before should would could must will need needs used uses using work works fixed fails
    """.split()
)

def normalize_path(raw: str) -> list[str]:
    """Path components of a file reference: `file://` stripped, `\\` as `/`, `.` dropped."""
    p = raw.strip()
    if p.startswith("file://"):
        p = p[len("file://"):]
    return [c for c in p.replace("\\", "/").split("/") if c not in ("", ".")]


@dataclass
class CodeIndex:
    """The code entities a memory can link to, indexed for the linker."""

    files: pl.DataFrame  # id, repo, path
    entities: pl.DataFrame  # id, label, repo, name, qualified_name, file_path, module (and text: a function's code)
    by_basename: dict[str, list[tuple[str, str, list[str]]]] = field(default_factory=dict)
    names: pl.DataFrame = field(default_factory=pl.DataFrame)
    forms: pl.DataFrame = field(default_factory=pl.DataFrame)
    repos: list[str] = field(default_factory=list)  # the repositories it holds (a memory is about one of them)
    members: pl.DataFrame = field(default_factory=pl.DataFrame)  # the methods of each class, with their code
    entity_names: pl.Series = field(default_factory=lambda: pl.Series(dtype=pl.String))
    member_idents: pl.DataFrame = field(default_factory=pl.DataFrame)  # (class_id, id, key): code identifiers in each method
    _by_key: dict[tuple[str, str], list[tuple[str, str]]] | None = None

    @classmethod
    def build(cls, files: pl.DataFrame, entities: pl.DataFrame) -> "CodeIndex":
        """Index files by basename, entity names and every dotted suffix of their full names."""
        idx = cls(files, entities)
        idx.repos = sorted(set(files["repo"].unique().to_list()) | set(entities["repo"].unique().to_list()))
        for fid, repo, path in files.select("id", "repo", "path").iter_rows():
            comps = normalize_path(path)
            if comps:
                idx.by_basename.setdefault(comps[-1], []).append((fid, repo, comps))
        # A name defined again under the same qualified name in one file (typing overloads before
        # the implementation) is one function: the definition with the plain id, the one with the body
        # (the others' ids add their parameters, `(int)`, or an ordinal, `@2`).
        other = (~pl.col("id").str.ends_with(pl.lit(":") + pl.col("qualified_name"))).cast(pl.Int8)
        ents = entities.with_columns(other.alias("_other")).filter(
            pl.col("_other") == pl.col("_other").min().over("label", "repo", "file_path", "qualified_name")
        ).drop("_other").with_columns(
            pl.when(pl.col("module").is_not_null() & (pl.col("module") != ""))
            .then(pl.col("module") + "." + pl.col("qualified_name"))
            .otherwise(pl.col("qualified_name")).alias("full")
        )
        names = ents.filter(
            (pl.col("name").str.len_chars() >= MIN_NAME_LEN)
            & ~pl.col("name").is_in(list(STOP_NAMES))
            & ~(pl.col("name").str.starts_with("__") & pl.col("name").str.ends_with("__"))
        )
        idx.names = names.select(
            pl.col("name").alias("key"), "id", "label", "repo", "file_path",
            needs_evidence(pl.col("name"), pl.col("label")).alias("word"), owners(pl.col("qualified_name")).alias("owners"),
        ).with_columns(pl.len().over("key", "label").alias("n_defs"))
        rows = []
        for eid, label, repo, fpath, full, module, qualified in ents.select(
                "id", "label", "repo", "file_path", "full", "module", "qualified_name").iter_rows():
            parts = (full or "").split(".")
            for i in range(len(parts) - 1):
                rows.append((".".join(parts[i:]), eid, label, repo, fpath, qualified))
            if module and "/" in module:  # a Go or JS package path: `binding.Default` for .../gin/binding
                rows.append((f"{module.rsplit('/', 1)[-1]}.{qualified}", eid, label, repo, fpath, qualified))
            elif module and "." in module:  # the package's name: `click.echo` for click.utils.echo (re-exported)
                rows.append((f"{module.split('.', 1)[0]}.{qualified}", eid, label, repo, fpath, qualified))
        cols = ("key", "id", "label", "repo", "file_path", "qualified_name")
        forms = pl.DataFrame(rows, schema={c: pl.String for c in cols}, orient="row").unique()
        # dunders and stop-listed names link bare nowhere; beside their class they may (ltm.memory.members)
        idx.members = member_table(ents).with_columns(
            (~pl.col("name").is_in(names["name"].unique().implode())).alias("unindexed"))
        idx.entity_names = ents["name"].drop_nulls().unique()
        idx.member_idents = member_identifiers(idx.members, idx.entity_names)
        idx.forms = forms.select(
            *cols[:5], pl.lit(False).alias("word"), owners(pl.col("qualified_name")).alias("owners"),
        ).with_columns(pl.len().over("key", "label").alias("n_defs"))
        return idx

    def resolve_path(self, raw: str, project: str | None = None) -> list[tuple[str, str, str]]:
        """(file id, repo, path) of the best match(es) for a file reference, or []."""
        comps = normalize_path(raw)
        if not comps:
            return []
        best, found = 0, []
        for fid, repo, fcomps in self.by_basename.get(comps[-1], ()):
            n = min(len(comps), len(fcomps))
            if comps[-n:] != fcomps[-n:]:
                continue
            if n > best:
                best, found = n, [(fid, repo, fcomps)]
            elif n == best:
                found.append((fid, repo, fcomps))
        if project and len(found) > 1 and any(r == project for _, r, _ in found):
            found = [f for f in found if f[1] == project]
        return [(fid, repo, "/".join(c)) for fid, repo, c in found]

    def _lookup(self) -> dict[tuple[str, str], list[tuple[str, str]]]:
        """(label, id | name | qualified form) -> [(entity id, repo)], built on first use."""
        if self._by_key is None:
            table: dict[tuple[str, str], list[tuple[str, str]]] = {}
            for fid, repo in self.files.select("id", "repo").iter_rows():
                table[("File", fid)] = [(fid, repo)]
            for eid, label, repo, name in self.entities.select("id", "label", "repo", "name").iter_rows():
                table[(label, eid)] = [(eid, repo)]
                table.setdefault((label, f"name:{name}"), []).append((eid, repo))
            for key, eid, label, repo in self.forms.select("key", "id", "label", "repo").iter_rows():
                table.setdefault((label, f"name:{key}"), []).append((eid, repo))
            self._by_key = table
        return self._by_key

    def resolve_id(self, target: str, label: str) -> list[tuple[str, str]]:
        """[(entity id, repo)] if `target` is the id of an entity of `label`, else []."""
        return self._lookup().get((label, target), [])

    def resolve_name(self, target: str, label: str) -> list[tuple[str, str]]:
        """(entity id, repo) of every entity of `label` whose id, qualified form or name is `target`."""
        table = self._lookup()
        return table.get((label, target)) or sorted(set(table.get((label, f"name:{target}"), [])))
