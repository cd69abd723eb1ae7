"""How each language names its modules, and which module an import statement names.

A module is what the language calls one: a Python dotted module, a JS/TS file, a Go package
(its import path), a Java package, a C# namespace, a Rust module path, a C/C++ header and its
source (path without extension), a Ruby require path, a PHP file's class name (namespace and file). An import resolves to a module of the
repository (the longest known prefix) or else to an external package, named as its ecosystem
names it (`numpy`, `@scope/pkg`, `github.com/x/y`, `java.util`, `serde`, `<stdio.h>`, `json`).
"""

from __future__ import annotations

import json
import posixpath
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from ltm.code_paths import is_auxiliary


@dataclass(frozen=True)
class Target:
    """What one import names: a module (internal or external) and the symbol bound, if any."""

    module: str
    internal: bool
    symbol: str | None = None
    alias: str | None = None
    package: bool = False  # named by a package of the workspace (`zod/mini`), not by a path


@dataclass(frozen=True)
class JsPackage:
    """A package.json of the repository: its folder, and the files its `exports` name per subpath."""

    folder: str
    exports: dict[str, tuple[str, ...]]


def js_package(package_json: bytes, folder: str) -> tuple[str, JsPackage] | None:
    """The name and the package a package.json declares; None without a name or when it does not parse."""
    try:
        manifest = json.loads(package_json)
    except (UnicodeDecodeError, ValueError):
        return None
    name = manifest.get("name") if isinstance(manifest, dict) else None
    if not isinstance(name, str) or not name:
        return None
    exports: dict[str, list[str]] = {}
    entry = manifest.get("exports")
    if isinstance(entry, str) or (isinstance(entry, dict) and not any(k.startswith(".") for k in entry)):
        entry = {".": entry}  # conditions only, or one file: the package's own entry
    for sub, target in (entry.items() if isinstance(entry, dict) else ()):
        exports[sub] = _leaves(target)
    for key in ("source", "module", "main"):  # the entry of a package without `exports`
        if isinstance(manifest.get(key), str):
            exports.setdefault(".", []).append(manifest[key])
    return name, JsPackage(folder, {k: tuple(v) for k, v in exports.items()})


def _leaves(target: object) -> list[str]:
    """The file paths in an `exports` value (a path, a list, or conditions nested to any depth)."""
    if isinstance(target, str):
        return [target]
    if isinstance(target, list):
        return [p for t in target for p in _leaves(t)]
    if isinstance(target, dict):
        return [p for t in target.values() for p in _leaves(t)]
    return []


@dataclass
class RepoContext:
    """Repository facts module naming needs: Go module paths by directory (from go.mod), the names
    other crates `use` a workspace member's crate by, by its directory (from Cargo.toml), and the
    JS/TS packages of a workspace (from package.json), so `import "zod/mini"` reaches its source."""

    go_modules: dict[str, str]
    rust_crates: dict[str, str] = field(default_factory=dict)  # a crate's source folder -> its name
    js_packages: dict[str, JsPackage] = field(default_factory=dict)  # by the name its package.json gives
    # PHP: the namespace prefix composer.json's `autoload` / `autoload-dev` `psr-4` maps to each folder
    php_namespaces: dict[str, str] = field(default_factory=dict)
    # Swift: the folder of each target a Package.swift declares -> the target's name (its module)
    swift_targets: dict[str, str] = field(default_factory=dict)
    paths: dict[str, str] = field(default_factory=dict)  # each parsed file's module name, once all are named
    namespaces: dict[str, list[str]] | None = None  # PHP: the modules of each namespace (`php_import`)
    tops: dict[str, set[str]] = field(default_factory=dict)  # the names each module defines at its top level

    def go_module_for(self, directory: str) -> tuple[str, str] | None:
        d = directory
        while True:
            if d in self.go_modules:
                return d, self.go_modules[d]
            if d in ("", "."):
                return None
            d = posixpath.dirname(d)


_GO_MODULE = re.compile(rb"^\s*module\s+(\S+)", re.M)
_USE_SPACE = re.compile(r"\s*(::|[{},])\s*")


def go_module_path(gomod: bytes) -> str | None:
    """The module path declared in a go.mod file."""
    m = _GO_MODULE.search(gomod)
    return m.group(1).decode("utf-8", errors="replace").strip('"') if m else None


