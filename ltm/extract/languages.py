"""The language table: one row per supported language, each with a grammar wheel and a query file.

Adding a language is a query file in `queries/<name>.scm` and a row here (its module naming and
import resolution are functions in `modules.py`, shared by languages of one family).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib import resources

import tree_sitter_c
import tree_sitter_c_sharp
import tree_sitter_cpp
import tree_sitter_go
import tree_sitter_java
import tree_sitter_javascript
import tree_sitter_kotlin
import tree_sitter_php
import tree_sitter_python
import tree_sitter_ruby
import tree_sitter_rust
import tree_sitter_swift
import tree_sitter_typescript
from tree_sitter import Language, Query

from ltm.extract import builtin_names
from ltm.extract import modules as m
from ltm.extract.conditionals import without_conditionals
from ltm.extract.layout import kotlin_constructor_joined
from ltm.extract.macros import without_annotation_macros


@dataclass(frozen=True)
class LanguageSpec:
    """A supported language: extensions, grammar, how it names modules and resolves imports.

    `family` groups languages that share one module namespace (JS and TS import each other;
    C and C++ include each other's headers). `self_names` are receivers meaning "this object";
    `implicit_self` says an unqualified call inside a method may call a sibling method.
    `capitalized_types`: a capitalized name is a type by convention (not in Go, where it is any
    exported name), so `Foo.m()` with no class `Foo` known is a built-in's or another package's.
    `builtin_methods`: method names of the language's built-in types (`builtin_names.py`); `x.m()`
    with `x` of unknown type is not guessed to be the repository's only `m` when `m` is one of them.
    `builtin_functions`: the same for a bare `f()` and the language's built-in functions (`open`).
    `builtin_values`: built-in functions whose result is a built-in value (`x = open(p)`), never an
    object of the repository, so `x.m()` is not guessed either.
    `builtin_objects`: the host's global objects (`document`, `console`, `caches`): `document.querySelector()`
    where the file binds no such name is the host's, never the repository's only `querySelector`.
    `base_receiver`: a pattern for the receiver that names the caller's base class (`super()`).
    `declared_types`: a variable's or field's type is as declared (`String name`), so a type that names no
    class here is the platform's or another package's: `name.length()` is never the repository's only `length`.
    `declared_fields`: a field's type is as declared, though a variable's may be what a call returns (Go's
    struct fields: `flagErrorBuf *bytes.Buffer`), so `c.flagErrorBuf.Len()` is another package's.
    `bare_constructors`: `Foo()` with no `new` may construct a Foo (not in Java or C#, where it is a method).
    `extension_method`: a pattern of a method's signature whose group 1 is the type it extends (C#'s
    `static T M(this C c)`, called as `c.M()`).
    `partial_classes`: one class may be declared in parts across files of its module (C#'s `partial`).
    `bare_super`: `super` alone calls the caller's own method as an ancestor defines it (Ruby), not a constructor.
    `open_classes`: a class or module may be reopened in any file of the repository, and its openings with one
    qualified name are one class (Ruby's `module Sinatra` in every file of the gem); a receiver written as a
    constant path (`Rack::Utils`) that names none of them is another package's.
    `hide_conditionals`: the parser reads `#if`/`#else`/`#endif` lines as blank (`conditionals.py`).
    `hide_macros`: the parser reads C/C++ annotation macros as blank (`macros.py`: `class LEVELDB_EXPORT DB {`,
    `void Get() LOCKS_EXCLUDED(mu_);`), which the grammar would take for a function `DB` or an error.
    `written`: how the language's receivers and type names read in the resolver's dotted form, where they are
    written otherwise (PHP's `$this->router` is `this.router`, `Foo::m()` has receiver `Foo`, `\\A\\B` is `A.B`).
    `qualified_names`: the separator of the language's module names, where a qualified class name names the class
    of that module exactly (PHP's `\\Psr\\Http\\Client\\ClientInterface`), never a class of its last name elsewhere.
    """

    name: str
    extensions: tuple[str, ...]
    grammar: Callable[[], object]
    module_name: Callable[..., str]
    family: str = ""
    resolve_import: Callable[..., list[m.Target]] = m.python_import
    self_names: tuple[str, ...] = ("this",)
    implicit_self: bool = False
    constructors: tuple[str, ...] = ()
    capitalized_types: bool = True
    builtin_methods: frozenset[str] = frozenset()
    builtin_functions: frozenset[str] = frozenset()
    builtin_values: frozenset[str] = frozenset()
    builtin_objects: frozenset[str] = frozenset()
    base_receiver: str = ""
    declared_types: bool = False
    declared_fields: bool = False
    comment_prefixes: tuple[str, ...] = ("//", "/*")
    attribute_prefixes: tuple[str, ...] = ("@",)
    query: str = ""  # the query file's name when another language's file fits this grammar too
    bare_constructors: bool = True
    extension_method: str = ""
    partial_classes: bool = False
    open_classes: bool = False
    bare_super: bool = False
    hide_conditionals: bool = False
    hide_macros: bool = False
    written: Callable[[str], str] | None = None
    qualified_names: str = ""
    # a file's child modules are in scope by their names, and `crate` names its crate's root (Rust: `mod walk;`,
    # then `walk::scan()` and `crate::error::print_error()`)
    child_modules: bool = False
    # a variable's binding hides the ones before it (Rust's `let mut tx = BatchSender::new(tx)` after a parameter
    # `tx: Sender<Batch>`), rather than the bindings before a call site having to agree
    shadowing: bool = False
    # a same-offset rewrite of the text the grammar would misread as written (`layout.py`: Kotlin's primary
    # constructor on the line after the class's name)
    relayout: Callable[[bytes], bytes] | None = None
    # a variable assigned a chain of calls holds what the last call returns, read through each call's class or
    # declared return type (Kotlin's `val moshi = Moshi.Builder().add(f).build()`: a Moshi)
    chained_calls: bool = False
    # an extension function in scope is what `x.m()` calls where no method of a class here is (Kotlin's
    # `fun Type.canonicalize()`, resolved statically by the type it extends: `type.canonicalize()` on a platform type)
    scoped_extensions: bool = False
    # a function's name is overloaded by its argument labels and types, and an import names no symbols (Swift):
    # `print(x)` in a file that imports a module with a `print(_:level:)` is still the language's `print`
    overloads: bool = False
    # an interface's methods with a body are its implementors' (a Swift protocol extension's `func describe()`)
    interface_methods: bool = False

    def parser_text(self, src: bytes) -> bytes:
        """The text the grammar parses: `src` itself, or with conditional directive lines or annotation
        macros blanked, or relaid (same offsets)."""
        text = without_conditionals(src) if self.hide_conditionals else src
        if self.relayout is not None:
            text = self.relayout(text)
        return without_annotation_macros(text) if self.hide_macros else text

    @property
    def query_file(self) -> str:
        return f"{self.query or self.name}.scm"

    @property
    def group(self) -> str:
        return self.family or self.name


_JS = dict(family="js", resolve_import=m.js_import, constructors=("constructor",),
           builtin_methods=builtin_names.JAVASCRIPT_METHODS,
           builtin_functions=builtin_names.JAVASCRIPT_FUNCTIONS, builtin_objects=builtin_names.JAVASCRIPT_OBJECTS,
           base_receiver="super")
_C = dict(family="c", resolve_import=m.c_import, implicit_self=True,
          builtin_functions=builtin_names.C_FUNCTIONS, hide_macros=True)

LANGUAGES: dict[str, LanguageSpec] = {
    spec.name: spec
    for spec in [
        LanguageSpec("python", (".py", ".pyi"), tree_sitter_python.language, m.python_module,
                     self_names=("self", "cls"), constructors=("__init__",), comment_prefixes=(),
                     builtin_methods=builtin_names.PYTHON_METHODS,
                     builtin_functions=builtin_names.PYTHON_FUNCTIONS, builtin_values=builtin_names.PYTHON_VALUES,
                     base_receiver=r"super\(.*\)"),
        LanguageSpec("javascript", (".js", ".jsx", ".mjs", ".cjs"), tree_sitter_javascript.language,
                     m.js_module, **_JS),
        LanguageSpec("typescript", (".ts", ".mts", ".cts"), tree_sitter_typescript.language_typescript,
                     m.js_module, **_JS),
        LanguageSpec("tsx", (".tsx",), tree_sitter_typescript.language_tsx, m.js_module, query="typescript", **_JS),
        LanguageSpec("go", (".go",), tree_sitter_go.language, m.go_module, resolve_import=m.go_import,
                     self_names=(), capitalized_types=False, declared_fields=True, builtin_methods=builtin_names.GO_METHODS,
                     builtin_functions=builtin_names.GO_FUNCTIONS),
        LanguageSpec("java", (".java",), tree_sitter_java.language, m.dotted_module,
                     resolve_import=m.java_import, implicit_self=True, base_receiver="super",
                     declared_types=True, bare_constructors=False),
        LanguageSpec("c_sharp", (".cs",), tree_sitter_c_sharp.language, m.dotted_module,
                     resolve_import=m.csharp_import, implicit_self=True, attribute_prefixes=("[",),
                     base_receiver="base", partial_classes=True, hide_conditionals=True, bare_constructors=False,
                     extension_method=r"\bstatic\b[^(]*\(\s*this\s+([\w.]+)"),
        LanguageSpec("rust", (".rs",), tree_sitter_rust.language, m.rust_module, resolve_import=m.rust_import,
                     self_names=("self", "Self"), constructors=("new",), comment_prefixes=("//",),
                     attribute_prefixes=("#[", "#!["), builtin_methods=builtin_names.RUST_METHODS,
                     builtin_functions=builtin_names.RUST_FUNCTIONS, child_modules=True,
                     shadowing=True),
        LanguageSpec("c", (".c", ".h"), tree_sitter_c.language, m.c_module, **_C),
        LanguageSpec("cpp", (".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx"), tree_sitter_cpp.language,
                     m.c_module, declared_types=True, **_C),
        LanguageSpec("ruby", (".rb",), tree_sitter_ruby.language, m.ruby_module, resolve_import=m.ruby_import,
                     self_names=("self",), implicit_self=True, constructors=("initialize",),
                     comment_prefixes=("#",), attribute_prefixes=(), builtin_methods=builtin_names.RUBY_METHODS,
                     builtin_functions=builtin_names.RUBY_FUNCTIONS, open_classes=True,
                     bare_super=True),
        # Kotlin: one namespace with Java (a package may hold files of both; each imports the other's classes);
        # no `new` (`Foo()` constructs), declared types, sibling methods and top-level functions called bare,
        # a companion object's functions called on the class (`Foo.create()`): the query makes them the class's
        LanguageSpec("kotlin", (".kt", ".kts"), tree_sitter_kotlin.language, m.dotted_module, family="java",
                     resolve_import=m.kotlin_import, implicit_self=True, constructors=("init", "constructor"),
                     base_receiver="super", declared_types=True, builtin_methods=builtin_names.KOTLIN_METHODS,
                     builtin_functions=builtin_names.KOTLIN_FUNCTIONS, written=m.kotlin_written, scoped_extensions=True,
                     relayout=kotlin_constructor_joined, chained_calls=True,
                     extension_method=r"\bfun\s+(?:<[^>]*>\s*)?([\w.]+?)(?:<[^(]*>)?\??\.[\w`]+\s*\("),
        # `language_php` reads a file's `<?php` code with the HTML around it (`language_php_only`: no tags)
        LanguageSpec("php", (".php",), tree_sitter_php.language_php, m.php_module, resolve_import=m.php_import,
                     self_names=("this", "self", "static"), constructors=("__construct",), base_receiver="parent",
                     declared_types=True, bare_constructors=False,
                     attribute_prefixes=("#[",), builtin_methods=builtin_names.PHP_METHODS,
                     builtin_functions=builtin_names.PHP_FUNCTIONS, written=m.php_written,
                     qualified_names="\\"),
        # a module is a SwiftPM target, whose files see each other's names without an import; an extension's
        # methods are its type's; `Foo(...)` calls Foo's `init`
        LanguageSpec("swift", (".swift",), tree_sitter_swift.language, m.swift_module, resolve_import=m.swift_import,
                     self_names=("self", "Self"), implicit_self=True, constructors=("init",), base_receiver="super",
                     comment_prefixes=("//", "/*"), attribute_prefixes=("@",),
                     builtin_methods=builtin_names.SWIFT_METHODS, builtin_functions=builtin_names.SWIFT_FUNCTIONS, overloads=True,
                     interface_methods=True),
    ]
}

_BY_EXTENSION = {ext: spec for spec in LANGUAGES.values() for ext in spec.extensions}


def language_for(path: str) -> LanguageSpec | None:
    """The language of a path by its extension, or None."""
    name = path[path.rfind("/") + 1 :]
    dot = name.rfind(".")  # as PurePosixPath.suffix: none for ".bashrc" or "a."
    return _BY_EXTENSION.get(name[dot:].lower()) if 0 < dot < len(name) - 1 else None


# What only C++ writes (GitHub linguist's rule for a `.h` file): a standard C++ header, a template, a
# class or namespace opening a line, an access label, `std::`.
_CPP_TEXT = re.compile(
    rb"^[ \t]*#[ \t]*include[ \t]*<(?:cstdint|cstddef|cstdio|cstdlib|cstring|string|vector|map|set|list|array|memory"
    rb"|utility|algorithm|atomic|mutex|thread|functional|bitset|deque|queue|stack|unordered_map|unordered_set"
    rb"|i?o?stream|sstream)>"
    rb"|^[ \t]*template[ \t]*<|^[ \t]*(?:class|(?:using[ \t]+)?namespace)[ \t]+\w+"
    rb"|^[ \t]*(?:public|private|protected)[ \t]*:|\bstd::\w", re.M)


def read_as(spec: LanguageSpec, src: bytes) -> LanguageSpec:
    """The language a file's text is parsed in: a `.h` header written in C++ (a class, a namespace,
    a template, `std::`) is C++, not C; every other file is the language of its extension."""
    return LANGUAGES["cpp"] if spec.name == "c" and _CPP_TEXT.search(src) else spec


@cache
def ts_language(name: str) -> Language:
    """The tree-sitter Language of a supported language (loaded once per process)."""
    return Language(LANGUAGES[name].grammar())


@cache
def query_text(name: str) -> bytes:
    """The entity query source of a language: `queries/<name>.scm` (TSX shares TypeScript's)."""
    return resources.files("ltm.extract").joinpath("queries", LANGUAGES[name].query_file).read_bytes()


@cache
def ts_query(name: str) -> Query:
    """The compiled entity query of a language (compiled against the language's own grammar)."""
    return Query(ts_language(name), query_text(name).decode("utf-8"))
