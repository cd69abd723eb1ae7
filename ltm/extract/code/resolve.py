"""Cross-file edges of one repository: HAS_METHOD, IMPORTS, DEPENDS_ON, EXTENDS, IMPLEMENTS, CALLS.

Runs after every file is parsed, over plain data. A call is resolved, in order, by scope (a nested
function, the file, the caller's own class for `self`/`this` or an implicit receiver, its base
classes, the module), by imports (an imported name, a module alias, an imported class's static
method or constructor; a module's name may be imported into it: `flask.url_for` is
`flask.helpers.url_for`), then by a name unique in the repository's language family (0.5; 0.3 for
`x.m()` with a receiver of unknown type), unless the language has a built-in of that name:
`d.get(k)` on a dict is not the repository's only method `get`, nor `open(p)` its only function
`open`. A call that lands on an abstract or stub method (no body, or only `...`, `pass` or `raise`)
also gets an edge to each override in the classes that extend or implement its class (0.5). Each
edge carries the confidence of the rule that found it; a call no rule resolves is counted in
`stats`, never guessed into an edge. A function passed as a value is a call at 0.7 when it resolves
(`references.py`). `self.x.m()` never lands on the caller's own class, `super().m()` only on a base
class's method; a class-like receiver (`Object`, `Math`) that names no class here is another
package's; a base class or constructor named through an import of another package is external, never
a local class of the same name.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from ltm.code_paths import is_auxiliary, is_auxiliary_entity
from ltm.extract.languages import LanguageSpec
from ltm.extract.code.references import resolve_reference
from ltm.extract.labels import CallLabels, fits, pick
from ltm.extract.parse import AWAIT, EACH, NEW, REF, marks_awaits

SCOPE, IMPORTED, UNIQUE = 1.0, 0.9, 0.5
OVERRIDE = 0.5  # an override of the abstract or stub method a call names (the code that runs)
UNIQUE_METHOD = 0.3  # `x.m()` with x of unknown type: m is the only method of that name in the repository
NAMED_OBJECT = 0.5  # `app.render()`: the one method defined as `app.render` (a JS object's `app.render = function`)
_GENERIC = re.compile(r"[<\[(]")
_ATTRIBUTE = re.compile(r"\w+(?:\.\w+)+")  # `self.file`, `c.engine.trees`: attributes, no call or index
_SELF_ATTRIBUTE = re.compile(r"(\w+)\.(\w+)")  # `self.router`: one attribute of self
# `self.router.mount()` where the class assigns `self.router = Router(...)` (or declares the field's
# type, Go): the attribute's class is known, though another assignment could replace the object
ATTRIBUTE = 0.8
# `x.m()` where the function assigns `x = Foo(...)` or annotates `x: Foo` (a parameter too): Foo's m, as sure
# as an attribute's class; where `x` holds another package's object (`x = httpx.get(...)`), no edge at all
VARIABLE = 0.8
_HEADERS = (".h", ".hh", ".hpp", ".hxx")
EXTERNAL = "<external>"  # what `Resolver.held` says of another package's object
_VAR_DEPTH = 32  # bindings read back through one another (`x = x.copy()` again and again)
_MODULE = -1  # the "function" index under which a module's own variables are kept in `Resolver.var_types`
_MODULE_SCOPE = {"qualified_name": "", "self_name": None}  # what `_callee` reads of the caller, for a module
_END = 1 << 62  # an offset after every binding: a function runs after its module's code has bound its names


@dataclass
class ParsedFile:
    """One parsed file and the ids of what it defines."""

    path: str
    spec: LanguageSpec
    file_id: str
    module_id: str
    facts: dict
    def_ids: list[str]


_EXPORT_OBJECTS = ("exports", "module.exports")  # CommonJS: their members are the module's exported names


@dataclass
class Bindings:
    """Names an import statement binds in a file."""

    aliases: dict[str, str] = field(default_factory=dict)  # local name -> module id
    symbols: dict[str, tuple[str, str]] = field(default_factory=dict)  # local name -> (module id, symbol)
    wildcards: list[str] = field(default_factory=list)  # modules whose names are all visible
    external: set[str] = field(default_factory=set)  # local names bound to external packages
    # local names bound by an import of a workspace package by its name (`import { z } from "zod/mini"`)
    packaged: set[str] = field(default_factory=set)


_CONSTRUCTION = re.compile(r"(new\s+)?([A-Za-z_][\w.]*)\s*(?:<[^()]*>)?\s*\(")
_CAST = re.compile(r"\(\s*\(\s*([A-Za-z_][\w.]*)\s*(?:<[^()]*>)?\s*\)")
_AS_CAST = re.compile(r"\(.+\s+as\s+([A-Za-z_$][\w$.]*)\s*(?:<.*>)?\s*\)", re.S)  # TypeScript's `(x as Foo)`
_LEAD = re.compile(r"[A-Za-z_]\w*")
_TYPE_ARGUMENTS = re.compile(r"<[^()]*>$")  # a call's explicit type arguments: `adapter<Foo>`
_TYPE_NAME = re.compile(r"[A-Za-z_][\w.]*(?=\s*(?:<|$))")  # `Map<K, V>` -> `Map`; not a call (`make()`)
_CONSTANT_PATH = re.compile(r"[A-Z]\w*(?:::[A-Z]\w*)+")  # Ruby's `Rack::Utils`
_SELF_NEW = re.compile(r"(?:self\.)?new(?:\s*\(.*\))?", re.S)  # Ruby's `new(x)` in a singleton method
_RUBY_NEW = re.compile(r"([A-Z]\w*(?:::[A-Z]\w*)*)\.new(?:\s*\(.*\))?", re.S)  # `Rack::Response.new(env)`


def _opening(text: str) -> int | None:
    """Where the parenthesis that closes `text` (its last character) opens, string literals not read; None
    when they do not balance."""
    depth = 0
    for i in range(len(text) - 1, -1, -1):
        depth += (text[i] == ")") - (text[i] == "(")
        if depth == 0:
            return i
    return None


def _closing(text: str, start: int) -> int | None:
    """Where the parenthesis at `start` closes, string literals skipped; None when it does not."""
    depth, quote, i = 0, "", start
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = ""
        elif c in "'\"`":
            quote = c
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return None


def _constructed(recv: str, casts: bool) -> tuple[str, bool] | None:
    """The class a receiver that is one construction is written with, and whether it is explicit: `new
    Foo<T>(a, b)` (an anonymous class's body `{ ... }` after it too) or, where `casts` (a language of
    declared types), a cast `((Foo) x)`, or TypeScript's `(x as Foo)`; else a call `pkg.Foo(a, "b")`, a class
    only if a class of that name is found. `Foo(a).bar()` is what `bar` returns: None."""
    m = _CONSTRUCTION.match(recv)
    if m is None:
        cast = (_CAST.match(recv) if casts else None) or _AS_CAST.fullmatch(recv)
        return (cast[1], True) if cast and _closing(recv, 0) == len(recv) - 1 else None
    end = _closing(recv, m.end() - 1)
    if end is None:
        return None
    rest = recv[end + 1:].strip()
    if not rest or (m[1] and rest[0] == "{" and rest[-1] == "}"):
        return m[2], bool(m[1])
    return None


def _base_name(raw: str) -> tuple[str | None, str]:
    """`pkg.Base<T>` -> (`pkg`, `Base`)."""
    s = _GENERIC.split(raw.strip(), 1)[0].strip()
    s = s.replace("::", ".")
    head, _, last = s.rpartition(".")
    return head or None, last


class Resolver:
    """Indexes of one repository's definitions and the edge rules over them."""

    def __init__(self, repo: str, files: list[ParsedFile], bindings: dict[str, Bindings],
                 modules: dict[str, dict[str, str]] | None = None):
        self.repo, self.files, self.bindings = repo, files, bindings
        self.modules = modules or {}  # family -> module name -> id
        self.module_name = {mid: name for names in self.modules.values() for name, mid in names.items()}
        self.stats: Counter = Counter()
        self.top = defaultdict(lambda: defaultdict(list))  # module id -> name -> [fn id]
        self.file_top: dict[str, dict[str, str]] = defaultdict(dict)  # path -> name -> fn id
        self.nested: dict[str, dict[tuple[str, str], str]] = defaultdict(dict)  # path -> (parent, name) -> id
        self.classes = defaultdict(lambda: defaultdict(list))  # module id -> name -> [cls id]
        self.file_classes: dict[str, dict[str, str]] = defaultdict(dict)  # path -> qualified -> cls id
        self.file_class_names: dict[str, dict[str, str]] = defaultdict(dict)  # path -> name -> first cls id
        self.methods: dict[str, dict[str, str]] = defaultdict(dict)  # cls id -> name -> fn id
        # cls id -> name -> fn id of a Ruby class's own method (`def self.m`, `class << self`); `methods` holds one
        # too where the class has no instance method of the name
        self.singletons: dict[str, dict[str, str]] = defaultdict(dict)
        self._singleton_ids: set[str] = set()
        self.file_qn: dict[str, dict[str, str]] = defaultdict(dict)  # path -> qualified name -> id
        self.owner: dict[str, str] = {}  # fn id -> cls id of the method it is or is nested in
        self.class_name: dict[str, str] = {}
        self.class_qualified: dict[str, str] = {}
        self.nested_classes: set[str] = set()  # classes defined inside another definition
        self.class_kind: dict[str, str] = {}
        self.bases: dict[str, list[str]] = defaultdict(list)
        self.subclasses: dict[str, list[str]] = defaultdict(list)  # extends and implements, reversed
        self.stubs: dict[str, tuple[str, str]] = {}  # stub method id -> (its class id, its name)
        self.coroutines: set[str] = set()  # functions declared `async`
        self.params: dict[str, list] = {}  # Swift function id -> its parameters' labels
        self.overloads: dict[tuple, list[str]] = defaultdict(list)  # (its class, or module and scope; name) -> ids
        self.overload_of: dict[str, list[str]] = {}  # function id -> its overloads (itself too), in source order
        self.bind_labels: dict[str, dict[int, CallLabels]] = {}  # path -> where a binding takes effect -> labels
        self.returns: dict[str, tuple[str, str]] = {}  # function id -> (its file, the type it declares it returns)
        self.attributes: dict[str, dict[str, set]] = defaultdict(lambda: defaultdict(set))  # cls -> attr -> {(file, type)}
        self._attribute_cache: dict[tuple[str, str], str | None] = {}
        # path -> (fn, var) -> [(where the binding takes effect, the type as written)], in source order
        self.var_types: dict[str, dict[tuple[int, str], list[tuple[int, str]]]] = defaultdict(dict)
        self._var_cache: dict[tuple, str | None] = {}
        self.module_reads: dict[str, set[int]] = {}  # path -> offsets of calls on a module's variable
        self.path_calls: dict[str, set[int]] = {}  # path -> offsets of calls through a path (`regex::escape(s)`)
        self.macro_calls: dict[str, set[int]] = {}  # path -> offsets of macro invocations (`check!(x)`)
        self.instance_calls: dict[str, set[int]] = {}  # path -> offsets of calls in Ruby's `define_method` blocks
        # path -> (start of an `export default {...}` object, name) -> the first function of the name in it
        self.object_members: dict[str, dict[tuple[int, str], str]] = defaultdict(dict)
        self.file_macros: dict[str, dict[str, str]] = defaultdict(dict)  # path -> macro name -> id
        self.macros = defaultdict(lambda: defaultdict(list))  # group -> macro name -> [id]
        self.macro_ids: set[str] = set()
        self.open_classes: set[str] = set()  # classes with a base this repository does not define
        self._override_cache: dict[str, list[str]] = {}
        self._parts: dict[str, set[str]] = {}  # family -> the parts of its modules' namespaces
        self._implemented: dict[str, list[str]] | None = None  # class -> the interfaces it says it implements
        self.global_top = defaultdict(lambda: defaultdict(list))  # group -> name -> [fn id]
        self.global_methods = defaultdict(lambda: defaultdict(list))
        # functions of tests, examples, docs and benchmarks: never a guess for the package's own code
        self.auxiliary_paths = {f.path for f in files if is_auxiliary(f.path)}
        self.auxiliary = {eid for f in files for d, eid in zip(f.facts["defs"], f.def_ids)
                          if f.path in self.auxiliary_paths or is_auxiliary_entity(f.path, d["qualified_name"])}
        self.method_qn: dict[str, str] = {}  # method id -> its qualified name (`app.render`)
        self.global_classes = defaultdict(lambda: defaultdict(list))
        self.qualified_classes = defaultdict(lambda: defaultdict(list))  # group -> `A.B` -> [cls id of a B in A]
        self.extensions = defaultdict(lambda: defaultdict(list))  # group -> name -> [(fn id, type it extends)]
        self.whole: dict[str, str] = {}  # cls id of a part of a partial class -> the part that stands for it
        self.edges: dict[str, dict[tuple[str, str], float]] = defaultdict(dict)
        self._file = {f.path: f for f in files}
        self.module_files: dict[str, list[str]] = defaultdict(list)  # module id -> its files' paths
        self.declared: dict[str, set[str]] = defaultdict(set)  # module id -> functions its C headers declare
        for f in files:
            self.module_files[f.module_id].append(f.path)
        self._include_headers_includes()
        self._index()

    def _include_headers_includes(self) -> None:
        """C and C++: a file that includes a header sees what that header includes too (`jq.h` includes
        `jv.h`, so its includers call `jv.c`'s functions by import), after what it includes itself."""
        seen_by: dict[str, list[str]] = {}  # module id -> the modules its headers include
        for f in self.files:
            if f.spec.group == "c" and f.path.endswith(_HEADERS):
                seen_by.setdefault(f.module_id, []).extend(self.bindings[f.path].wildcards)
                self.declared[f.module_id].update(f.facts.get("declares", ()))
        for f in self.files:
            if f.spec.group != "c" or not (wildcards := self.bindings[f.path].wildcards):
                continue
            seen, level = {f.module_id, *wildcards}, list(wildcards)
            while level:
                level = [m for mid in level for m in seen_by.get(mid, ()) if not (m in seen or seen.add(m))]
                wildcards.extend(level)

    def _edge(self, rel: str, src: str, dst: str, confidence: float = 1.0) -> None:
        key = (src, dst)
        if confidence > self.edges[rel].get(key, -1.0):
            self.edges[rel][key] = confidence

    def _index(self) -> None:
        for f in self.files:
            g = f.spec.group
            for d, eid in zip(f.facts["defs"], f.def_ids):
                if d["kind"] == "class":
                    if d["qualified_name"] not in self.file_classes[f.path]:
                        # a class the file defines again (`if TYPE_CHECKING: class X(Protocol)` / `else:
                        # class X`) is one name: the first definition, as in the file itself
                        self.classes[f.module_id][d["name"]].append(eid)
                        self.global_classes[g][d["name"]].append(eid)
                    self.file_classes[f.path].setdefault(d["qualified_name"], eid)
                    self.file_class_names[f.path].setdefault(d["name"], eid)
                    self.class_name[eid], self.class_kind[eid] = d["name"], d["class_kind"]
                    self.class_qualified[eid] = d["qualified_name"]
                    parts = d["qualified_name"].split(".")
                    for i in range(len(parts) - 1):  # `Sinatra.Base`, `Protection.Base`: by what encloses it
                        self.qualified_classes[g][".".join(parts[i:])].append(eid)
                    if d["parent_kind"] is not None:
                        self.nested_classes.add(eid)
                elif d.get("macro"):  # Rust's `macro_rules! check`: only `check!(...)` calls it
                    self.macro_ids.add(eid)
                    if d["parent_kind"] is None:  # one defined inside a function is that function's (`_macro`)
                        self.file_macros[f.path].setdefault(d["name"], eid)
                        self.macros[g][d["name"]].append(eid)
                elif d["parent_kind"] is None:  # a later definition (or an overload's body) wins
                    self.file_top[f.path][d["name"]] = eid
                elif d["parent_kind"] == "function":
                    self.nested[f.path].setdefault((d["parent_qualified"], d["name"]), eid)
            for name, eid in self.file_top[f.path].items():
                self.top[f.module_id][name].append(eid)
                self.global_top[g][name].append(eid)
            for d, eid in zip(f.facts["defs"], f.def_ids):  # `exports.f = function ...`: what importers name `f`
                if d["kind"] == "function" and d["parent_qualified"] in _EXPORT_OBJECTS and d["name"] not in self.file_top[f.path]:
                    self.top[f.module_id][d["name"]].append(eid)
        self._join_partial_classes()
        for f in self.files:  # methods need every class of the module indexed first
            by_qn = self.file_qn[f.path]
            for d, eid in zip(f.facts["defs"], f.def_ids):
                by_qn.setdefault(d["qualified_name"], eid)
                if d["kind"] != "function":
                    continue
                if d["parent_kind"] is None and "extends" in d:  # Kotlin's top-level `fun Type.canonicalize()`
                    self.extensions[f.spec.group][d["name"]].append((eid, d["extends"]))
                if d["parent_kind"] == "class":
                    self.global_methods[f.spec.group][d["name"]].append(eid)
                    if "extends" in d:  # C#'s `static bool IsNull(this JToken t)`
                        self.extensions[f.spec.group][d["name"]].append((eid, d["extends"]))
                    self.method_qn[eid] = d["qualified_name"]
                    cls = self._owner_class(f, d["parent_qualified"])
                    if cls is not None:
                        self._edge("HAS_METHOD", cls, eid)  # the part that declares it
                        cls = self.whole.get(cls, cls)
                        prior = self.methods[cls].get(d["name"])
                        if d.get("singleton"):
                            self.singletons[cls][d["name"]] = eid
                        if not (d["stub"] and prior is not None and prior not in self.stubs) and not (
                                d.get("singleton") and prior is not None and prior not in self._singleton_ids):
                            # the last of overloads or redefinitions; a body over a stub (C++'s `DB::Put`,
                            # defined though `virtual Status Put(...) = 0;` in its class); an instance method
                            # over a Ruby singleton method of the name (`Foo.new.m`), never the other way
                            self.methods[cls][d["name"]] = eid
                        if d.get("singleton"):
                            self._singleton_ids.add(eid)
                        self.owner[eid] = cls
                        if d["stub"]:
                            self.stubs[eid] = (cls, d["name"])
                if d.get("object") is not None:
                    self.object_members[f.path].setdefault((d["object"], d["name"]), eid)
                if d.get("params") is not None:  # Swift: overloads told apart by their labels (`labels.py`)
                    self.params[eid] = d["params"]
                    owner = self.owner.get(eid) or (f.module_id, d["parent_qualified"])
                    self.overloads[(owner, d["name"])].append(eid)
                    self.overload_of[eid] = self.overloads[(owner, d["name"])]
                if d.get("coroutine"):
                    self.coroutines.add(eid)
                if d.get("returns"):
                    self.returns[eid] = (f.path, d["returns"])
                if d["parent_kind"] == "function" and by_qn.get(d["parent_qualified"]) in self.owner:
                    self.owner[eid] = self.owner[by_qn[d["parent_qualified"]]]

        for f in self.files:  # attributes need every method's class
            types = self.var_types[f.path]
            for owner, name, typ, after in f.facts.get("vars", ()):
                # Rust's `Config::from_env` is called as C++'s `Config::load` and Python's `Config.load` are
                types.setdefault((owner, name), []).append((after, typ.lstrip("*&").replace("::", ".")))
            for name, typ, after in f.facts.get("module_vars", ()):
                types.setdefault((_MODULE, name), []).append((after, typ.lstrip("*&")))
            self.module_reads[f.path] = set(f.facts.get("module_reads", ()))
            self.path_calls[f.path] = set(f.facts.get("path_calls", ()))
            self.macro_calls[f.path] = set(f.facts.get("macro_calls", ()))
            self.instance_calls[f.path] = set(f.facts.get("instance_calls", ()))
            if binds := f.facts.get("bind_labels"):  # Swift: the labels of the calls variables are bound from
                self.bind_labels[f.path] = {after: (names, closures) for after, names, closures in binds}
            for owner, obj, name, typ, variable in f.facts.get("attrs", ()):
                if variable:  # `self._transport = transport`: the type its bindings agree on, as written
                    typs = {t for _, t in types.get((owner, typ), ())}
                    if len(typs) != 1:
                        continue
                    typ = typs.pop()
                d, eid = f.facts["defs"][owner], f.def_ids[owner]
                if d["kind"] == "class":
                    cls = self.whole.get(eid, eid)
                elif obj is None or obj in f.spec.self_names or obj == d["self_name"]:
                    cls = self.owner.get(eid)  # None: a TS constructor's `private store: Store`
                else:
                    continue
                if cls is not None:
                    self.attributes[cls][name].add((f.path, typ.lstrip("*&")))

    def _join_partial_classes(self) -> None:
        """C#'s `partial class Reader` in Reader.cs and Reader.Async.cs is one class: calls, bases and
        fields resolve against one part (the file named after the class, else the first path) that
        holds every part's methods; each part keeps its own node and HAS_METHOD edges. A Ruby class or
        module reopened in any file of the repository (`module Sinatra` in every file of the gem) is one
        the same way: the part in the package's code with the most methods stands for it."""
        parts: dict[tuple[str, str, str], list[tuple[tuple, str, str, str]]] = defaultdict(list)
        for f in self.files:
            if not (f.spec.partial_classes or f.spec.open_classes):
                continue
            stem = f.path.rpartition("/")[2].rpartition(".")[0]
            defs = f.facts["defs"]
            for d, eid in zip(defs, f.def_ids):
                if d["kind"] != "class":
                    continue
                if f.spec.open_classes:  # Ruby: any file reopens it; the package's opening with most methods stands
                    own = sum(1 for x in defs
                              if x["kind"] == "function" and x["parent_qualified"] == d["qualified_name"])
                    key, rank = (f.spec.group, "", d["qualified_name"]), (f.path in self.auxiliary_paths, -own)
                else:
                    key, rank = (f.spec.group, f.module_id, d["qualified_name"]), (stem != d["name"],)
                parts[key].append((rank, f.path, eid, f.module_id))
        for (group, _, _), found in parts.items():
            if len({path for _, path, _, _ in found}) < 2:  # one file: a duplicate under `#if`/`#else`, not parts
                continue
            whole = min(found)[2]
            ids = {eid for _, _, eid, _ in found}
            for eid in ids - {whole}:
                self.whole[eid] = whole
            name = self.class_name[whole]
            for table in (*(self.classes[mid] for mid in {mid for *_, mid in found}), self.global_classes[group]):
                table[name] = [c for c in table[name] if c not in ids or c == whole]

    def attribute_class(self, cls: str, name: str, depth: int = 0) -> str | None:
        """The class attribute `name` of class `cls` (or a base) holds, when every assignment names one class."""
        key = (cls, name)
        if key not in self._attribute_cache:
            hit = None
            if held := self.attributes[cls].get(name):  # None when a class of another package is held
                found = {self._attribute_type(self._file[path], typ) for path, typ in held}
                hit = next(iter(found)) if len(found) == 1 else None
            elif (fn := self.methods[cls].get(name)) in self.returns:
                # read as an attribute, a method is a property: `def headers(self) -> Headers`
                hit = self.declared_class(fn)
                hit = None if hit == EXTERNAL else hit
            elif depth < 4:
                hit = next((c for b in self.bases.get(cls, ()) if (c := self.attribute_class(b, name, depth + 1))), None)
            self._attribute_cache[key] = hit
        return self._attribute_cache[key]

    def _attribute_type(self, f: ParsedFile, typ: str) -> str | None:
        """The class an attribute written `typ` holds: the class it names, or, where the language reads chains of
        calls, what the chain's last call declares it returns (Kotlin's `private val moshi = Moshi.Builder().build()`)."""
        call = "(" in typ or typ.rpartition(".")[2][:1].islower()  # `Moshi.Builder().build`, `Registry.create`
        if not (f.spec.chained_calls and call):
            return self.find_class(f, typ)
        fn = self._callee(f, _MODULE, typ, _END, 1)
        cls = self.declared_class(fn) if fn is not None and fn in self.returns else None
        return None if cls == EXTERNAL else cls

    def foreign_type(self, f: ParsedFile, typ: str) -> bool:
        """A type declared in file `f` that names no class of the repository's language family (`String`,
        `List<Foo>`, a type variable) or one an import of another package binds (`java.lang.reflect.Field`
        beside a test's `Field`): the platform's or another package's, whose methods are never guessed here."""
        head, name = _base_name(typ)
        external = self.bindings[f.path].external
        return name not in self.global_classes[f.spec.group] or (head or name).split(".")[0] in external

    def foreign_attribute(self, spec: LanguageSpec, cls: str, name: str, depth: int = 0) -> bool:
        """Field `name` of class `cls` (or a base) is declared only with foreign types (`declared_types`,
        `declared_fields`)."""
        if not (spec.declared_types or spec.declared_fields):
            return False
        if held := self.attributes[cls].get(name):
            return all(self.foreign_type(self._file[path], typ) for path, typ in held)
        return depth < 4 and any(self.foreign_attribute(spec, b, name, depth + 1) for b in self.bases.get(cls, ()))

    def _owner_class(self, f: ParsedFile, qualified: str) -> str | None:
        if qualified in self.file_classes[f.path]:
            return self.file_classes[f.path][qualified]
        name = qualified.rpartition(".")[2]
        same = self.classes[f.module_id].get(name, [])
        if "." not in qualified:  # a bare name (Swift's `extension Result`) is no class nested in another definition
            same = [c for c in same if c not in self.nested_classes]
        if same or f.spec.group != "c":
            return same[0] if len(same) == 1 else None
        # C++'s `A::f` in a file whose own header does not declare A (write_batch.cc defines the methods of
        # write_batch_internal.h's WriteBatchInternal): the class an included header declares, else the only one
        included = {c for mid in self.bindings[f.path].wildcards for c in self.classes[mid].get(name, [])}
        hits = list(included) if included else self.global_classes[f.spec.group].get(name, [])
        return hits[0] if len(hits) == 1 else None

    def exported(self, mid: str, name: str, depth: int = 0, table: dict | None = None) -> str | None:
        """The one function (or, with `table=self.classes`, class) a module's name `name` denotes:
        defined there, or imported into it.

        `flask/__init__.py` has `from .helpers import url_for`: `flask.url_for()` and `from flask
        import url_for` both call `helpers.url_for` (three hops of such re-exports at most); its `from
        .app import Flask` makes `flask.Flask` that class, though the tests define a `Flask` of their own.
        """
        table = self.top if table is None else table
        if len(hits := table[mid].get(name, [])) == 1:
            return hits[0]
        if hits or depth >= 3:
            return None
        found = {hit for path in self.module_files.get(mid, ()) if (sym := self.bindings[path].symbols.get(name))
                 and sym[0] != mid and (hit := self.exported(sym[0], sym[1], depth + 1, table))}
        if not found:  # `export * from "./external.js"` (zod's `zod/v4`), `from .core import *`
            found = {hit for path in self.module_files.get(mid, ()) for w in self.bindings[path].wildcards
                     if w != mid and (hit := self.exported(w, name, depth + 1, table))}
        return found.pop() if len(found) == 1 else None

    # ---- classes -------------------------------------------------------------------------

    def find_class(self, f: ParsedFile, raw: str, scope: str = "") -> str | None:
        """A type name as written in a file -> the class it names, or None. `scope`: the qualified name of the
        definition it is written in, whose enclosing classes and modules are searched first (`Base` inside
        `module Sinatra` is `Sinatra.Base`, though `Rack.Protection.Base` is a class too)."""
        cls = self._lexical_class(f, scope, raw) if scope else None
        cls = cls if cls is not None else self._find_class(f, raw)
        return self.whole.get(cls, cls) if cls is not None else None

    def _lexical_class(self, f: ParsedFile, scope: str, raw: str) -> str | None:
        written = raw.replace("::", ".").strip(".")
        if not written[:1].isupper() or _GENERIC.search(written):
            return None
        while scope:
            hits = {self.whole.get(h, h) for h in self.qualified_classes[f.spec.group].get(f"{scope}.{written}", ())}
            if len(hits) == 1:
                return hits.pop()
            scope = scope.rpartition(".")[0]
        return None

    def _find_class(self, f: ParsedFile, raw: str) -> str | None:
        head, name = _base_name(raw)
        b = self.bindings[f.path]
        if head:
            root = head.split(".")[0]
            if root in b.external:  # `httpx.Response`: a class of another package, never ours
                return None
            mid = b.aliases.get(root)
            if mid and (cid := self.exported(mid, name, table=self.classes)) is not None:
                return cid
            if (sep := f.spec.qualified_names) and mid is None and root not in b.symbols:
                # PHP's `\Psr\Http\Client\ClientInterface`: the class of the module of that name, else, when no
                # namespace here has a part of the name's first (`Psr`), another package's, never our class of
                # that last name
                if (cid := self._namespaced(f, sep, [*head.split("."), name])) is not None:
                    return cid
                if root not in self._namespace_parts(f.spec.group, sep):
                    return None
            # `Sinatra::Base`, `Rack::Protection::Base`: the class B that a class or module A encloses (any
            # file's opening of it), before a class that is only named B
            hits = {self.whole.get(h, h) for h in self.qualified_classes[f.spec.group].get(f"{head}.{name}", ())}
            if len(hits) > 1 and f.path not in self.auxiliary_paths:
                hits -= self.auxiliary
            if len(hits) == 1:
                return hits.pop()
            if f.spec.open_classes:  # Ruby: `Rack::Response` is Rack's, never our `Sinatra::Response`
                return None
        if (cid := self.file_class_names[f.path].get(name)) is not None:
            return cid
        if not head and name in b.external:  # `from httpx import Response`: not our `Response`
            return None
        if name in b.symbols:
            mid, symbol = b.symbols[name]
            if (cid := self.exported(mid, symbol, table=self.classes)) is not None:
                return cid
            if self.exported(mid, symbol):  # `Column` imported from a module where it is a function
                return None
        if not head and (sep := f.spec.qualified_names) and (cid := self._namespaced(f, sep, [name])) is not None:
            return cid  # PHP: a class name no `use` binds is one of the file's own namespace
        for mid in (f.module_id, *b.wildcards):
            hits = self.classes[mid].get(name, [])
            if mid != f.module_id:  # another module's nested class is named through its class: `SkipList::Iterator`
                hits = [h for h in hits if h not in self.nested_classes]
            if len(hits) == 1:
                return hits[0]
        hits = self.global_classes[f.spec.group].get(name, [])
        if f.spec.open_classes:  # Ruby: a bare constant is lexical (above) or top-level, never another module's
            hits = [h for h in hits if self.class_qualified[h] == name]
        if hits and f.path not in self.auxiliary_paths:  # the package's `Task` is not its tests' class Task
            hits = [h for h in hits if h not in self.auxiliary]
        return hits[0] if len(hits) == 1 else None

    def resolve_bases(self) -> None:
        requires: dict[str, set[str]] = defaultdict(set)  # interface id -> the methods it requires (Go)
        for f in self.files:
            for base in f.facts["bases"]:
                if base["relation"] == "requires":
                    if base["owner"] is not None:
                        requires[f.def_ids[base["owner"]]].add(base["name"])
                    continue
                if base["owner"] is not None:
                    src, scope = f.def_ids[base["owner"]], f.facts["defs"][base["owner"]]["qualified_name"]
                else:
                    src, scope = self._owner_class(f, base["owner_name"]), ""
                target = self.find_class(f, base["name"], scope)
                whole = self.whole.get(src, src) if src is not None else None
                if src is None or target is None or whole == target:
                    self.stats["bases_unresolved"] += 1
                    if whole is not None and target is None:
                        self.open_classes.add(whole)
                    continue
                rel = base["relation"]
                if rel == "base":
                    rel = "implements" if self.class_kind.get(target) == "interface" else "extends"
                self._edge("EXTENDS" if rel == "extends" else "IMPLEMENTS", src, target)
                self.subclasses[target].append(whole)
                if rel == "extends" and self.class_kind.get(target) == "trait":
                    self.bases[whole].insert(0, target)  # PHP: a used trait's methods override the inherited ones
                elif rel == "extends" or self.class_kind.get(target) == "trait" or f.spec.interface_methods:
                    # a Rust trait's provided methods are its implementors' too (`self.describe()`), as a Swift
                    # protocol extension's are its conforming types' (after what the superclass has)
                    self.bases[whole].append(target)
        if requires:
            self._implement_interfaces(requires)

    def _required(self, requires: dict[str, set[str]], iface: str, depth: int = 0) -> set[str] | None:
        """The methods an interface requires, with those of the interfaces it embeds (four levels); None
        when it embeds another package's (`io.Reader`), whose methods are not known here."""
        if iface in self.open_classes or depth > 4:
            return None
        out = set(requires.get(iface, ()))
        for base in self.bases.get(iface, ()):
            if (more := self._required(requires, base, depth + 1)) is None:
                return None
            out |= more
        return out

    def _implement_interfaces(self, requires: dict[str, set[str]]) -> None:
        """Go: a type implements an interface of its language when its methods (an embedded struct's too)
        include every method the interface requires, though nothing declares it: IMPLEMENTS. An interface
        that embeds another package's (`io.Reader`) requires methods not known here: none is found."""
        group = {eid: f.spec.group for f in self.files for d, eid in zip(f.facts["defs"], f.def_ids) if d["kind"] == "class"}
        holders: dict[str, set[str]] = defaultdict(set)  # method name -> the types that define it
        for cls in group:
            if self.class_kind.get(cls) != "interface" and cls not in self.whole:
                for name in self.methods[cls]:
                    holders[name].add(cls)
        for iface, g in group.items():
            if self.class_kind.get(iface) != "interface" or not (needed := self._required(requires, iface)):
                continue
            level = found = set(holders[min(needed, key=lambda n: len(holders[n]))])
            for _ in range(4):  # and the types that embed one of them (its methods are theirs)
                level = {sub for c in level for sub in self.subclasses.get(c, ()) if sub not in found}
                found = found | level
            for cls in sorted(found):
                if group.get(cls) == g and all(self.method(cls, name) for name in needed):
                    self._edge("IMPLEMENTS", cls, iface)
                    self.subclasses[iface].append(cls)

    # ---- calls ---------------------------------------------------------------------------

    def method(self, cls: str, name: str, depth: int = 0) -> tuple[str, float] | None:
        """Method `name` of class `cls` or of a base (four levels up), with SCOPE (its own) or IMPORTED."""
        if name in self.methods[cls]:
            return self.methods[cls][name], SCOPE if depth == 0 else IMPORTED
        if depth < 4:
            for base in self.bases.get(cls, []):
                hit = self.method(base, name, depth + 1)
                if hit:
                    return hit[0], IMPORTED
        return None

    def class_method(self, cls: str, name: str) -> tuple[str, float] | None:
        """What `Foo.m`, or `self.m` and a bare `m` in a singleton method, call: the singleton method `name` of Ruby
        class `cls` or of the nearest ancestor defining one (SCOPE on `cls` itself), else `method` (a class whose
        only `m` is an instance method keeps the edge it had)."""
        level, seen = [cls], set()
        for depth in range(5):
            for c in level:
                if (hit := self.singletons.get(c, {}).get(name)) is not None:
                    return hit, SCOPE if depth == 0 else IMPORTED
            seen.update(level)
            level = [b for c in level for b in self.bases.get(c, ()) if b not in seen]
        return self.method(cls, name)

    def _in_class(self, f: ParsedFile, d: dict, at: int, cls: str, name: str) -> tuple[str, float] | None:
        """Method `name` called on self, or with no receiver, by `d` at offset `at`: a singleton method's self is its
        class, except in a `define_method` block (the instance method it defines)."""
        if d.get("singleton") and at not in self.instance_calls.get(f.path, ()):
            return self.class_method(cls, name)
        return self.method(cls, name)

    def _own_method(self, f: ParsedFile, d: dict, cls: str | None, name: str, fn: str) -> bool:
        """Whether `fn` is method `name` of the caller's class (or a base), or a sibling on its JS object."""
        if cls is not None:
            return self._inherits(cls, self.owner.get(fn))
        return d["parent_kind"] == "class" and self.file_qn[f.path].get(f"{d['parent_qualified']}.{name}") == fn

    def _inherits(self, cls: str, other: str | None, depth: int = 0) -> bool:
        """`cls` is `other` or extends it (four levels up at most)."""
        if other is None or cls == other:
            return other is not None
        return depth < 4 and any(self._inherits(b, other, depth + 1) for b in self.bases.get(cls, ()))

    def _implementation(self, iface: str, name: str, caller: str) -> tuple[str, float] | None:
        """The one method `name` of the classes implementing interface `iface`, which takes `name` from another
        package's interface (Slim's `MiddlewareDispatcherInterface extends RequestHandlerInterface`: its `handle`
        runs `MiddlewareDispatcher.handle`), as an override is (0.5); for the package's own caller, never its tests'."""
        if self.class_kind.get(iface) != "interface" or not self._open(iface):
            return None
        impls = {m for m in self._overrides(iface, name) if (caller in self.auxiliary or m not in self.auxiliary)
                 and self._implements(self.owner.get(m), iface)}
        return (impls.pop(), OVERRIDE) if len(impls) == 1 else None

    def _implements(self, cls: str | None, iface: str, depth: int = 0) -> bool:
        """`cls` (or a base of it) says it implements `iface` or an interface extending it: not a Go struct that
        only embeds the interface (a wrapper of some other implementation)."""
        if self._implemented is None:
            self._implemented = defaultdict(list)
            for src, dst in self.edges["IMPLEMENTS"]:
                self._implemented[src].append(dst)
        if cls is None or depth > 4:
            return False
        return any(self._inherits(i, iface) for i in self._implemented.get(cls, ())) or any(
            self._implements(b, iface, depth + 1) for b in self.bases.get(cls, ()))

    def _namespaced(self, f: ParsedFile, sep: str, parts: list[str]) -> str | None:
        """The class a qualified name names by its module (`A\\B\\C` is module `A\\B\\C`'s C), as written or relative
        to the file's own namespace (`Sub\\C`, `C` inside namespace `A`)."""
        names, own = self.modules.get(f.spec.group, {}), self.module_name.get(f.module_id, "").rpartition(sep)[0]
        for qualified in ([own, *parts], parts) if own else (parts,):
            if (mid := names.get(sep.join(qualified))) is not None:
                hits = self.classes[mid].get(parts[-1], [])
                return hits[0] if len(hits) == 1 else None
        return None

    def _namespace_parts(self, group: str, sep: str) -> set[str]:
        """Every part of the namespaces of a family's modules (`GuzzleHttp`, `Handler` of `GuzzleHttp\\Handler\\X`)."""
        if group not in self._parts:
            self._parts[group] = {p for name in self.modules.get(group, {}) for p in name.split(sep)[:-1]}
        return self._parts[group]

    def _open(self, cls: str, depth: int = 0) -> bool:
        """`cls` or a base of it (four levels up) has a base this repository does not define."""
        return cls in self.open_classes or (depth < 4 and any(self._open(b, depth + 1) for b in self.bases.get(cls, ())))

    def _constructor(self, spec: LanguageSpec, cls: str) -> str | None:
        for name in (*spec.constructors, self.class_name[cls]):
            hit = self.method(cls, name)
            if hit:
                return hit[0]
        return None

    def _unique(self, table, group: str, name: str, confidence: float = UNIQUE,
                caller_path: str = "", awaited: bool | None = None) -> tuple[str, float] | None:
        """The one function of `name` in the family, for a call no other rule resolved. The package's
        own code never calls into its tests, examples or docs, so for a caller of the package their
        definitions are neither the guess nor what makes one ambiguous (uvicorn's `self.transport.close()`
        is not the tests' `MockTransport.close`). A call whose result is neither awaited nor handed on
        (`awaited` False, where the language marks them) runs no coroutine function's body:
        `assert response.json() == ...` is not the repository's only `async def json`."""
        hits = table[group].get(name, [])
        if hits and caller_path and not is_auxiliary(caller_path):
            hits = [h for h in hits if h not in self.auxiliary]
        if hits and awaited is False:
            hits = [h for h in hits if h not in self.coroutines]
        if len(hits) == 1:
            return hits[0], confidence
        if len(hits) > 1 and (same := self.overload_of.get(hits[0])) is not None and all(h in same for h in hits):
            return hits[0], confidence  # Swift: overloads of one function, which the call's labels pick among
        self.stats["calls_ambiguous" if hits else "calls_unknown"] += 1
        return None

    def resolve_call(self, f: ParsedFile, call: tuple, variable: bool = False) -> tuple[str, float] | None:
        """The function a call site (name, receiver, new, caller) names and the confidence, or None (counted)."""
        spec, b = f.spec, self.bindings[f.path]
        name, recv, kind, caller_index, at = call
        new = kind == NEW
        awaited = kind == AWAIT if marks_awaits(spec.name) else None
        d = f.facts["defs"][caller_index]
        caller = f.def_ids[caller_index]
        if at in self.macro_calls.get(f.path, ()):
            return self._macro(f, d, name, b)
        cls = self.owner.get(caller)
        if recv is None and name == "super" and spec.bare_super:
            # Ruby's `super` in `def call(env)`: the `call` of the nearest ancestor that defines one, the mixins
            # a class includes (the last first) before its superclass; none here: another package's
            hit = next((h for base in reversed(self.bases.get(cls, ()))
                        if (h := self._in_class(f, d, at, base, d["name"]))), None)
            if hit is not None:
                return hit[0], IMPORTED
            self.stats["calls_external" if cls in self.open_classes else "calls_unknown"] += 1
            return None
        if recv is None and name in ("this", "super") and cls is not None and d["name"] == self.class_name.get(cls):
            # Java's `this(...)` / `super(...)` in a constructor (named as its class: Python's `super()` in
            # `__init__` is no call of a constructor): the caller's class's other overload, or its base's
            owners = [cls] if name == "this" else self.bases.get(cls, [])
            hit = next((c for o in owners if (c := self._constructor(spec, o)) is not None and c != caller), None)
            if hit is not None:
                return hit, SCOPE if name == "this" else IMPORTED
            self.stats["calls_external" if name == "super" and cls in self.open_classes else "calls_unknown"] += 1
            return None
        target = (self.find_class(f, name)
                  if new or (recv is None and spec.bare_constructors and name[:1].isupper()) else None)
        if new and target is None and name in spec.self_names:  # PHP's `new self()`, `new static()`
            target = cls
        if new or target is not None:
            ctor = self._constructor(spec, target) if target else None
            if ctor:
                return ctor, IMPORTED
            if target or new:
                self.stats["calls_to_classes"] += 1
                return None
        if recv is not None and (recv in spec.self_names or recv == d["self_name"]):
            if cls is not None:
                hit = self._in_class(f, d, at, cls, name)
                if hit:
                    return hit
            elif d["parent_kind"] == "class":  # `this` of a JS object whose methods are assigned
                sibling = self.file_qn[f.path].get(f"{d['parent_qualified']}.{name}")
                if sibling:
                    return sibling, SCOPE
            elif d.get("object") is not None and (member := self.object_members[f.path].get((d["object"], name))):
                return member, SCOPE  # Vue's `export default { mounted() { this.load() }, methods: { load() {} } }`
            self.stats["calls_unknown"] += 1
            return None
        if spec.base_receiver and re.fullmatch(spec.base_receiver, recv or ""):
            # `super().m()`: a base class's method, never the caller's own nor a guess by name
            bases = self.bases.get(cls, ()) if cls else ()
            hit = next((h for base in bases if (h := self.method(base, name))), None)
            if hit:
                return hit[0], IMPORTED
            self.stats["calls_unknown"] += 1
            return None
        if recv is None:
            if (local := self._nested(f, d, name)) is not None:
                return local, SCOPE
            if variable:  # `resolve()` of `new Promise((resolve) => ...)`, Ruby's bare `env` read where a method
                # or block around it binds `env`: a variable, not a function or method of the name
                self.stats["calls_to_variables"] += 1
                return None
            if spec.implicit_self and cls is not None and (hit := self._in_class(f, d, at, cls, name)):
                return hit
            if spec.implicit_self and self.class_kind.get(cls) == "module" and (
                    hit := self._host_method(cls, name, f.path not in self.auxiliary_paths)):
                return hit  # Ruby's `include Helpers` in Base: a Helpers method's bare `settings` is Base's
            if name in self.file_top[f.path]:
                return self.file_top[f.path][name], SCOPE
            if len(same := self.top[f.module_id].get(name, [])) == 1:
                return same[0], IMPORTED
            if name in b.symbols and (hit := self.exported(*b.symbols[name])):
                return hit, IMPORTED
            if name in b.external:
                self.stats["calls_external"] += 1
                return None
            for mid in b.wildcards if not (spec.overloads and name in spec.builtin_functions) else ():
                if len(hits := self.top[mid].get(name, [])) == 1:
                    return hits[0], IMPORTED
            if name in spec.builtin_functions:  # `open(path)` with no `open` of this file or its imports
                self.stats["calls_builtin_name"] += 1
                return None
            # `jq.h` declares `jq_next`, `execute.c` defines it: an included header's prototype makes the
            # repository's only definition of the name as sure as an import
            if spec.implicit_self and self.class_kind.get(cls) == "module" and not self.subclasses.get(cls) and (
                    hit := self._unique(self.global_methods, spec.group, name, UNIQUE, f.path, awaited)):
                # a mixin's bare call of a method its host class defines, where nothing here includes it (a
                # module handed to a DSL, `helpers JSON`): the repository's only method of the name. Where a
                # class includes it and lacks the method, the host has it from elsewhere (`attr_reader`, Rack)
                return hit
            declared = any(name in self.declared.get(mid, ()) for mid in b.wildcards)
            return self._unique(self.global_top, spec.group, name, IMPORTED if declared else UNIQUE, f.path, awaited)
        if recv[:1] in ('"', "'", "`"):  # `"abc".length()`: a string literal's method is the language's
            self.stats["calls_builtin_name"] += 1
            return None
        if spec.open_classes and ((m := _RUBY_NEW.fullmatch(recv)) or (
                d.get("singleton") and cls is not None and _SELF_NEW.fullmatch(recv))):
            # `Rack::Response.new(env).finish`, `Response.new.finish`: a method of the class just constructed; one
            # no class or module here names is another package's. In a singleton method `new.m` and `self.new.m`
            # construct the class itself
            target = self.find_class(f, m[1], d["qualified_name"]) if m else cls
            hit = self.method(target, name) if target is not None else None
            if hit:
                return hit[0], VARIABLE
            self.stats["calls_external" if target is None or target in self.open_classes else "calls_unknown"] += 1
            return None
        if (made := _constructed(recv.replace("::", "."), spec.declared_types)) is not None:
            # `requests.Request("GET", url).prepare()`, `new GsonBuilder().create()`, `((Foo) x).m()`, Rust's
            # `Buffer::new(rx).process()`: a method of the class just constructed (or cast to)
            written, explicit = made
            target = self.find_class(f, written)
            if target is not None:
                if hit := self.method(target, name):
                    return hit[0], VARIABLE
                self.stats["calls_external" if target in self.open_classes else "calls_unknown"] += 1
                return None
            if explicit and (written in b.external or self.foreign_type(f, written)):
                self.stats["calls_external"] += 1
                return None
            if not explicit and (held := self.held(f, caller_index, written, at)) is not None:
                # `c.Flags().Lookup(n)`, `make_app().run()`: a method of what the call declares it returns
                if held == EXTERNAL:  # Go's `func (c *Command) Flags() *flag.FlagSet`: pflag's, never ours
                    self.stats["calls_external"] += 1
                    return None
                if hit := self.method(held, name):
                    return hit[0], VARIABLE
                self.stats["calls_external" if held in self.open_classes else "calls_unknown"] += 1
                return None
        lead = _LEAD.match(recv)
        after = recv[lead.end():].lstrip()[:1] if lead else ""  # a chain may go on on the next line
        if lead and ((after == "(" and lead[0] in b.external) or (
                after == "." and spec.capitalized_types and lead[0][:1].isupper() and not lead[0].isupper()
                and "(" in recv and lead[0] not in b.aliases and lead[0] not in b.symbols
                and self.find_class(f, lead[0]) is None) or (
                after == "." and "(" in recv and (caller_index, lead[0]) in self.var_types[f.path]
                and self.var_held(f, caller_index, lead[0], at, first=True) == EXTERNAL)):
            # `assertThat(x).isEqualTo(y)`, `Struct.newBuilder().build()`, `builder.hidden(h).max_depth(d)` on
            # `let builder = WalkBuilder::new(p)`: what a function of another package, or a class no class here
            # names, or another package's object returns is another package's object too
            self.stats["calls_external"] += 1
            return None
        head, _, rest = recv.replace("::", ".").partition(".")
        mid = b.aliases.get(recv)
        if mid is None and head in b.aliases:  # `pkg.sub.f()` after `import pkg`; not `pkg.codes.get()`
            base, known = self.module_name.get(b.aliases[head]), self.modules.get(spec.group, {})
            # Rust's module paths are written `crate::exec::job`
            mid = known.get(f"{base}.{rest}") or known.get(f"{base}::{rest.replace('.', '::')}")
        if mid is not None:  # the receiver is one of our modules
            if hit := self.exported(mid, name):
                return hit, IMPORTED
            if (cid := self.exported(mid, name, table=self.classes)) is not None:  # `module.Class()` constructs
                if ctor := self._constructor(spec, cid):
                    return ctor, IMPORTED
                self.stats["calls_to_classes"] += 1
                return None
        if head in b.external or recv in b.external or (
                spec.child_modules and ("::" in recv or at in self.path_calls[f.path]) and head[:1].islower()
                and head not in b.aliases and head not in ("crate", "self", "super") and "(" not in recv):
            # Rust: a path whose head is no module in scope names another crate (`nix::unistd::gethostname()`,
            # `tempfile::Builder::new()`, `regex::escape(s)`), which needs no `use`
            self.stats["calls_external"] += 1
            return None
        if (head in spec.builtin_objects and head not in b.aliases and head not in b.symbols
                and (caller_index, head) not in self.var_types[f.path] and at not in self.module_reads.get(f.path, ())):
            # `console.log(x)`, `document.querySelector(s)`: the host's object, whose methods the repository's only
            # `log` or `querySelector` shares by name alone
            self.stats["calls_external"] += 1
            return None
        if recv.isidentifier() and ((local := (caller_index, recv) in self.var_types[f.path])
                                    or at in self.module_reads.get(f.path, ())):
            # the caller's variable, or the module's (`app = Router(...)` above the function that calls `app.m()`)
            held = (self.var_held(f, caller_index, recv, at, first=True) if local
                    else self.var_held(f, _MODULE, recv, _END))
            if held == EXTERNAL:  # `r = httpx.get(url)`: `r.json()` is httpx's, not our only `json`
                self.stats["calls_external"] += 1
                return None
            if held is not None:
                if hit := self.method(held, name):
                    return hit[0], VARIABLE
                if hit := self._extension(spec, held, name):
                    return hit
                if hit := self._implementation(held, name, caller):
                    return hit
                # not defined on the class here: inherited from another package's base, or dynamic
                self.stats["calls_external" if held in self.open_classes else "calls_unknown"] += 1
                return None
        elif spec.implicit_self and cls is not None and recv.isidentifier():
            # Java's `engine.start()` on a field of the caller's class: `this.engine`
            if (held := self.attribute_class(cls, recv)) is not None and (hit := self.method(held, name)):
                return hit[0], ATTRIBUTE
            if held is None and self.foreign_attribute(spec, cls, recv):  # `String name`: `name.length()`
                self.stats["calls_external"] += 1
                return None
        target = self.find_class(f, recv, d["qualified_name"]) if recv[:1].isupper() else None
        if target is not None:
            hit = self.class_method(target, name) if spec.open_classes else self.method(target, name)
            if hit is None and name == "new":  # Ruby's Foo.new runs initialize
                ctor = self._constructor(spec, target)
                hit = (ctor, IMPORTED) if ctor else None
            if hit:
                return hit[0], IMPORTED
        elif ((spec.capitalized_types and recv[:1].isupper() and recv.isidentifier()
               and recv not in b.aliases and recv not in b.symbols)
              or (spec.open_classes and _CONSTANT_PATH.fullmatch(recv))):
            # `Object.create()`, `Math.max()`: a class-like name that no class here or import binds is
            # a built-in or another package's; a method of the same name here is a coincidence. So is a
            # constant path where every class and module is one (Ruby's `Rack::Utils.secure_compare`)
            self.stats["calls_external"] += 1
            return None
        m = _SELF_ATTRIBUTE.fullmatch(recv)
        if m and m[1] in (*spec.self_names, d["self_name"]):
            held = self.attribute_class(cls, m[2]) if cls is not None else None
            # `self.router.mount()`: Router's mount (an interface without the method, Go's, goes on to the guesses)
            if held is not None and (hit := self.method(held, name)):
                return hit[0], ATTRIBUTE
            if held is not None and (hit := self._implementation(held, name, caller)):
                return hit
            if held is None and cls is not None and self.foreign_attribute(spec, cls, m[2]):
                self.stats["calls_external"] += 1
                return None
        elif m and (caller_index, m[1]) in self.var_types[f.path]:
            # `c.parent.Root()`, `response.headers.get()` on a variable `c *Command`, `response: Response`: a
            # method of the class the field (or property) of the variable's class holds; of another package's
            # object (`flag.Value.Type()` on `flag *pflag.Flag`), another package's
            held = self.var_held(f, caller_index, m[1], at, first=True)
            attr = self.attribute_class(held, m[2]) if held not in (None, EXTERNAL) else None
            if attr is not None and (hit := self.method(attr, name)):
                return hit[0], ATTRIBUTE
            if held == EXTERNAL or (held is not None and attr is None and self.foreign_attribute(spec, held, m[2])):
                self.stats["calls_external"] += 1
                return None
        if recv.isidentifier():  # `app.render()` beside `res.render`: the method defined on an object of that name
            named = [e for e in self.global_methods[spec.group].get(name, ()) if self.method_qn[e] == f"{recv}.{name}"]
            if len(named) > 1:
                # `const res = {...}` in several files: the caller's own file's, else the imported one's; a test's
                # mock object (express's test/Router.js `res.send`) is never another file's
                here = self.file_qn[f.path].get(f"{recv}.{name}")
                there = self.module_files.get(b.symbols[recv][0], ()) if recv in b.symbols else ()
                named = ([here] if here in named
                         else [e for e in named if any(e in self._file[p].def_ids for p in there)] if there
                         else [e for e in named if e not in self.auxiliary])
            if len(named) == 1:
                return named[0], NAMED_OBJECT
        if head in b.packaged:
            # `import { z } from "zod/mini"` (zod's own package, by its name): `z.number()` that it does not
            # define, `z.string().optional()` on what it returned. The import reaches our module, yet what
            # it binds is as unknown as another package's object, so the repository's only `number` or
            # `optional` method (a test helper's, another version's class) is no guess for it either
            self.stats["calls_unknown"] += 1
            return None
        if name in spec.builtin_methods:
            # `out.get(k)`, `items.append(x)`: every dict, list or string has the method too, so the
            # repository's only `get` is no better a guess than the built-in (`builtin_names.py`)
            self.stats["calls_builtin_name"] += 1
            return None
        hit = self._unique(self.global_methods, spec.group, name, UNIQUE_METHOD, f.path, awaited)
        if hit and hit[0] == caller:
            # `def close; @io.close; end`: a method that calls its own name on an object of unknown type delegates
            # to that object, whose class has the method too (a recursion would not need the receiver)
            self.stats["calls_unknown"] += 1
            return None
        if (hit and head in (*spec.self_names, d["self_name"]) and _ATTRIBUTE.fullmatch(recv)
                and self._own_method(f, d, cls, name, hit[0])):
            # `self.file.write()`: an attribute of self is another object; the caller's own class
            # (or a base of it) defines `write` only by coincidence of names (`this.location(x).get()`
            # is a method's result, often self again: not this rule)
            self.stats["calls_unknown"] += 1
            return None
        return hit

    def _host_method(self, module: str, name: str, package: bool = False) -> tuple[str, float] | None:
        """Method `name` of the one class (or module) that includes mixin `module` and defines it, IMPORTED; for
        the `package`'s own code, never a class of its tests, examples or docs."""
        hits = {hit[0] for host in self.subclasses.get(module, ()) if (hit := self.method(host, name))}
        if package:
            hits -= self.auxiliary
        return (hits.pop(), IMPORTED) if len(hits) == 1 else None

    def _macro(self, f: ParsedFile, d: dict, name: str, b: Bindings) -> tuple[str, float] | None:
        """The macro `name!(...)` invokes: one the caller or a function around it defines, else the file's own
        (SCOPE), else the repository's only macro of the name (IMPORTED: an exported macro is the crate's, wherever
        it is defined); none for the standard library's (`println!`) or another crate's (`use anyhow::bail`), never
        a function of the name."""
        scope = d["qualified_name"]
        while scope:
            if (inner := self.file_qn[f.path].get(f"{scope}.{name}")) in self.macro_ids:
                return inner, SCOPE
            scope = scope.rpartition(".")[0]
        if (own := self.file_macros[f.path].get(name)) is not None:
            return own, SCOPE
        if name in f.spec.builtin_functions or name in b.external:
            self.stats["calls_builtin_name" if name in f.spec.builtin_functions else "calls_external"] += 1
            return None
        return self._unique(self.macros, f.spec.group, name, IMPORTED, f.path)

    def _extension(self, spec: LanguageSpec, cls: str, name: str) -> tuple[str, float] | None:
        """An extension method `name` callable on class `cls`: the one that extends `cls` or a base of it
        (VARIABLE), else the only one of the name, which extends a type not ours (`this IEnumerable<T>`)."""
        found = self.extensions[spec.group].get(name)
        if not found:
            return None
        names, c = set(), cls
        for _ in range(5):
            names.add(self.class_name.get(c))
            if not (c := next(iter(self.bases.get(c, ())), None)):
                break
        own = [eid for eid, typ in found if typ in names]
        if len(own) == 1:
            return own[0], VARIABLE
        return (found[0][0], UNIQUE_METHOD) if len(found) == 1 and not own else None

    def held(self, f: ParsedFile, caller: int, typ: str, at: int, depth: int = 0) -> str | None:
        """What a variable of function `caller` holds, from its type as written (`Foo`, `pkg.Foo`, or the
        call it was assigned from: `client.get`) at byte `at` of the file: a class of ours, EXTERNAL (another
        package's object or a built-in value: `open(p)`), or None (not known: a function's result, a built-in type)."""
        if typ.startswith(EACH):  # `for _, cmd := range c.commands`
            return self._element(f, caller, typ[len(EACH):], at, depth) if depth < _VAR_DEPTH else None
        b = self.bindings[f.path]
        head, _, rest = typ.partition(".")
        if head in b.external or typ in b.external:
            return EXTERNAL
        scope = f.facts["defs"][caller]["qualified_name"] if caller != _MODULE else ""
        # a chain of calls is what its last call returns (`_chained`), not the class its text starts with
        chain = f.spec.chained_calls and "(" in typ
        if not chain and (cls := self.find_class(f, typ, scope)) is not None:
            return cls
        if f.spec.open_classes and typ[:1].isupper():  # Ruby's `Rack::Response.new`: every class here is known
            return EXTERNAL
        if (not rest and typ in f.spec.builtin_values and typ not in b.symbols and typ not in self.file_top[f.path]
                and not self.top[f.module_id].get(typ)):
            return EXTERNAL  # `with open(p) as fh`: a built-in value (a name the file neither defines nor imports)
        if (fn := self._callee(f, caller, typ, at, depth)) is not None and fn in self.returns:
            # `app = make_app()` where `def make_app() -> App`, PHP's `$this->getRouter()->m()` where
            # `getRouter(): Router`: what the function declares it returns (before the declared types
            # below: `this.getRouter` is a call, no type)
            return self.declared_class(fn)
        # `$x = $this->make()`, `$x = $y->get()`, `$x = Foo::create()` (PHP): a call, no declared type
        call = rest[:1].islower() and (head in f.spec.self_names or (caller, head) in self.var_types[f.path]
                                       or self.find_class(f, head) is not None)
        if f.spec.declared_types and not call and self.foreign_type(f, typ):  # `String s`, `List<Foo> xs`, `T value`
            return EXTERNAL
        own = head in f.spec.self_names and caller != _MODULE
        if rest and "." not in rest and (own or (caller, head) in self.var_types[f.path]):
            # `r = client.get(...)`: a method of another package's object, or one our class only inherits
            # from another package's base (starlette's `TestClient(httpx.Client)`; a PHPUnit test's
            # `$this->prophesize(...)`), returns another package's object
            obj = self.owner.get(f.def_ids[caller]) if own else self.var_held(f, caller, head, at, depth + 1)
            if obj == EXTERNAL or (obj is not None and self._open(obj) and self.method(obj, rest) is None):
                return EXTERNAL
        return None

    def declared_class(self, fn: str) -> str | None:
        """The class function `fn` declares it returns (`-> App`, `-> Self`), EXTERNAL, or None."""
        path, declared = self.returns[fn]
        if declared in ("Self", "typing.Self", "this", "static", "self"):  # PHP's `: static`, `: self`
            return self.owner.get(fn)
        head = declared.partition(".")[0]
        if head in self.bindings[path].external or declared in self.bindings[path].external:
            return EXTERNAL
        f = self._file[path]
        cls = self.find_class(f, declared)
        if cls is None and f.spec.declared_types and self.foreign_type(f, declared):
            return EXTERNAL  # Java's `Number getAsNumber()`: `getAsNumber().longValue()` is Number's, never a guess
        return cls

    def var_held(self, f: ParsedFile, caller: int, name: str, at: int, depth: int = 0,
                 first: bool = False) -> str | None:
        """What variable `name` of function `caller` holds at byte `at`, as `held` reads each of its bindings
        before `at`: known when they agree (`url = URL(s)`, then `url = url.copy_with(...)` declared `-> URL`;
        a parameter `request: Request` before a later `request = next(flow)`). `first`: a site before every
        binding (in a loop, or a closure's) reads all of them. Each binding is read at its own offset, so a
        lookup only ever goes back in the file: the recursion ends."""
        bindings = self.var_types[f.path].get((caller, name), ())
        before = tuple(i for i, (after, _) in enumerate(bindings) if after < at)
        if not before and first:
            before = tuple(range(len(bindings)))
        elif before and f.spec.shadowing:  # Rust: the last `let` before the site hides the ones before it
            before = before[-1:]
        if not before or depth > _VAR_DEPTH:
            return None
        key = (f.path, caller, name, before)
        if key in self._var_cache:
            return self._var_cache[key]
        got: str | None = None
        for i in before:
            after, typ = bindings[i]
            held = self.held(f, caller, typ, after, depth)
            if held is None or (got is not None and held != got):  # two different things: neither is known
                got = None
                break
            got = held
        self._var_cache[key] = got
        return got

    def _element(self, f: ParsedFile, caller: int, expr: str, at: int, depth: int) -> str | None:
        """What `range expr` yields (Go): the element of the slice `expr` is declared as, a variable's
        (`children []*Command`), a field's (`c.commands`) or a call's result (`c.Commands()`): a class of
        ours, EXTERNAL (`[]*os.File`), or None (not known, not a slice)."""
        declared, where = None, f
        if expr.isidentifier() and (typ := self._written(f, caller, expr, at)) is not None:
            call = None if typ.startswith(("[]", EACH)) else typ
            declared = typ if call is None else None
        elif (made := _constructed(expr, False)) is not None and not made[1]:
            call = made[0]
        elif m := _SELF_ATTRIBUTE.fullmatch(expr):
            call, d = None, f.facts["defs"][caller]
            if m[1] in f.spec.self_names or m[1] == d["self_name"]:
                cls = self.owner.get(f.def_ids[caller])
            else:
                cls = self.var_held(f, caller, m[1], at, depth + 1)
            held = self.attributes[cls].get(m[2], ()) if cls not in (None, EXTERNAL) else ()
            if len(held) == 1:
                path, declared = next(iter(held))
                where = self._file[path]
        else:
            return None
        if call is not None and (fn := self._callee(f, caller, call, at, depth + 1)) in self.returns:
            path, declared = self.returns[fn]
            where = self._file[path]
        if not declared or not declared.startswith("[]"):
            return None
        element = declared[2:].lstrip("*")
        head, dot, _ = element.partition(".")
        if dot and head in self.bindings[where.path].external:
            return EXTERNAL
        return self.find_class(where, element)

    def _written(self, f: ParsedFile, caller: int, name: str, at: int) -> str | None:
        """The type variable `name` of function `caller` is written with before byte `at`, when its bindings
        there write one (`children []*Command`)."""
        typs = {typ for after, typ in self.var_types[f.path].get((caller, name), ()) if after < at}
        return typs.pop() if len(typs) == 1 else None

    def _nested(self, f: ParsedFile, d: dict, name: str) -> str | None:
        """The function `name` defined inside the caller `d` or a function enclosing it, innermost first."""
        scope = d["qualified_name"]
        while scope:
            if (scope, name) in self.nested[f.path]:
                return self.nested[f.path][(scope, name)]
            scope = scope.rpartition(".")[0]
        return None

    def _callee(self, f: ParsedFile, caller: int, typ: str, at: int, depth: int) -> str | None:
        """The function a call written `typ` (`make_app`, `self.make`, `pkg.make`, `client.get`) at byte `at`
        names, by the rules that need no guess: its scope, the file's imports, the class of self or of a
        variable; a variable holding an object of ours is called through its class's `__call__`."""
        b = self.bindings[f.path]
        d = f.facts["defs"][caller] if caller != _MODULE else _MODULE_SCOPE  # a module variable's binding
        recv, _, name = typ.rpartition(".")
        types = self.var_types[f.path]
        if not recv:
            if (caller, name) in types and any(after < at for after, _ in types[(caller, name)]):
                obj = self.var_held(f, caller, name, at, depth + 1)
                hit = self.method(obj, "__call__") if obj not in (None, EXTERNAL) else None
                return hit[0] if hit else None
            if (local := self._nested(f, d, name)) is not None:
                return local
            if name in self.file_top[f.path]:
                return self.file_top[f.path][name]
            if len(same := self.top[f.module_id].get(name, [])) == 1:  # Go: another file of the package
                return same[0]
            return self.exported(*b.symbols[name]) if name in b.symbols else None
        if caller != _MODULE and (recv in f.spec.self_names or recv == d["self_name"]):
            cls = self.owner.get(f.def_ids[caller])
        elif (mid := b.aliases.get(recv)) is not None:
            return self.exported(mid, name)
        elif recv.isidentifier() and (caller, recv) in types:
            cls = self.var_held(f, caller, recv, at, depth + 1)
        elif f.spec.chained_calls and recv.endswith(")") and depth < _VAR_DEPTH:
            cls = self._chained(f, caller, recv, at, depth + 1)
        else:
            cls = self.find_class(f, recv) if recv[:1].isupper() else None  # `Config.load()`
        hit = self.method(cls, name) if cls not in (None, EXTERNAL) else None
        if hit and (labels := self.bind_labels.get(f.path, {}).get(at)) is not None:
            return self._by_labels(hit[0], labels)  # `let r = session.request(.default)`: that overload's result
        return hit[0] if hit else None

    def _chained(self, f: ParsedFile, caller: int, recv: str, at: int, depth: int) -> str | None:
        """The class of a receiver that is itself a call (Kotlin's `Moshi.Builder().add(f).build()`, whose
        `build` is `Builder.build`): the class it constructs (`Moshi.Builder()`, a nested class), or what the
        function it calls declares it returns (`add(...): Builder`)."""
        open_at = _opening(recv)
        inner = recv[:open_at].strip() if open_at is not None else ""
        inner = _TYPE_ARGUMENTS.sub("", inner).strip()  # `moshi.adapter<Foo>(...)`
        if not inner:
            return None
        if inner.rpartition(".")[2][:1].isupper() and (cls := self.find_class(f, inner)) is not None:
            return cls
        fn = self._callee(f, caller, inner, at, depth)
        return self.declared_class(fn) if fn is not None and fn in self.returns else None
    def _by_labels(self, hit: str, call: CallLabels) -> str:
        """The overload of `hit` whose labels the call writes (Swift's `request(_:didCreateTask:)`)."""
        same = self.overload_of.get(hit, ())
        return pick(hit, same, self.params, call) if len(same) > 1 else hit

    def resolve_calls(self) -> None:
        for f in self.files:
            variables = set(f.facts.get("bound_calls", ()))
            labels = {at: (names, closures) for at, names, closures in f.facts.get("call_labels", ())}
            for i, call in enumerate(f.facts["calls"]):
                if call[2] == REF:
                    hit = resolve_reference(self, f, call) if call[3] is not None else None
                    self.stats["refs_resolved" if hit else "refs_unresolved"] += 1
                    if hit:
                        self._edge("CALLS", f.def_ids[call[3]], hit[0], hit[1])
                    continue
                if call[3] is None:
                    self.stats["calls_outside_functions"] += 1
                    continue
                scoped = f.spec.scoped_extensions and call[1] is not None and call[0] in self.extensions[f.spec.group]
                before = self.stats.copy() if scoped else None
                hit = self.resolve_call(f, call, i in variables)
                if hit is None and scoped and (hit := self._scoped_extension(f, call)) is not None:
                    self.stats = before  # resolved after all: not counted under the reason it first failed for
                    self.stats["calls_scoped_extension"] += 1
                if hit is None:
                    self.stats["calls_unresolved"] += 1
                    continue
                self.stats["calls_resolved"] += 1
                if (written := labels.get(call[4])) is not None:
                    hit = (self._by_labels(hit[0], written), hit[1])
                self._edge("CALLS", f.def_ids[call[3]], hit[0], hit[1])
                if hit[0] in self.stubs:
                    impls = self._override_cache.get(hit[0])
                    if impls is None:
                        impls = self._override_cache[hit[0]] = self._overrides(*self.stubs[hit[0]])
                    own_code = f.def_ids[call[3]] not in self.auxiliary
                    for impl in impls:  # the package's own code never runs its tests' subclasses
                        if written is not None:
                            impl = self._by_labels(impl, written)
                            if impl in self.params and not fits(self.params[impl], written):
                                continue  # its class has no overload of these labels: the protocol's default runs
                        if not (own_code and impl in self.auxiliary):
                            self._edge("CALLS", f.def_ids[call[3]], impl, OVERRIDE)

    def _scoped_extension(self, f: ParsedFile, call: tuple) -> tuple[str, float] | None:
        """Kotlin's `type.canonicalize()` where no method of a class here is what the call names (`type` is
        `java.lang.reflect.Type`, or of a type not known): the extension function `fun Type.canonicalize()` the file
        sees (its own, its package's, or imported), as Kotlin resolves it, statically. IMPORTED where the
        receiver's declared type is the one it extends, UNIQUE where that type is not known; none where the
        variable is declared of another type."""
        name, recv, _, caller, _ = call
        found = self._visible_extensions(f, name)
        if len(found) != 1:
            return None
        eid, extended = found[0]
        declared = {_TYPE_NAME.match(t)[0].rpartition(".")[2] for _, t in self.var_types[f.path].get((caller, recv), ())
                    if _TYPE_NAME.match(t)}
        if not declared:
            return eid, UNIQUE
        return (eid, IMPORTED) if extended in declared else None

    def _visible_extensions(self, f: ParsedFile, name: str) -> list[tuple[str, str]]:
        """The extension functions `name` (id, the type each extends) that file `f` sees: its package's (its own
        file's among them), and those it imports by name or with `*`."""
        b = self.bindings[f.path]
        visible = set(self.top[f.module_id].get(name, ()))
        if name in b.symbols:  # every overload of the name the import binds
            mid, symbol = b.symbols[name]
            visible.update(self.top[mid].get(symbol, ()))
        for mid in b.wildcards:
            visible.update(self.top[mid].get(name, ()))
        return [(eid, typ) for eid, typ in self.extensions[f.spec.group][name] if eid in visible]

    def _overrides(self, cls: str, name: str) -> list[str]:
        """Methods `name` of the classes that extend or implement `cls` (four levels down at most)."""
        out, level, seen = [], [cls], {cls}
        for _ in range(4):
            level = [sub for c in level for sub in self.subclasses.get(c, ()) if sub not in seen]
            seen.update(level)
            out.extend(m for sub in level if (m := self.methods[sub].get(name)) is not None)
        return out

    def rows(self, rel: str, src_label: str, dst_label: str) -> list[dict]:
        """One rel type's edges as lake rows, in a stable order."""
        out = []
        for (src, dst), conf in sorted(self.edges[rel].items()):
            row = {"src": src, "dst": dst, "src_label": src_label, "dst_label": dst_label, "repo": self.repo}
            if rel == "CALLS":
                row["confidence"] = conf
            out.append(row)
        return out