def rust_crates(cargo_toml: bytes, folder: str) -> dict[str, str]:
    """The crates a Cargo.toml in `folder` declares, by the folder of their sources: a workspace
    member's `src/` crate by the name other crates `use` it by (`[lib] name`, else `[package] name`,
    `-` as `_`: `grep-searcher` is `grep_searcher`; the root's stays `crate`), and a `[lib]` or
    `[[bin]]` whose `path` lies outside a `src/` folder (ripgrep's `crates/core/main.rs`: `crate`).
    Nothing for a manifest that does not parse."""
    try:
        manifest = tomllib.loads(cargo_toml.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}
    lib, package = manifest.get("lib"), manifest.get("package")
    lib = lib if isinstance(lib, dict) else {}
    name = lib.get("name") or (package.get("name") if isinstance(package, dict) else None)
    name = name.replace("-", "_") if isinstance(name, str) and name else None
    out = {folder: name} if folder and name else {}
    bins = manifest.get("bin")
    for target, crate in [(lib, name), *((b, "crate") for b in (bins if isinstance(bins, list) else ()))]:
        path = target.get("path") if isinstance(target, dict) else None
        if isinstance(path, str) and crate:
            root = posixpath.normpath(posixpath.join(folder, posixpath.dirname(path)))
            if root != "." and not root.startswith("..") and posixpath.basename(root) != "src":
                out[root] = crate
    return out


def php_namespaces(composer_json: bytes, folder: str) -> dict[str, str]:
    """The folders a composer.json in `folder` maps to namespace prefixes (`autoload` and `autoload-dev`,
    `psr-4`: `{"Slim\\": "Slim"}` -> `{"Slim": "Slim"}`); nothing for a manifest that does not parse."""
    try:
        manifest = json.loads(composer_json)
    except (UnicodeDecodeError, ValueError):
        return {}
    out: dict[str, str] = {}
    for key in ("autoload", "autoload-dev"):
        section = manifest.get(key) if isinstance(manifest, dict) else None
        psr4 = section.get("psr-4") if isinstance(section, dict) else None
        for prefix, dirs in (psr4.items() if isinstance(psr4, dict) else ()):
            for d in [dirs] if isinstance(dirs, str) else (dirs if isinstance(dirs, list) else ()):
                if isinstance(d, str):
                    root = posixpath.normpath(posixpath.join(folder, d)) if d.strip("./") else (folder or ".")
                    out.setdefault(root, prefix.strip("\\"))
    return out


_SWIFT_TARGET = re.compile(rb"\.(target|testTarget|executableTarget|macro|plugin)\s*\(\s*name\s*:\s*\"([^\"]+)\"")
_SWIFT_PATH = re.compile(rb"\bpath\s*:\s*\"([^\"]*)\"")


def swift_targets(package_swift: bytes, folder: str) -> dict[str, str]:
    """The folders of the targets a Package.swift in `folder` declares, by the target's name: its `path:`, else
    SwiftPM's default (`Sources/<name>`, `Tests/<name>` for a test target, `Plugins/<name>` for a plugin).
    Read with a pattern, not run: a manifest that computes its targets gives what it writes literally."""
    out: dict[str, str] = {}
    found = list(_SWIFT_TARGET.finditer(package_swift))
    for i, m in enumerate(found):
        kind, name = m[1].decode(), m[2].decode("utf-8", "replace")
        # the target's own arguments: up to the next target's declaration
        end = found[i + 1].start() if i + 1 < len(found) else len(package_swift)
        given = _SWIFT_PATH.search(package_swift, m.end(), end)
        default = {"testTarget": "Tests", "plugin": "Plugins"}.get(kind, "Sources") + "/" + name
        sub = given[1].decode("utf-8", "replace").strip("/") if given else default
        out[posixpath.normpath(posixpath.join(folder, sub)) if sub and sub != "." else (folder or ".")] = name
    return out


def _stem(path: str) -> str:
    p = PurePosixPath(path)
    return str(p.with_suffix("")) if p.name else path


def python_module(path: str, declared: str | None = None, ctx: RepoContext | None = None) -> str:
    """`pkg/sub/mod.py` -> `pkg.sub.mod`; `pkg/__init__.py` -> `pkg`; `src/` prefixes dropped."""
    p = PurePosixPath(path)
    parts = list(p.with_suffix("").parts)
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    if parts and parts[0] in ("src", "lib") and len(parts) > 1:
        parts = parts[1:]
    return ".".join(parts) or p.stem


def js_module(path: str, declared: str | None = None, ctx: RepoContext | None = None) -> str:
    """`src/a/b.ts` -> `src/a/b`; `src/a/index.js` -> `src/a`."""
    stem = _stem(path)
    if stem.endswith(".d"):
        stem = stem[:-2]
    return stem[: -len("/index")] if stem.endswith("/index") else stem


def go_module(path: str, declared: str | None = None, ctx: RepoContext | None = None) -> str:
    """A Go package is its directory, named by its import path when a go.mod declares one."""
    directory = posixpath.dirname(path)
    found = ctx.go_module_for(directory) if ctx else None
    if found is None:
        return directory or (declared or "main")
    root, mod = found
    rel = posixpath.relpath(directory or ".", root or ".")
    return mod if rel == "." else f"{mod}/{rel}"


def dotted_module(path: str, declared: str | None = None, ctx: RepoContext | None = None) -> str:
    """Java packages and C# namespaces: as declared, else the directory in dots."""
    if declared:
        return re.sub(r"\s+", "", declared)
    return posixpath.dirname(path).replace("/", ".") or _stem(path)


_CARGO_TARGET_FOLDERS = ("tests", "benches", "examples")


def rust_module(path: str, declared: str | None = None, ctx: RepoContext | None = None) -> str:
    """`src/a/b.rs` -> `crate::a::b` (`lib.rs`, `main.rs`, `mod.rs` name their folder); a crate
    in a workspace folder `x/src/...` is named as other crates `use` it (its Cargo.toml: ripgrep's
    `crates/searcher/` is `grep_searcher::...`), else by its folder, `x::...`; a crate a Cargo.toml
    roots outside a `src/` folder is named from that folder (`rust_crates`); the integration tests, benches and
    examples beside the root's `src/` are crates named by their folder (`tests/testenv/mod.rs`: `tests::testenv`)."""
    parts = list(PurePosixPath(path).with_suffix("").parts)
    roots = ctx.rust_crates if ctx is not None else {}
    # the innermost crate folder holding the file, unless through its `src/`: a crate whose sources a
    # Cargo.toml puts outside `src/` (`crates/core/main.rs`: `crates/core/flags/defs.rs` is `crate::flags::defs`)
    outside = next((k for k in range(len(parts) - 1, 0, -1) if "/".join(parts[:k]) in roots), None)
    if outside is not None and parts[outside] != "src" and "src" not in parts[:outside]:
        crate, rest = roots["/".join(parts[:outside])], parts[outside:]
    elif "src" in parts:
        i = parts.index("src")
        crate = parts[i - 1] if i > 0 else "crate"
        if i > 0:
            crate = roots.get("/".join(parts[:i]), crate)
        rest = parts[i + 1 :]
    elif len(parts) > 1 and parts[0] in _CARGO_TARGET_FOLDERS:
        # `tests/cli.rs` is a crate of its own (Cargo's integration tests, benches, examples), whose `crate::testenv`
        # is `tests/testenv/mod.rs`, never the library's module of that name
        crate, rest = parts[0], parts[1:]
    else:
        crate, rest = "crate", parts
    if rest and rest[-1] in ("mod", "lib", "main"):
        rest = rest[:-1]
    return "::".join([crate, *rest])


def c_module(path: str, declared: str | None = None, ctx: RepoContext | None = None) -> str:
    """A header and its source are one module: the path without extension."""
    return _stem(path)


def ruby_module(path: str, declared: str | None = None, ctx: RepoContext | None = None) -> str:
    """The require path: `lib/a/b.rb` -> `a/b`; a gem of a monorepo has its own `lib` on the load path,
    `rack-protection/lib/rack/protection.rb` -> `rack/protection`; a test's path stays whole
    (`spec/lib/rack/x_spec.rb`)."""
    stem = _stem(path)
    if stem.startswith("lib/"):
        return stem[4:]
    gem, sep, rest = stem.partition("/lib/")
    return rest if sep and "/" not in gem and not is_auxiliary(gem + "/") else stem


def php_module(path: str, declared: str | None = None, ctx: RepoContext | None = None) -> str:
    """A PHP file is named as the class it holds by convention (PSR-4): its namespace and its file name,
    `Slim\\Routing\\RouteCollector` for `Slim/Routing/RouteCollector.php`. The namespace is the one the file
    declares, else the one composer.json's `psr-4` map gives its folder; a file of neither is its path."""
    stem = posixpath.basename(_stem(path))
    if declared:
        return f"{declared.strip().strip(chr(92))}\\{stem}"
    folder = posixpath.dirname(path)
    roots = ctx.php_namespaces if ctx is not None else {}
    d = folder
    while True:
        if d in roots or (d == "" and "." in roots):
            prefix, rel = roots[d or "."], posixpath.relpath(folder or ".", d or ".")
            parts = [p for p in [prefix, *([] if rel == "." else rel.split("/")), stem] if p]
            return "\\".join(parts)
        if d in ("", "."):
            return _stem(path)
        d = posixpath.dirname(d)


_PHP_MEMBER = re.compile(r"\s*(?:\??->|::)\s*|\\")


_SWIFT_FOLDERS = ("Sources", "Tests", "Plugins")


def swift_module(path: str, declared: str | None = None, ctx: RepoContext | None = None) -> str:
    """A Swift module is its target, whose files share one namespace: the innermost folder a Package.swift names
    (Alamofire's `path: "Source"` is target `Alamofire`), else SwiftPM's layout (`Sources/<Target>/...`,
    `Tests/<Target>/...`), else the top folder (an Xcode project's target folder, `Example/...`), else `main`."""
    parts = PurePosixPath(path).parts[:-1]
    targets = ctx.swift_targets if ctx is not None else {}
    for k in range(len(parts), 0, -1):
        if (name := targets.get("/".join(parts[:k]))) is not None:
            return name
    for i, part in enumerate(parts[:-1]):
        if part in _SWIFT_FOLDERS:
            return parts[i + 1]
    if len(parts) > 0 and (name := targets.get(".")) is not None:
        return name
    return parts[0] if parts else "main"


def swift_import(imp: dict, path: str, module: str, known: set[str], ctx: RepoContext | None = None) -> list[Target]:
    """`import Alamofire` (or `@testable import`) names a target of the repository, whose every public name the
    file then sees; `import Foundation`, `import struct Foo.Bar` name another package's module (`Foundation`, `Foo`)."""
    raw = imp["module"].strip().split(".")[0]
    return [Target(raw, raw in known)]


def php_written(text: str) -> str:
    """A PHP receiver or type as the resolver reads names, dotted and without `$`: `$this->router` ->
    `this.router`, `self` -> `self`, `\\Slim\\App` -> `Slim.App`, `(new Foo($a))` -> `new Foo(a)`."""
    if text[:1] == "(" and text[-1:] == ")":
        text = text[1:-1]
    return _PHP_MEMBER.sub(".", text.replace("$", "")).lstrip(".").lstrip("?")


# ---- imports -> modules -------------------------------------------------------------------


def _longest_known(parts: list[str], sep: str, known: set[str]) -> tuple[str, list[str]] | None:
    for i in range(len(parts), 0, -1):
        name = sep.join(parts[:i])
        if name in known:
            return name, parts[i:]
    return None


def python_import(imp: dict, path: str, module: str, known: set[str], ctx: RepoContext | None = None) -> list[Target]:
    raw, name, alias = imp["module"], imp["name"], imp["alias"]
    if raw.startswith("."):  # relative: against this module's package
        dots = len(raw) - len(raw.lstrip("."))
        package = module.split(".") if path.endswith("__init__.py") else module.split(".")[:-1]
        base = package[: len(package) - (dots - 1)] if dots > 1 else package
        raw = ".".join([*base, raw.lstrip(".")]).strip(".")
    if name == "*":  # `from pkg import *`: every public name of pkg is visible here
        hit = _longest_known(raw.split("."), ".", known)
        return [Target(hit[0], True, None, None) if hit else Target(raw.split(".")[0], False, None, None)]
    if name and f"{raw}.{name}" in known:  # `from pkg import mod`: the module itself
        return [Target(f"{raw}.{name}", True, None, alias or name)]
    hit = _longest_known(raw.split("."), ".", known)
    if hit:
        top = raw.split(".")[0]
        if name or alias or top == hit[0] or top not in known:
            return [Target(hit[0], True, name, alias or (None if name else raw))]
        # `import click.utils` binds `click` too: `click.echo()` is the package's `echo`
        return [Target(hit[0], True, None, raw), Target(top, True, None, top)]
    return [Target(raw.split(".")[0], False, name, alias or (None if name else raw))]


def js_import(imp: dict, path: str, module: str, known: set[str], ctx: RepoContext | None = None) -> list[Target]:
    raw = imp["module"]
    if raw.startswith("."):
        joined = posixpath.normpath(posixpath.join(posixpath.dirname(path), raw))
        for cand in (joined, _stem(joined), js_module(joined + ".js")):
            if cand in known:
                return [Target(cand, True, imp["name"], imp["alias"] or imp["name"])]
        return [Target(joined, True, imp["name"], imp["alias"] or imp["name"])]
    bare = raw.removeprefix("node:")
    pkg = "/".join(bare.split("/")[:2]) if bare.startswith("@") else bare.split("/")[0]
    own = ctx.js_packages.get(pkg) if ctx is not None else None
    if own is not None:  # a package of this workspace: `zod/mini` is a module of packages/zod
        found = _workspace_module(own, bare[len(pkg):].lstrip("/"), known)
        if found is not None:
            return [Target(found, True, imp["name"], imp["alias"] or imp["name"], package=True)]
    return [Target(pkg, False, imp["name"], imp["alias"] or imp["name"])]


def _workspace_module(package: JsPackage, sub: str, known: set[str]) -> str | None:
    """The module of the repository a package's subpath names: a file its `exports` give for the
    subpath (a source `.ts` ahead of a built `.js` that is not in the repository), else the
    subpath in the package's folder, its `src/` or `lib/`."""
    inside = package.folder or "."
    targets = package.exports.get("./" + sub if sub else ".", ())
    candidates = [posixpath.normpath(posixpath.join(inside, t)) for t in targets]
    candidates += [posixpath.normpath(posixpath.join(inside, root, sub)) for root in ("", "src", "lib")]
    for cand in candidates:
        for name in (cand, _stem(cand), js_module(cand + ".js")):
            if name in known:
                return name
    return None


def go_import(imp: dict, path: str, module: str, known: set[str], ctx: RepoContext | None = None) -> list[Target]:
    raw = imp["module"].strip('"`')
    alias = imp["alias"] if imp["alias"] not in (None, "_", ".") else raw.rsplit("/", 1)[-1]
    return [Target(raw, raw in known, None, alias)]


def java_import(imp: dict, path: str, module: str, known: set[str], ctx: RepoContext | None = None) -> list[Target]:
    raw, member = imp["module"].strip(), None
    if imp.get("kind") == "static" and imp.get("name") is None:  # `java.util.Objects.requireNonNull`: a member
        raw, _, member = raw.rpartition(".")
    if raw in known:
        return [Target(raw, True)]
    parts = raw.split(".")
    hit = _longest_known(parts, ".", known)
    if hit:
        return [Target(hit[0], True, hit[1][0] if hit[1] else None, hit[1][0] if hit[1] else None)]
    while len(parts) > 1 and parts[-1][:1].isupper():
        parts = parts[:-1]
    wildcard = imp.get("name") == "*" and imp.get("kind") != "static"  # `import java.util.*`: no one name
    symbol = member or (None if wildcard else raw.rsplit(".", 1)[-1])
    return [Target(".".join(parts), False, symbol, None)]


def kotlin_import(imp: dict, path: str, module: str, known: set[str], ctx: RepoContext | None = None) -> list[Target]:
    """Kotlin's `import a.b.C`, `import a.b.foo` (a top-level function or property), `import a.b.C as D` and
    `import a.b.*`: a package of ours by its longest known prefix, as Java's; another package's is the package
    before the name (a Kotlin package is never imported by itself: `import kotlinx.coroutines.launch` is
    package `kotlinx.coroutines`), before any class in it (`a.Outer.Inner`)."""
    raw, alias = imp["module"].strip(), imp["alias"]
    if imp.get("name") == "*" or _longest_known(raw.split("."), ".", known):
        return [Target(t.module, t.internal, t.symbol, alias or t.alias) for t in java_import(imp, path, module, known)]
    parts = raw.split(".")
    symbol = parts.pop() if len(parts) > 1 else None
    while len(parts) > 1 and parts[-1][:1].isupper():
        parts.pop()
    return [Target(".".join(parts), False, symbol, alias)]


_KOTLIN_NULL_SAFE = re.compile(r"!!|\?(?=\.|$)")


def kotlin_written(text: str) -> str:
    """A Kotlin receiver or type as the resolver reads names: `a?.b!!` -> `a.b`, `Foo?` -> `Foo` (null-safety
    marks say nothing of the class an object is)."""
    return _KOTLIN_NULL_SAFE.sub("", text)


def csharp_import(imp: dict, path: str, module: str, known: set[str], ctx: RepoContext | None = None) -> list[Target]:
    raw = re.sub(r"\s+", "", imp["module"])
    if raw not in known and imp["alias"]:  # `using Check = Acme.Testing.Checks;`: a type of one of our namespaces
        namespace, _, name = raw.rpartition(".")
        if namespace in known:
            return [Target(namespace, True, name, imp["alias"])]
    return [Target(raw, raw in known, None, imp["alias"])]


def _expand_use(text: str) -> list[tuple[str, str | None]]:
    """`a::{b, c::d as e}` -> [(a::b, None), (a::c::d, e)]."""
    words = text.split()
    if len(words) == 1 and "{" not in text:  # most uses: one plain path
        return [(words[0], None)]
    text = _USE_SPACE.sub(r"\1", " ".join(words))
    if "{" not in text:
        path, _, alias = text.partition(" as ")
        return [(path.strip(), alias.strip() or None)]
    i = text.index("{")
    prefix, inner = text[:i], text[i + 1 : text.rindex("}")]
    items, depth, cur = [], 0, ""
    for ch in inner + ",":
        if ch == "," and depth == 0:
            if cur:
                items.append(cur)
            cur = ""
            continue
        depth += (ch == "{") - (ch == "}")
        cur += ch
    out = []
    for item in items:
        out.extend((prefix + p if p != "self" else prefix.rstrip(":"), a) for p, a in _expand_use(item))
    return out


def rust_import(imp: dict, path: str, module: str, known: set[str], ctx: RepoContext | None = None) -> list[Target]:
    crate = module.split("::")[0]
    if imp.get("kind") == "mod":  # `mod walk;`: the child module's file, when the repository has it
        child = "::".join([*module.split("::"), *(imp.get("scope") or ()), imp["module"]])
        return [Target(child, True, None, imp["module"])] if child in known else []
    targets = []
    for full, alias in _expand_use(imp["module"]):
        parts = [p for p in full.split("::") if p]
        if not parts:
            continue
        if parts[0] == "crate":
            parts[0] = crate
        elif parts[0] in ("self", "super"):
            base = module.split("::") + list(imp.get("scope") or ())  # inside `mod tests { ... }`: its own path
            while parts and parts[0] in ("self", "super"):
                if parts.pop(0) == "super":
                    base = base[:-1] or base
            parts = base + parts
        elif f"{module}::{parts[0]}" in known or parts[0][:1].isupper():
            # Rust 2018 reads a path from the current module first: a child module (`mod walk;` then
            # `use walk::scan;`) or an item of its own (`use Token::*` of the enum it defines)
            parts = module.split("::") + parts
        hit = _longest_known(parts, "::", known)
        if hit and hit[0] == module:
            continue  # `use super::*` in `mod tests { ... }`, `use Token::*`: the module's own names, no import
        if hit and hit[1] == ["*"]:  # `use super::*`: every name of the module is visible here
            targets.append(Target(hit[0], True))
        elif hit:
            symbol = hit[1][0] if hit[1] else None
            targets.append(Target(hit[0], True, symbol, alias or symbol or hit[0].rsplit("::", 1)[-1]))
        else:
            targets.append(Target(parts[0], False, parts[-1] if len(parts) > 1 else None, alias))
    return targets


def c_import(imp: dict, path: str, module: str, known: set[str], ctx: RepoContext | None = None) -> list[Target]:
    raw = imp["module"]
    header = raw.strip('"<>')
    if raw.startswith('"'):
        local = _stem(posixpath.normpath(posixpath.join(posixpath.dirname(path), header)))
        if local in known:
            return [Target(local, True)]
    stem = _stem(header)
    suffix = [m for m in known if m == stem or m.endswith("/" + stem)]
    if len(suffix) == 1:
        return [Target(suffix[0], True)]
    return [Target(raw if raw.startswith("<") else header, False)]


def ruby_import(imp: dict, path: str, module: str, known: set[str], ctx: RepoContext | None = None) -> list[Target]:
    raw = imp["module"]
    if imp.get("kind") == "require_relative":
        rel = posixpath.normpath(posixpath.join(posixpath.dirname(path), raw))
        return [Target(ruby_module(rel + ".rb"), True)]
    if raw in known:
        return [Target(raw, True)]
    if is_auxiliary(path):  # a spec's or test's own folder is on its load path: `require 'okjson'` beside it
        local = ruby_module(posixpath.join(posixpath.dirname(path), raw) + ".rb")
        if local in known:
            return [Target(local, True)]
    return [Target(raw.split("/")[0], False)]


def php_import(imp: dict, path: str, module: str, known: set[str], ctx: RepoContext | None = None) -> list[Target]:
    """`use A\\B\\C [as D];` -> the module named `A\\B\\C` (the file that holds class C), symbol C; `use function
    A\\f;` (or a class in a file of another name) -> the module of namespace `A` that defines `f`; `require 'x.php'`
    -> that file's module. A name in no namespace of the repository, or under a psr-4 prefix of composer.json with no
    file where psr-4 puts it, is another package's (`Psr\\Http\\Message`; guzzle's `GuzzleHttp\\Psr7`)."""
    raw, kind = imp["module"].strip().strip("\\"), imp.get("kind") or ""
    if kind.startswith(("require", "include")):
        rel = posixpath.normpath(posixpath.join(posixpath.dirname(path), raw.lstrip("/") if raw.startswith("/") else raw))
        found = (ctx.paths if ctx is not None else {}).get(rel)
        return [Target(found, True)] if found is not None else []
    full = f"{raw}\\{imp['name'].strip().strip(chr(92))}" if imp.get("name") else raw
    namespace, _, symbol = full.rpartition("\\")
    alias = imp.get("alias") or symbol
    if full in known and kind != "function":
        return [Target(full, True, symbol, alias)]
    # `use function A\\f;`, or a class in a file of another name: the module of the namespace that defines it
    tops = ctx.tops if ctx is not None else {}
    found = sorted(m for m in _php_namespaces(known, ctx).get(namespace, ()) if symbol in tops.get(m, ()))
    if found:
        return [Target(found[0], True, symbol, alias)]
    if _php_ours(full, known, ctx):  # a namespace of ours, yet no file of that name: counted unresolved
        return [Target(full, True, symbol, alias)]
    # `use RuntimeException;`, `use function count;`: a name of PHP's global namespace, the language's own
    return [Target(namespace or "php", False, symbol, alias)]


def _php_ours(full: str, known: set[str], ctx: RepoContext | None) -> bool:
    """Whether a class name no file is named for is still the repository's: under none of composer.json's
    psr-4 prefixes (where psr-4 says which file would hold it: guzzle's `GuzzleHttp\\Psr7\\Request` is
    guzzlehttp/psr7's, though `GuzzleHttp\\` is guzzle's prefix) and in a namespace a file here declares."""
    namespaces = _php_namespaces(known, ctx)
    if full in namespaces:  # `use GuzzleHttp\\Handler;`, then `new Handler\\CurlFactory()`: a namespace of ours
        return True
    if ctx is not None and any(full.startswith(prefix + "\\") for prefix in ctx.php_namespaces.values()):
        return False
    return full.rpartition("\\")[0] in namespaces


def _php_namespaces(known: set[str], ctx: RepoContext | None) -> dict[str, list[str]]:
    """The repository's modules by their namespace (kept on `ctx`: one pass over the modules per repository)."""
    if ctx is not None and ctx.namespaces is not None:
        return ctx.namespaces
    out: dict[str, list[str]] = {}
    for name in known:
        if "\\" in name:
            out.setdefault(name.rpartition("\\")[0], []).append(name)
    if ctx is not None:
        ctx.namespaces = out
    return out
