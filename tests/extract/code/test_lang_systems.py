"""Go, Rust, C and C++ fixture projects: entities and edges, written from the source."""

from ltm.extract.history.spans import spans_of
from ltm.extract.languages import LANGUAGES
from tests.extract.graphs import assert_graph, confidences, extract, graph

GO = {
    "go.mod": "module example.com/shapes\n\ngo 1.22\n",
    "geo/base.go": '''package geo

import "fmt"

// Base names things.
type Base struct{ name string }

// Name returns the name.
func (b *Base) Name() string { return b.name }

func Describe(x string) string { return fmt.Sprintf("%s", x) }
''',
    "geo/circle.go": '''package geo

// Shape has an area.
type Shape interface{ Area() float64 }

type Circle struct {
	Base
	R float64
}

func (c *Circle) Area() float64 { return c.R * c.R }

func (c *Circle) Label() string { return Describe(c.Name()) + helper() }

func helper() string { return "" }
''',
    "main.go": '''package main

import (
	"example.com/shapes/geo"
	str "strings"
)

func main() {
	c := &geo.Circle{R: 1}
	println(str.ToUpper(c.Label()), geo.Describe("x"))
}
''',
}


def test_go_graph(tmp_path):
    out = extract(tmp_path, GO)
    b, c, geo = "fn:geo/base.go:", "fn:geo/circle.go:", "mod:example.com/shapes/geo"
    assert_graph(out, {
        "classes": {"cls:geo/base.go:Base", "cls:geo/circle.go:Shape", "cls:geo/circle.go:Circle"},
        "functions": {b + "Base.Name", b + "Describe", c + "Circle.Area", c + "Circle.Label", c + "helper",
                      "fn:main.go:main"},
        "modules": {geo, "mod:example.com/shapes", "ext:fmt", "ext:strings"},
        "HAS_METHOD": {("cls:geo/base.go:Base", b + "Base.Name"), ("cls:geo/circle.go:Circle", c + "Circle.Area"),
                       ("cls:geo/circle.go:Circle", c + "Circle.Label")},
        "IMPORTS": {("file:geo/base.go", "ext:fmt"), ("file:main.go", geo), ("file:main.go", "ext:strings")},
        "DEPENDS_ON": {(geo, "ext:fmt"), ("mod:example.com/shapes", geo), ("mod:example.com/shapes", "ext:strings")},
        "EXTENDS": {("cls:geo/circle.go:Circle", "cls:geo/base.go:Base")},  # struct embedding
        "IMPLEMENTS": {("cls:geo/circle.go:Circle", "cls:geo/circle.go:Shape")},  # it has Area(), never says so
        "CALLS": {(c + "Circle.Label", b + "Describe"), (c + "Circle.Label", b + "Base.Name"),
                  (c + "Circle.Label", c + "helper"), ("fn:main.go:main", c + "Circle.Label"),
                  ("fn:main.go:main", b + "Describe")},
    })
    conf = confidences(out)
    assert conf[(c + "Circle.Label", c + "helper")] == 1.0
    assert conf[("fn:main.go:main", b + "Describe")] == 0.9  # through the package import
    assert conf[("fn:main.go:main", c + "Circle.Label")] == 0.8  # `c := &geo.Circle{...}`: the variable's class
    docs = {r["qualified_name"]: r["docstring"] for r in out.tables["Class"] + out.tables["Function"]}
    assert docs["Base"] == "Base names things." and docs["Base.Name"] == "Name returns the name."
    assert docs["Circle"] is None


RUST = {
    "Cargo.toml": '[package]\nname = "shapes"\n',
    "src/lib.rs": "pub mod shapes;\npub mod util;\n",
    "src/util.rs": "/// Doubles a number.\npub fn twice(x: f64) -> f64 { x * 2.0 }\n",
    "src/shapes.rs": '''use crate::util::twice;
use std::fmt;

/// Anything with an area.
pub trait Shape: fmt::Debug {
    fn area(&self) -> f64;
}

#[derive(Debug)]
pub struct Circle { r: f64 }

impl Circle {
    pub fn new(r: f64) -> Self { Circle { r } }
    fn scale(&self) -> f64 { twice(self.r) }
}

impl Shape for Circle {
    fn area(&self) -> f64 { self.scale() * helper() }
}

fn helper() -> f64 { 3.0 }

pub fn unit() -> Circle { Circle::new(1.0) }
''',
}


def test_rust_graph(tmp_path):
    out = extract(tmp_path, RUST)
    s = "fn:src/shapes.rs:"
    assert_graph(out, {
        "classes": {"cls:src/shapes.rs:Shape", "cls:src/shapes.rs:Circle"},
        "functions": {s + "Circle.new", s + "Circle.scale", s + "Circle.area", s + "helper", s + "unit",
                      s + "Shape.area", "fn:src/util.rs:twice"},  # the trait's required method: a stub
        "modules": {"mod:crate", "mod:crate::util", "mod:crate::shapes", "ext:std"},
        "HAS_METHOD": {("cls:src/shapes.rs:Circle", s + f"Circle.{m}") for m in ("new", "scale", "area")}
        | {("cls:src/shapes.rs:Shape", s + "Shape.area")},
        # `pub mod shapes;` brings `src/shapes.rs` in: lib.rs imports it
        "IMPORTS": {("file:src/shapes.rs", "mod:crate::util"), ("file:src/shapes.rs", "ext:std"),
                    ("file:src/lib.rs", "mod:crate::shapes"), ("file:src/lib.rs", "mod:crate::util")},
        "DEPENDS_ON": {("mod:crate::shapes", "mod:crate::util"), ("mod:crate::shapes", "ext:std"),
                       ("mod:crate", "mod:crate::shapes"), ("mod:crate", "mod:crate::util")},
        "EXTENDS": set(),  # fmt::Debug is outside the repository
        "IMPLEMENTS": {("cls:src/shapes.rs:Circle", "cls:src/shapes.rs:Shape")},
        "CALLS": {(s + "Circle.scale", "fn:src/util.rs:twice"), (s + "Circle.area", s + "Circle.scale"),
                  (s + "Circle.area", s + "helper"), (s + "unit", s + "Circle.new")},
    })
    kinds = {r["name"]: (r["kind"], r["docstring"]) for r in out.tables["Class"]}
    assert kinds == {"Shape": ("trait", "Anything with an area."), "Circle": ("struct", None)}


# A Cargo workspace, as ripgrep's: members in folders, each `use`d by its package's name
# (`grep-searcher` is `grep_searcher`), which is not its folder's name.
WORKSPACE = {
    "Cargo.toml": '[package]\nname = "tool"\n\n[[bin]]\nname = "tool"\npath = "crates/core/main.rs"\n\n'
                  '[workspace]\nmembers = ["crates/searcher", "crates/printer", "crates/cli"]\n',
    "crates/core/main.rs": "mod flags;\n\nuse crate::flags::parse;\n\nfn main() {\n    parse();\n}\n",
    "crates/core/flags.rs": "pub fn parse() -> u8 {\n    1\n}\n",
    "crates/searcher/Cargo.toml": '[package]\nname = "grep-searcher"\nversion = "0.1.0"\n',
    "crates/searcher/src/lib.rs": "pub use crate::sink::{Sink, SinkMatch};\n\nmod sink;\n",
    "crates/searcher/src/sink.rs": '''/// What a search reports to.
pub trait Sink {
    fn matched(&mut self, m: &SinkMatch) -> bool;
}

pub struct SinkMatch { pub line: u64 }

impl SinkMatch {
    pub fn new(line: u64) -> SinkMatch { SinkMatch { line } }
}
''',
    "crates/printer/Cargo.toml": '[package]\nname = "grep-printer"\n\n[lib]\nname = "printer"\n',
    "crates/printer/src/lib.rs": '''use grep_searcher::{Sink, SinkMatch};

pub struct StandardSink<'a, W> { out: &'a mut W }

impl<'a, W> Sink for StandardSink<'a, W> {
    fn matched(&mut self, m: &SinkMatch) -> bool { m.line > 0 }
}

pub fn first() -> SinkMatch { SinkMatch::new(1) }
''',
    "crates/cli/Cargo.toml": "this is [not toml\n",
    "crates/cli/src/lib.rs": "use printer::first;\n\npub fn run() -> u64 { first().line }\n",
}


def test_rust_workspace_members_are_named_as_their_crates_are_used(tmp_path):
    out = extract(tmp_path, WORKSPACE)
    modules = {r["name"] for r in out.tables["Module"]}
    # a bad manifest: the folder's name; a binary rooted outside `src/` (ripgrep's `crates/core/main.rs`): `crate`
    assert {"grep_searcher", "grep_searcher::sink", "printer", "cli", "crate", "crate::flags"} <= modules
    sink, standard = "cls:crates/searcher/src/sink.rs:Sink", "cls:crates/printer/src/lib.rs:StandardSink"
    assert_graph(out, {
        "IMPLEMENTS": {(standard, sink)},
        "CALLS": {("fn:crates/printer/src/lib.rs:first", "fn:crates/searcher/src/sink.rs:SinkMatch.new"),
                  ("fn:crates/cli/src/lib.rs:run", "fn:crates/printer/src/lib.rs:first"),
                  ("fn:crates/core/main.rs:main", "fn:crates/core/flags.rs:parse")},
    })


C = {
    "src/util.h": "#ifndef UTIL_H\n#define UTIL_H\nint twice(int x);\nstruct point { int x; int y; };\n#endif\n",
    "src/util.c": '''#include "util.h"
#include <stdio.h>

/* Doubles x. */
int twice(int x) { return x * 2; }

static void show(struct point *p) { printf("%d", twice(p->x)); }
''',
    "src/main.c": '#include "util.h"\n\nint main(void) { return twice(3); }\n',
}


def test_c_graph(tmp_path):
    out = extract(tmp_path, C)
    assert_graph(out, {
        "classes": {"cls:src/util.h:point"},
        "functions": {"fn:src/util.c:twice", "fn:src/util.c:show", "fn:src/main.c:main"},
        "modules": {"mod:src/util", "mod:src/main", "ext:<stdio.h>"},  # a header and its source: one module
        "IMPORTS": {("file:src/util.c", "mod:src/util"), ("file:src/util.c", "ext:<stdio.h>"),
                    ("file:src/main.c", "mod:src/util")},
        "DEPENDS_ON": {("mod:src/util", "ext:<stdio.h>"), ("mod:src/main", "mod:src/util")},
        "CALLS": {("fn:src/util.c:show", "fn:src/util.c:twice"), ("fn:src/main.c:main", "fn:src/util.c:twice")},
    })
    twice = next(r for r in out.tables["Function"] if r["name"] == "twice")
    assert twice["docstring"] == "Doubles x." and twice["signature"] == "int twice(int x)"


CPP = {
    "src/shape.hpp": '''#pragma once
#include <string>

namespace geo {
class Shape {
 public:
  virtual double area() const = 0;
};

// A circle.
class Circle : public Shape {
 public:
  double area() const override;
  double scale(double k) const { return k * radius(); }
  double radius() const { return 1.0; }
};
}
''',
    "src/shape.cpp": '''#include "shape.hpp"

static double helper() { return 0.5; }

namespace geo {
double Circle::area() const { return this->scale(2.0) + helper(); }
}
''',
    "src/main.cpp": '''#include "shape.hpp"
#include <iostream>

int main() {
  geo::Circle c;
  std::cout << c.area() << std::endl;
  return 0;
}
''',
}


def test_cpp_graph(tmp_path):
    out = extract(tmp_path, CPP)
    h, cc = "fn:src/shape.hpp:", "fn:src/shape.cpp:"
    circle = "cls:src/shape.hpp:Circle"
    assert_graph(out, {
        "classes": {"cls:src/shape.hpp:Shape", circle},
        "functions": {h + "Shape.area", h + "Circle.scale", h + "Circle.radius", cc + "Circle.area", cc + "helper",
                      "fn:src/main.cpp:main"},
        "modules": {"mod:src/shape", "mod:src/main", "ext:<string>", "ext:<iostream>"},
        "HAS_METHOD": {("cls:src/shape.hpp:Shape", h + "Shape.area"), (circle, h + "Circle.scale"),
                       (circle, h + "Circle.radius"), (circle, cc + "Circle.area")},
        "IMPORTS": {("file:src/shape.hpp", "ext:<string>"), ("file:src/shape.cpp", "mod:src/shape"),
                    ("file:src/main.cpp", "mod:src/shape"), ("file:src/main.cpp", "ext:<iostream>")},
        "DEPENDS_ON": {("mod:src/shape", "ext:<string>"), ("mod:src/main", "mod:src/shape"),
                       ("mod:src/main", "ext:<iostream>")},
        "EXTENDS": {(circle, "cls:src/shape.hpp:Shape")},
        "CALLS": {(h + "Circle.scale", h + "Circle.radius"), (cc + "Circle.area", h + "Circle.scale"),
                  (cc + "Circle.area", cc + "helper"), ("fn:src/main.cpp:main", cc + "Circle.area")},
    })
    assert {r["name"]: r["docstring"] for r in out.tables["Class"]} == {"Shape": None, "Circle": "A circle."}


TYPED_RS = {
    "src/lib.rs": "pub mod engine;\npub mod pump;\npub mod plant;\n",
    "src/engine.rs": "pub struct Engine {}\n\nimpl Engine {\n    pub fn new() -> Engine { Engine {} }\n    pub fn start(&self) -> i32 { 1 }\n}\n",
    "src/pump.rs": "pub struct Pump {}\n\nimpl Pump {\n    pub fn start(&self) -> i32 { 2 }\n}\n",
    "src/plant.rs": '''use crate::engine::Engine;
use crate::pump::Pump;

pub struct Plant {
    engine: Engine,
}

impl Plant {
    pub fn field(&self) -> i32 { self.engine.start() }

    pub fn parameter(&self, p: &mut Pump) -> i32 { p.start() }

    pub fn local(&self) -> i32 {
        let made = Engine::new();
        made.start()
    }
}
''',
}


def test_rust_calls_on_struct_fields_parameters_and_constructed_locals_go_to_that_type(tmp_path):
    conf = confidences(extract(tmp_path, TYPED_RS))
    p, engine, pump = "fn:src/plant.rs:Plant.", "fn:src/engine.rs:Engine.start", "fn:src/pump.rs:Pump.start"
    assert conf[(p + "field", engine)] == 0.8 and (p + "field", pump) not in conf
    assert conf[(p + "parameter", pump)] == 0.8 and (p + "parameter", engine) not in conf
    assert conf[(p + "local", engine)] == 0.8 and (p + "local", pump) not in conf


RUST_STD_METHODS = {
    "src/lib.rs": "pub mod batch;\npub mod run;\n",
    "src/batch.rs": '''pub struct Batch { items: Vec<u8> }

impl Batch {
    pub fn lock(&self) -> &Vec<u8> { &self.items }
    pub fn depth(&self) -> usize { 0 }
}

impl IntoIterator for Batch {
    type Item = u8;
    type IntoIter = std::vec::IntoIter<u8>;
    fn into_iter(self) -> Self::IntoIter { self.items.into_iter() }
}
''',
    "src/run.rs": '''pub fn run(results: Vec<u8>, entry: &walker::Entry) -> usize {
    let out = std::io::stdout();
    let _guard = out.lock();
    drop(_guard);
    results.into_iter().count() + entry.depth()
}
''',
}


def test_rust_methods_of_the_standard_library_are_no_guesses(tmp_path):
    # `results.into_iter()` on a Vec and `out.lock()` on Stdout are the standard library's, not the
    # repository's only `into_iter` or `lock`; a name std does not define (`depth`) is still guessed
    conf = confidences(extract(tmp_path, RUST_STD_METHODS))
    assert {dst: c for (src, dst), c in conf.items() if src == "fn:src/run.rs:run"} == {
        "fn:src/batch.rs:Batch.depth": 0.3}


RUST_MODULE_PATHS = {
    "src/main.rs": '''mod error;
mod fmt;
mod other;
mod util;
mod walk;

use crate::util::*;

fn main() {
    walk::scan();
    crate::error::print_error("x");
    helper();
}
''',
    "src/walk.rs": "pub struct WorkerState {}\n\nimpl WorkerState {\n    pub fn scan(&self) {}\n}\n\npub fn scan() {}\n",
    "src/error.rs": "pub fn print_error(m: &str) {}\n",
    "src/util.rs": "pub fn helper() {}\n",
    "src/other.rs": "pub fn helper() {}\n",
    "src/fmt/mod.rs": '''pub enum Token { Text, Placeholder }

impl Token {
    pub fn make() -> Token { Token::Text }
}

pub fn parse() -> Token {
    use Token::*;
    Token::make()
}
''',
}


def test_rust_paths_read_from_the_current_module_its_child_modules_and_the_crate_root(tmp_path):
    # `mod walk;` puts `walk` in scope (`walk::scan()` is the function, not a guess at WorkerState.scan),
    # `crate::error::print_error()` is the crate's module, `use crate::util::*` makes util's names visible,
    # and `use Token::*` names the enum this module defines, not another crate
    out = extract(tmp_path, RUST_MODULE_PATHS)
    conf = confidences(out)
    assert {dst: c for (src, dst), c in conf.items() if src == "fn:src/main.rs:main"} == {
        "fn:src/walk.rs:scan": 0.9, "fn:src/error.rs:print_error": 0.9, "fn:src/util.rs:helper": 0.9}
    assert conf[("fn:src/fmt/mod.rs:parse", "fn:src/fmt/mod.rs:Token.make")] == 0.9
    assert "ext:Token" not in graph(out)["modules"]
    assert {dst for src, dst in graph(out)["IMPORTS"] if src == "file:src/fmt/mod.rs"} == set()  # its own enum


RUST_INLINE_TESTS = {
    "src/lib.rs": "pub mod walk;\n\npub fn search_str() {}\n",
    "src/walk.rs": '''pub fn search_str(x: &str) -> &str { x }

#[cfg(test)]
mod tests {
    use super::search_str;
    use super::*;

    #[test]
    fn finds() { let found = search_str("a"); }
}
''',
}


def test_rust_super_inside_an_inline_module_is_the_file_s_own_module(tmp_path):
    # `use super::*` in `mod tests { ... }` reads the module the file is, not the crate above it; the
    # test module's functions are named under it
    g = graph(extract(tmp_path, RUST_INLINE_TESTS))
    assert "fn:src/walk.rs:tests.finds" in g["functions"]
    assert {dst for src, dst in g["IMPORTS"] if src == "file:src/walk.rs"} == set()  # its own names: no import
    assert {(src, dst) for src, dst in g["DEPENDS_ON"] if src == "mod:crate::walk"} == set()
    assert ("fn:src/walk.rs:tests.finds", "fn:src/walk.rs:search_str") in g["CALLS"]


RUST_MACRO_CALLS = {
    "src/lib.rs": '''pub fn search(x: u8) -> u8 { x }

pub struct Finder {}

impl Finder {
    pub fn new() -> Finder { Finder {} }
    pub fn render(&self) -> u8 { 1 }
}

pub fn total() -> u8 { 3 }

pub fn report(f: &Finder) -> String {
    let total = 3;
    assert_eq!(search(1), 1);
    assert!(total * (total + 1) > 0);
    format!("{} {:?}", f.render(), vec![Finder::new()].len())
}
''',
}


def test_rust_calls_inside_a_macro_s_arguments_are_calls(tmp_path):
    # the grammar reads `assert_eq!(...)` and `format!(...)` as tokens: the calls in them are still calls, and
    # `total * (total + 1)` is none
    conf = confidences(extract(tmp_path, RUST_MACRO_CALLS))
    assert {dst: c for (src, dst), c in conf.items() if src == "fn:src/lib.rs:report"} == {
        "fn:src/lib.rs:search": 1.0, "fn:src/lib.rs:Finder.render": 0.8, "fn:src/lib.rs:Finder.new": 0.9}


RUST_INTEGRATION_TESTS = {
    "Cargo.toml": '[package]\nname = "finder"\n',
    "src/lib.rs": "pub mod testenv;\n",
    "src/testenv.rs": "pub struct TestEnv {}\n\nimpl TestEnv {\n    pub fn new() -> TestEnv { TestEnv {} }\n}\n",
    "tests/cli.rs": "mod testenv;\n\nuse crate::testenv::TestEnv;\n\nfn it_works() {\n    TestEnv::new();\n}\n",
    "tests/testenv/mod.rs": "pub struct TestEnv {}\n\nimpl TestEnv {\n    pub fn new() -> TestEnv { TestEnv {} }\n}\n",
}


def test_rust_an_integration_test_is_a_crate_of_its_own(tmp_path):
    # Cargo builds `tests/cli.rs` as a crate: its `crate::testenv` is `tests/testenv/mod.rs`, not the library's
    g = graph(extract(tmp_path, RUST_INTEGRATION_TESTS))
    assert {dst for src, dst in g["IMPORTS"] if src == "file:tests/cli.rs"} == {"mod:tests::testenv"}
    assert {dst for src, dst in g["CALLS"] if src == "fn:tests/cli.rs:it_works"} == {
        "fn:tests/testenv/mod.rs:TestEnv.new"}


RUST_GENERIC_TYPES = {
    "src/lib.rs": '''pub enum Check<T> { Equal(T), Ignore }

impl<T> Check<T> {
    pub fn check(&self) -> bool { true }
}

pub struct Audit {}

impl Audit {
    pub fn check(&self) -> bool { false }
}

pub struct OwnerFilter { uid: Check<u32> }

impl OwnerFilter {
    pub fn matches(&self, other: &Check<u8>) -> bool { self.uid.check() && other.check() }
}
''',
}


def test_rust_a_generic_field_or_parameter_type_is_its_type(tmp_path):
    # `uid: Check<u32>` and `other: &Check<u8>` hold a Check: `check()` is Check's, not Audit's
    conf = confidences(extract(tmp_path, RUST_GENERIC_TYPES))
    assert {dst: c for (src, dst), c in conf.items() if src == "fn:src/lib.rs:OwnerFilter.matches"} == {
        "fn:src/lib.rs:Check.check": 0.8}


RUST_RETURNED_TYPES = {
    "src/lib.rs": '''pub struct Config {}

impl Config {
    pub fn from_env(n: u8) -> anyhow::Result<Self> { Ok(Config {}) }
    pub fn is_printing(&self) -> bool { true }
}

pub struct Buffer {}

impl Buffer {
    pub fn new(n: u8) -> Self { Buffer {} }
    pub fn process(&self) -> u8 { 1 }
}

pub struct Other {}

impl Other {
    pub fn is_printing(&self) -> bool { false }
    pub fn process(&self) -> u8 { 2 }
}

pub fn construct(n: u8) -> Option<Config> { None }

pub fn run() -> anyhow::Result<u8> {
    let cfg = Config::from_env(1)?;
    let built = construct(2);
    cfg.is_printing();
    Ok(Buffer::new(3).process())
}

pub fn unwrapped() -> bool {
    let built = construct(2).unwrap();
    built.is_printing()
}
''',
}


def test_rust_a_local_holds_what_its_function_returns_and_a_constructed_value_is_its_type(tmp_path):
    # `let cfg = Config::from_env(1)?` where `-> anyhow::Result<Self>` holds a Config, `construct(2).unwrap()` where
    # `-> Option<Config>` a Config, and
    # `Buffer::new(3).process()` is Buffer's `process`, not a guess between two of the name
    conf = confidences(extract(tmp_path, RUST_RETURNED_TYPES))
    assert {dst: c for (src, dst), c in conf.items() if src == "fn:src/lib.rs:run"} == {
        "fn:src/lib.rs:Config.from_env": 0.9, "fn:src/lib.rs:construct": 1.0, "fn:src/lib.rs:Config.is_printing": 0.8,
        "fn:src/lib.rs:Buffer.new": 0.9, "fn:src/lib.rs:Buffer.process": 0.8}
    assert {dst: c for (src, dst), c in conf.items() if src == "fn:src/lib.rs:unwrapped"} == {
        "fn:src/lib.rs:construct": 1.0, "fn:src/lib.rs:Config.is_printing": 0.8}


RUST_SHADOWING = {
    "src/lib.rs": '''pub struct BatchSender {}

impl BatchSender {
    pub fn new(tx: Sender<u8>) -> Self { BatchSender {} }
    pub fn send(&self) -> u8 { 1 }
}

pub fn spawn(tx: Sender<u8>) -> u8 {
    let mut tx = BatchSender::new(tx);
    tx.send()
}
''',
}


def test_rust_a_let_hides_the_bindings_of_its_name_before_it(tmp_path):
    # the parameter `tx: Sender<u8>` is shadowed by `let mut tx = BatchSender::new(tx)`: `tx.send()` is BatchSender's
    conf = confidences(extract(tmp_path, RUST_SHADOWING))
    assert conf[("fn:src/lib.rs:spawn", "fn:src/lib.rs:BatchSender.send")] == 0.8


RUST_CRATE_PATHS = {
    "src/lib.rs": '''pub struct Env {}

impl Env {
    pub fn new() -> Env { Env {} }
    pub fn prefix(&self) -> u8 { 1 }
    pub fn quote(&self) -> u8 { 2 }
}

pub fn host() -> u8 {
    let dir = tempfile::Builder::new();
    nix::unistd::prefix();
    regex::quote("a.b");
    0
}
''',
}


def test_rust_a_path_into_another_crate_is_no_guess_at_the_repository_s_only_method(tmp_path):
    # `tempfile::Builder::new()`, `nix::unistd::prefix()` and `regex::quote()` need no `use`: another crate's, not
    # Env's `new`, `prefix` or `quote`
    conf = confidences(extract(tmp_path, RUST_CRATE_PATHS))
    assert {dst for src, dst in conf if src == "fn:src/lib.rs:host"} == set()


RUST_TEST_MODULE = {
    "src/lib.rs": '''pub fn advance(c: &Clock) -> u8 { c.tick() }

#[cfg(test)]
mod tests {
    pub struct FakeClock {}

    impl FakeClock {
        pub fn tick(&self) -> u8 { 0 }
    }
}
''',
}


def test_rust_the_package_never_guesses_into_its_test_module(tmp_path):
    # the only `tick` is a test double's, in `mod tests`: the package's `c.tick()` on another crate's Clock is not it
    conf = confidences(extract(tmp_path, RUST_TEST_MODULE))
    assert {dst for src, dst in conf if src == "fn:src/lib.rs:advance"} == set()


RUST_TRAIT_DEFAULTS = {
    "src/lib.rs": '''pub trait Shape {
    fn area(&self) -> f64;
    fn describe(&self) -> String { format!("{}", self.area()) }
}

pub struct Circle { r: f64 }

impl Shape for Circle {
    fn area(&self) -> f64 { self.r }
}

impl Circle {
    pub fn show(&self) -> String { self.describe() }
}

pub fn print(c: &Circle) -> String { c.describe() }

pub fn total(s: &dyn Shape) -> f64 { s.area() }
''',
}


def test_rust_a_trait_s_provided_method_is_its_implementors_method(tmp_path):
    # `describe` has a body in the trait: `self.describe()` on a Circle and `c.describe()` on `c: &Circle` run it
    conf = confidences(extract(tmp_path, RUST_TRAIT_DEFAULTS))
    assert conf[("fn:src/lib.rs:Circle.show", "fn:src/lib.rs:Shape.describe")] == 0.9
    assert conf[("fn:src/lib.rs:print", "fn:src/lib.rs:Shape.describe")] == 0.8


def test_rust_a_call_through_a_trait_reaches_its_required_method_and_the_implementations(tmp_path):
    # `fn area(&self) -> f64;` is a stub of the trait: `s.area()` on `s: &dyn Shape` runs an implementation
    conf = confidences(extract(tmp_path, RUST_TRAIT_DEFAULTS))
    assert {dst: c for (src, dst), c in conf.items() if src == "fn:src/lib.rs:total"} == {
        "fn:src/lib.rs:Shape.area": 0.8, "fn:src/lib.rs:Circle.area": 0.5}
    assert conf[("fn:src/lib.rs:Shape.describe", "fn:src/lib.rs:Circle.area")] == 0.5


RUST_MACROS = {
    "src/lib.rs": "#[macro_use]\nmod macros;\nmod run;\n",
    "src/macros.rs": '''#[macro_export]
macro_rules! check {
    ($x:expr) => { assert!($x > 0) };
}
''',
    "src/run.rs": '''macro_rules! twice {
    ($x:expr) => { $x * 2 };
}

pub fn check(x: u8) -> bool { x > 0 }

pub fn format() -> String { String::new() }

pub fn run(x: u8) -> String {
    check!(x);
    let y = twice!(x);
    format!("{}", y)
}

pub fn first() -> u8 {
    macro_rules! step { () => { 1 }; }
    step!()
}

pub fn second() -> u8 {
    macro_rules! step { () => { 2 }; }
    step!()
}
''',
}


def test_rust_a_macro_is_a_definition_that_only_its_invocations_call(tmp_path):
    # `check!(x)` is the crate's `macro_rules! check`, not the function `check`; `format!` is std's, not `fn format`
    out = extract(tmp_path, RUST_MACROS)
    assert {"fn:src/macros.rs:check", "fn:src/run.rs:twice"} <= graph(out)["functions"]
    assert {dst: c for (src, dst), c in confidences(out).items() if src == "fn:src/run.rs:run"} == {
        "fn:src/macros.rs:check": 0.9, "fn:src/run.rs:twice": 1.0}
    # a macro a function defines is that function's
    assert ("fn:src/run.rs:second", "fn:src/run.rs:second.step") in confidences(out)


RUST_FOREIGN_CHAIN = {
    "src/lib.rs": '''use ignore::WalkBuilder;

pub struct Opts {}

impl Opts {
    pub fn max_depth(&self) -> u8 { 1 }
}

pub fn build(path: &str) -> u8 {
    let mut builder = WalkBuilder::new(path);
    builder
        .hidden(true)
        .max_depth(Some(3));
    0
}
''',
}


def test_rust_a_chain_on_another_crate_s_object_is_that_crate_s(tmp_path):
    # `builder.hidden(true).max_depth(..)` on ignore's WalkBuilder is not the repository's only `max_depth`
    conf = confidences(extract(tmp_path, RUST_FOREIGN_CHAIN))
    assert {dst for src, dst in conf if src == "fn:src/lib.rs:build"} == set()


C_CONDITIONALS = {
    "src/run.c": '''#include "run.h"

static int helper(int x) { return x; }

#ifdef _WIN32
int umain(int argc) {
#else
int main(int argc) {
#endif
  return helper(argc);
}

#ifdef HAVE_STRLEN
#include <string.h>
#else
static int my_strlen(const char *s) { return helper(0); }
#endif

int start(void) {
  int n = 0;
#ifdef VERBOSE
  if (n) {
    n = helper(2);
#else
  if (!n) {
#endif
    n = my_strlen("x");
  }
  return n;
}

int after(void) { return start() + helper(1); }
''',
    "src/run.h": "int start(void);\n",
}


def test_c_braces_that_balance_only_per_preprocessor_branch_hide_no_definitions(tmp_path):
    # `#ifdef W int umain() { #else int main() { #endif`: each branch opens the body once; the whole
    # file does not parse, so the first branches are read, and the other branches for what only they hold
    out = extract(tmp_path, C_CONDITIONALS)
    r = "fn:src/run.c:"
    g = graph(out)
    assert {r + n for n in ("helper", "umain", "my_strlen", "start", "after")} <= g["functions"]
    assert not any(f.startswith(r + "umain.") for f in g["functions"])  # `main`: a second header of umain
    assert {(r + "umain", r + "helper"), (r + "my_strlen", r + "helper"), (r + "start", r + "helper"),
            (r + "start", r + "my_strlen"), (r + "after", r + "start"), (r + "after", r + "helper")} <= g["CALLS"]
    assert ("file:src/run.c", "ext:<string.h>") in g["IMPORTS"]
    lines = {f["name"]: (f["line_start"], f["line_end"]) for f in out.tables["Function"]}
    assert (lines["umain"], lines["start"], lines["after"]) == ((6, 11), (19, 30), (32, 32))


C_NESTED_INCLUDES = {
    "src/api.h": '#ifndef API_H\n#define API_H\n#include "value.h"\nint api_run(void);\n#endif\n',
    "src/value.h": "#ifndef VALUE_H\n#define VALUE_H\nint value_new(int x);\nvoid value_free(int v);\n#endif\n",
    "src/value.c": '#include "value.h"\n\nint value_new(int x) { return x; }\n\nvoid value_free(int v) { (void)v; }\n',
    "src/main.c": '#include "api.h"\n\nint main(void) { int v = value_new(1); value_free(v); return 0; }\n',
    # another value_free of the same name, that main.c includes nothing of
    "tools/pool.c": "void value_free(int v) { (void)v; }\n",
}


def test_c_a_header_brings_in_what_it_includes(tmp_path):
    # main.c includes api.h, which includes value.h: value.c's functions are named through an include
    out = extract(tmp_path, C_NESTED_INCLUDES)
    calls = confidences(out)
    main, value = "fn:src/main.c:main", "fn:src/value.c:"
    assert calls[(main, value + "value_new")] == 0.9  # not the 0.5 of the repository's only `value_new`
    assert calls[(main, value + "value_free")] == 0.9  # not ambiguous with tools/pool.c's
    assert (main, "fn:tools/pool.c:value_free") not in calls


C_LIBRARY_SHIM = {
    # a test shim that wraps the C library's fclose: the repository's only `fclose`
    "src/inject.c": "#include <stdio.h>\n\nint fclose(FILE *f) { return 0; }\n",
    "src/io.c": '#include <stdio.h>\n#include "io.h"\n\nint io_close(FILE *f) { return fclose(f); }\n',
    "src/io.h": "#include <stdio.h>\nint io_close(FILE *f);\n",
    "src/main.c": '#include "io.h"\n\nint main(void) { return io_close(0); }\n',
}


def test_c_a_library_function_is_no_guess_at_the_repository_s_only_definition_of_its_name(tmp_path):
    calls = confidences(extract(tmp_path, C_LIBRARY_SHIM))
    assert ("fn:src/io.c:io_close", "fn:src/inject.c:fclose") not in calls
    assert calls[("fn:src/main.c:main", "fn:src/io.c:io_close")] == 0.9


C_MACRO_STATEMENT = {
    "src/scan.c": '''#define RESTORE_OFFSET
static int next(int c) { return c + 1; }

int scan(int c) {
  switch (c) {
  case 0:
    {
    RESTORE_OFFSET
    if (c == 0) { return next(c); }
    }
  }
  return c;
}
''',
}


def test_c_a_statement_after_a_bare_macro_is_no_function_named_by_a_keyword(tmp_path):
    # the grammar reads `RESTORE_OFFSET if (c == 0) { ... }` as a function `if` returning RESTORE_OFFSET
    g = graph(extract(tmp_path, C_MACRO_STATEMENT))
    assert {f.rpartition(":")[2].rpartition(".")[2] for f in g["functions"]} == {"next", "scan"}
    assert ("fn:src/scan.c:scan", "fn:src/scan.c:next") in g["CALLS"]


C_PROTOTYPES = {
    # the library's header declares what execute.c and value.c define: no file is named after it
    "src/lib.h": "#ifndef LIB_H\n#define LIB_H\nint lib_run(int x);\nchar *lib_name(void);\n#endif\n",
    "src/execute.c": '#include "lib.h"\n\nint lib_run(int x) { return x; }\n',
    "src/value.c": '#include "lib.h"\n\nchar *lib_name(void) { return "lib"; }\n\nint stray(void) { return 0; }\n',
    "src/main.c": '#include "lib.h"\n\nint main(void) { lib_name(); stray(); return lib_run(1); }\n',
}


def test_c_a_function_an_included_header_declares_is_called_as_surely_as_an_import(tmp_path):
    calls = confidences(extract(tmp_path, C_PROTOTYPES))
    main = "fn:src/main.c:main"
    assert calls[(main, "fn:src/execute.c:lib_run")] == 0.9
    assert calls[(main, "fn:src/value.c:lib_name")] == 0.9  # `char *lib_name(void);`
    assert calls[(main, "fn:src/value.c:stray")] == 0.5  # declared nowhere: the guess of a unique name


GO_RESULTS = {
    "go.mod": "module example.com/app\n\ngo 1.22\n",
    "cmd/cmd.go": '''package cmd

import (
	"bytes"
	"os"

	flag "github.com/spf13/pflag"
)

type Cmd struct{ flags *flag.FlagSet }

func (c *Cmd) Flags() *flag.FlagSet { return c.flags }
func (c *Cmd) Parent() (*Cmd, error) { return c, nil }
func (c *Cmd) Name() string         { return "" }

type List struct{}

func (l *List) Len() int      { return 0 }
func (l *List) Close() error  { return nil }
func (l *List) Lookup() *List { return l }
''',
    "cmd/run.go": '''package cmd

import (
	"bytes"
	"os"
)

func NewCmd() *Cmd { return &Cmd{} }

func Run(c *Cmd) {
	flags := c.Flags()
	flags.Lookup()
	f, err := os.Create("x")
	f.Close()
	buf := new(bytes.Buffer)
	buf.Len()
	c.Flags().Lookup()
	child := NewCmd()
	child.Name()
	p, _ := c.Parent()
	p.Name()
	l := new(List)
	l.Len()
}
''',
    "main.go": '''package main

import "example.com/app/cmd"

func main() {
	root := cmd.NewCmd()
	root.Name()
}

func assert(in any) {
	c := in.(*cmd.Cmd)
	c.Name()
}

func declared() {
	var r = &cmd.Cmd{}
	r.Name()
}
''',
}


def test_go_a_variable_holds_what_its_call_returns_and_new_builds(tmp_path):
    # `flags := c.Flags()` is pflag's FlagSet and `f, err := os.Create(p)` an os.File: their `Lookup`,
    # `Close` and `Len` are never the repository's only methods of those names; `child := NewCmd()` is a Cmd
    conf = confidences(extract(tmp_path, GO_RESULTS))
    run, cmd = "fn:cmd/run.go:Run", "fn:cmd/cmd.go:"
    assert {dst for src, dst in conf if src == run} == {cmd + "Cmd.Flags", cmd + "Cmd.Parent", cmd + "Cmd.Name",
                                                       "fn:cmd/run.go:NewCmd", cmd + "List.Len"}
    assert conf[(run, cmd + "Cmd.Name")] == 0.8  # `child := NewCmd()` and `p, _ := c.Parent()`
    assert conf[(run, cmd + "List.Len")] == 0.8  # `l := new(List)`, not `buf := new(bytes.Buffer)`
    assert conf[("fn:main.go:main", cmd + "Cmd.Name")] == 0.8  # `root := cmd.NewCmd()` across packages
    assert conf[("fn:main.go:assert", cmd + "Cmd.Name")] == 0.8  # `c := in.(*cmd.Cmd)`: the type asserted
    assert conf[("fn:main.go:declared", cmd + "Cmd.Name")] == 0.8  # `var r = &cmd.Cmd{}`


GO_BUILTINS = {
    "go.mod": "module example.com/app\n\ngo 1.22\n",
    "errs/errs.go": '''package errs

type NotFound struct{ name string }

func (e *NotFound) Error() string { return e.name }

func close() {}

func string(b []byte) {}
''',
    "run/run.go": '''package run

func load() error { return nil }

func Check(err error, ch chan int) string {
	close(ch)
	_ = string([]byte("x"))
	if e := load(); e != nil {
		return e.Error()
	}
	return err.Error()
}
''',
}


def test_go_error_s_method_and_the_predeclared_functions_are_no_guesses(tmp_path):
    # `err.Error()` on a value of Go's `error`, a bare `close(ch)` and the conversion `string(b)` are the
    # language's, not the repository's only `Error` method nor another package's `close` or `string`
    conf = confidences(extract(tmp_path, GO_BUILTINS))
    assert {dst for src, dst in conf if src == "fn:run/run.go:Check"} == {"fn:run/run.go:load"}


GO_NAMED_TYPES = {
    "go.mod": "module example.com/app\n\ngo 1.22\n",
    "sort.go": '''package app

type Cmd struct{ name string }

type byName []*Cmd

func (s byName) Len() int { return len(s) }

type Mode int

func (m Mode) String() string { return "" }

func Show(m Mode) string { return m.String() }
''',
}


def test_go_methods_of_named_types_that_are_not_structs_belong_to_their_type(tmp_path):
    # `type byName []*Cmd` and `type Mode int` are types with methods, as a struct is
    out = extract(tmp_path, GO_NAMED_TYPES)
    g = graph(out)
    assert {"cls:sort.go:byName", "cls:sort.go:Mode"} <= g["classes"]
    assert {("cls:sort.go:byName", "fn:sort.go:byName.Len"), ("cls:sort.go:Mode", "fn:sort.go:Mode.String")} <= g["HAS_METHOD"]
    assert confidences(out)[("fn:sort.go:Show", "fn:sort.go:Mode.String")] == 0.8  # `m Mode`: the variable's type


GO_FIELDS = {
    "go.mod": "module example.com/app\n\ngo 1.22\n",
    "cmd.go": '''package app

import (
	"bytes"

	"github.com/spf13/pflag"
)

type List []string

func (l List) Len() int { return len(l) }

type Options struct{ mode int }

func (o *Options) Reset() {}

type Cmd struct {
	errBuf  *bytes.Buffer
	Options Options
}

func (c *Cmd) Check() int { return c.errBuf.Len() }

func Setup(c *Cmd, f *pflag.Flag) {
	c.Options.Reset()
	f.Value.Type()
}
''',
    "aux_test.go": '''package app

type fake struct{}

func (x *fake) Type() string { return "" }
''',
}


def test_go_a_field_s_declared_type_says_whose_method_is_called(tmp_path):
    # `c.errBuf.Len()` is bytes.Buffer's, `f.Value.Type()` pflag's; `c.Options.Reset()` on a variable's field is ours
    conf = confidences(extract(tmp_path, GO_FIELDS))
    assert ("fn:cmd.go:Cmd.Check", "fn:cmd.go:List.Len") not in conf
    assert {dst for src, dst in conf if src == "fn:cmd.go:Setup"} == {"fn:cmd.go:Options.Reset"}
    assert conf[("fn:cmd.go:Setup", "fn:cmd.go:Options.Reset")] == 0.8


GO_INTERFACES = {
    "go.mod": "module example.com/app\n\ngo 1.22\n",
    "value.go": '''package app

import "io"

type Getter interface{ Get() string }

type Value interface {
	Getter
	Set(s string) error
}

type ReadGetter interface {
	Getter
	io.Reader
}

type Flag struct{}

func (f *Flag) Get() string        { return "" }
func (f *Flag) Set(s string) error { return nil }

type Named struct{ Flag }

type Half struct{}

func (h Half) Get() string { return "" }
''',
}


def test_go_a_type_with_every_method_of_an_interface_implements_it(tmp_path):
    # Go never says `implements`: Flag has Get and Set (Value embeds Getter), Named gets them from the
    # Flag it embeds, Half has Get alone; what io.Reader requires is not known here, so nothing is a ReadGetter
    g = graph(extract(tmp_path, GO_INTERFACES))
    flag, named, half = "cls:value.go:Flag", "cls:value.go:Named", "cls:value.go:Half"
    getter, value = "cls:value.go:Getter", "cls:value.go:Value"
    assert g["EXTENDS"] == {(value, getter), ("cls:value.go:ReadGetter", getter), (named, flag)}
    assert g["IMPLEMENTS"] == {(flag, getter), (flag, value), (named, getter), (named, value), (half, getter)}


GO_RANGE = {
    "go.mod": "module example.com/app\n\ngo 1.22\n",
    "walk.go": '''package app

import "os"

type Cmd struct{ children []*Cmd }

func (c *Cmd) Name() string  { return "" }
func (c *Cmd) Kids() []*Cmd  { return c.children }

type List struct{}

func (l *List) Close() error { return nil }

func Walk(c *Cmd, files []*os.File) {
	for _, k := range c.children {
		k.Name()
	}
	for _, k := range c.Kids() {
		k.Name()
	}
	for _, f := range files {
		f.Close()
	}
}
''',
}


def test_go_a_range_variable_is_an_element_of_the_slice_ranged_over(tmp_path):
    # `range c.children` and `range c.Kids()` yield *Cmd, `range files` an *os.File whose Close is not ours
    conf = confidences(extract(tmp_path, GO_RANGE))
    walk = "fn:walk.go:Walk"
    assert {dst for src, dst in conf if src == walk} == {"fn:walk.go:Cmd.Name", "fn:walk.go:Cmd.Kids"}
    assert conf[(walk, "fn:walk.go:Cmd.Name")] == 0.8


CPP_H = {
    "include/kv/db.h": '''#ifndef KV_DB_H_
#define KV_DB_H_
#include <string>

namespace kv {

// The interface.
class DB {
 public:
  virtual ~DB();
  virtual int Get(const std::string& key) = 0;
};

}  // namespace kv
#endif
''',
    "db/db_impl.h": '''#include "kv/db.h"

namespace kv {

class DBImpl : public DB {
 public:
  int Get(const std::string& key) override;

 private:
  int Lookup(int n) { return n; }
};

}  // namespace kv
''',
    "db/db_impl.cc": '''#include "db/db_impl.h"

namespace kv {

int DBImpl::Get(const std::string& key) { return Lookup(key.size()); }

}  // namespace kv
''',
    "db/c.h": "#ifndef C_H\n#define C_H\nstruct kv_t;\nint kv_get(struct kv_t* db);\n#endif\n",
}


def test_cpp_a_dot_h_header_written_in_cpp_is_read_as_cpp(tmp_path):
    out = extract(tmp_path, CPP_H)
    impl = "cls:db/db_impl.h:DBImpl"
    assert_graph(out, {
        "classes": {"cls:include/kv/db.h:DB", impl},
        "functions": {"fn:include/kv/db.h:DB.Get", "fn:db/db_impl.h:DBImpl.Lookup", "fn:db/db_impl.cc:DBImpl.Get"},
        "HAS_METHOD": {("cls:include/kv/db.h:DB", "fn:include/kv/db.h:DB.Get"), (impl, "fn:db/db_impl.h:DBImpl.Lookup"),
                       (impl, "fn:db/db_impl.cc:DBImpl.Get")},
        "EXTENDS": {(impl, "cls:include/kv/db.h:DB")},
        "CALLS": {("fn:db/db_impl.cc:DBImpl.Get", "fn:db/db_impl.h:DBImpl.Lookup")},
    })
    languages = {r["path"]: r["language"] for r in out.tables["File"]}
    assert languages == {"include/kv/db.h": "cpp", "db/db_impl.h": "cpp", "db/db_impl.cc": "cpp", "db/c.h": "c"}
    assert next(r for r in out.tables["Class"] if r["name"] == "DB")["docstring"] == "The interface."
    history = spans_of(LANGUAGES["c"], CPP_H["db/db_impl.h"].encode())  # a past version, as history reads it
    assert {s.qualified_name for s in history} == {"DBImpl", "DBImpl.Lookup"}


EXPORTED = {
    "include/kv/env.h": '''#ifndef KV_ENV_H_
#define KV_ENV_H_

namespace kv {

class KV_EXPORT Env {
 public:
  virtual ~Env();
  virtual int Schedule(int n) = 0;
};

// Forwards every call.
class KV_EXPORT EnvWrapper : public Env {
 public:
  int Schedule(int n) override { return n; }
};

struct KV_EXPORT Options {
  int size = 0;
};

}  // namespace kv
#endif
''',
}


def test_cpp_an_export_macro_before_a_class_name_hides_no_class(tmp_path):
    out = extract(tmp_path, EXPORTED)
    h = "include/kv/env.h"
    assert_graph(out, {
        "classes": {f"cls:{h}:Env", f"cls:{h}:EnvWrapper", f"cls:{h}:Options"},
        "functions": {f"fn:{h}:Env.Schedule", f"fn:{h}:EnvWrapper.Schedule"},
        "HAS_METHOD": {(f"cls:{h}:Env", f"fn:{h}:Env.Schedule"), (f"cls:{h}:EnvWrapper", f"fn:{h}:EnvWrapper.Schedule")},
        "EXTENDS": {(f"cls:{h}:EnvWrapper", f"cls:{h}:Env")},
    })
    wrapper = next(r for r in out.tables["Class"] if r["name"] == "EnvWrapper")
    assert (wrapper["line_start"], wrapper["docstring"]) == (13, "Forwards every call.")
    assert "KV_EXPORT" in wrapper["text"]  # read from the file, not from the text the parser saw
    history = spans_of(LANGUAGES["cpp"], EXPORTED[h].encode())
    assert {s.qualified_name for s in history} == {"Env", "Env.Schedule", "EnvWrapper", "EnvWrapper.Schedule", "Options"}


NESTED_OUT_OF_LINE = {
    "db/version_set.h": '''namespace kv {

class VersionSet {
 public:
  int LogAndApply(int n);

 private:
  class Builder;
};

}  // namespace kv
''',
    "db/version_set.cc": '''#include "db/version_set.h"

namespace kv {

class VersionSet::Builder {
 public:
  int Apply(int n) { return n; }
};

int VersionSet::LogAndApply(int n) {
  struct State {
    int Match() { return 1; }
  };
  return n;
}

}  // namespace kv
''',
}


def test_cpp_a_class_defined_as_owner_colons_name_is_the_owner_s_nested_class(tmp_path):
    out = extract(tmp_path, NESTED_OUT_OF_LINE)
    cc, vs = "db/version_set.cc", "cls:db/version_set.h:VersionSet"
    builder, state = f"cls:{cc}:VersionSet.Builder", f"cls:{cc}:VersionSet.LogAndApply.State"
    assert_graph(out, {
        "classes": {vs, builder, state},
        "functions": {f"fn:{cc}:VersionSet.Builder.Apply", f"fn:{cc}:VersionSet.LogAndApply",
                      f"fn:{cc}:VersionSet.LogAndApply.State.Match"},
        "HAS_METHOD": {(builder, f"fn:{cc}:VersionSet.Builder.Apply"), (vs, f"fn:{cc}:VersionSet.LogAndApply"),
                       (state, f"fn:{cc}:VersionSet.LogAndApply.State.Match")},
    })
    assert {r["qualified_name"]: r["is_method"] for r in out.tables["Function"]}["VersionSet.Builder.Apply"]
    history = spans_of(LANGUAGES["cpp"], NESTED_OUT_OF_LINE[cc].encode())
    assert {s.qualified_name for s in history} == {"VersionSet.Builder", "VersionSet.Builder.Apply", "VersionSet.LogAndApply",
                                                   "VersionSet.LogAndApply.State", "VersionSet.LogAndApply.State.Match"}


TYPED_CPP = {
    "db/version_set.h": '''class VersionSet {
 public:
  int LogAndApply(int n) { return n; }
  int Current() { return 0; }
};
''',
    "db/fake.h": '''class FakeSet {
 public:
  int LogAndApply(int n) { return n; }
  int Current() { return 1; }
  int size() { return 2; }
};
''',
    "db/db_impl.h": '''#include <string>
#include "db/version_set.h"

class DBImpl {
 public:
  int Write(int n);
  int Read(const VersionSet& vs);

 private:
  VersionSet* const versions_;
  std::string name_;
};
''',
    "db/db_impl.cc": '''#include "db/db_impl.h"

int DBImpl::Write(int n) { return versions_->LogAndApply(n) + name_.size(); }

int DBImpl::Read(const VersionSet& vs) {
  VersionSet* local = nullptr;
  auto* made = new VersionSet();
  return vs.Current() + local->LogAndApply(1) + made->Current();
}
''',
}


def test_cpp_calls_through_a_field_parameter_or_local_go_to_its_declared_type(tmp_path):
    out = extract(tmp_path, TYPED_CPP)
    vs, write, read = "fn:db/version_set.h:VersionSet.", "fn:db/db_impl.cc:DBImpl.Write", "fn:db/db_impl.cc:DBImpl.Read"
    # `name_.size()` is std::string's, not the repository's only `size`
    assert confidences(out) == {(write, vs + "LogAndApply"): 0.8, (read, vs + "Current"): 0.8,
                                (read, vs + "LogAndApply"): 0.8}


ANNOTATED = {
    "port/port.h": '''class LOCKABLE Mutex {
 public:
  void Lock() EXCLUSIVE_LOCK_FUNCTION();
  void Unlock() UNLOCK_FUNCTION() {}
};

class VersionSet {
 public:
  int Last() const { return 0; }
};

class Other {
 public:
  void Unlock() {}
  int Last() const { return 1; }
};
''',
    "db/db_impl.h": '''#include "port/port.h"

class DBImpl {
 public:
  int Get(int k) LOCKS_EXCLUDED(mutex_);

 private:
  int Recover(int n)
      EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  Mutex mutex_;
  VersionSet* const versions_ GUARDED_BY(mutex_);
};
''',
    "db/db_impl.cc": '''#include "db/db_impl.h"

int DBImpl::Get(int k) {
  mutex_.Unlock();
  if (k > 0) LOG(k);
  return versions_->Last() + Recover(k);
}

int DBImpl::Recover(int n) { return n; }
''',
}


def test_cpp_thread_safety_annotations_hide_no_field_or_method(tmp_path):
    out = extract(tmp_path, ANNOTATED)
    get = "fn:db/db_impl.cc:DBImpl.Get"
    assert out.syntax_error_files == 0
    assert confidences(out) == {(get, "fn:port/port.h:Mutex.Unlock"): 0.8, (get, "fn:port/port.h:VersionSet.Last"): 0.8,
                                (get, "fn:db/db_impl.cc:DBImpl.Recover"): 1.0}
    assert "cls:port/port.h:Mutex" in graph(out)["classes"]


OTHER_HEADER = {
    "db/write_batch_internal.h": '''class WriteBatchInternal {
 public:
  static int Count(int b);
};
''',
    "db/write_batch.cc": '''#include "db/write_batch_internal.h"

int WriteBatchInternal::Count(int b) { return b; }
''',
    "db/db_impl.cc": '''#include "db/write_batch_internal.h"

int Write(int b) { return WriteBatchInternal::Count(b); }
''',
    "tools/other.cc": "class Helper {\n public:\n  int Count(int b) { return b; }\n};\n",
}


def test_cpp_a_method_defined_beside_another_header_belongs_to_the_class_that_header_declares(tmp_path):
    out = extract(tmp_path, OTHER_HEADER)
    count = "fn:db/write_batch.cc:WriteBatchInternal.Count"
    assert_graph(out, {
        "HAS_METHOD": {("cls:db/write_batch_internal.h:WriteBatchInternal", count),
                       ("cls:tools/other.cc:Helper", "fn:tools/other.cc:Helper.Count")},
    })
    assert confidences(out) == {("fn:db/db_impl.cc:Write", count): 0.9}


TEMPLATE_CPP = {
    "db/skiplist.h": '''template <typename Key, class Comparator>
class SkipList {
 public:
  void Insert(const Key& key);

  class Iterator {
   public:
    bool Valid() const;
  };

 private:
  int RandomHeight();
};

template <typename Key, class Comparator>
int SkipList<Key, Comparator>::RandomHeight() { return 1; }

template <typename Key, class Comparator>
void SkipList<Key, Comparator>::Insert(const Key& key) { RandomHeight(); }

template <typename Key, class Comparator>
inline bool SkipList<Key, Comparator>::Iterator::Valid() const { return true; }
''',
}


def test_cpp_a_template_s_method_defined_out_of_line_is_the_template_s_method(tmp_path):
    out = extract(tmp_path, TEMPLATE_CPP)
    h, skiplist = "fn:db/skiplist.h:", "cls:db/skiplist.h:SkipList"
    assert_graph(out, {
        "classes": {skiplist, "cls:db/skiplist.h:SkipList.Iterator"},
        "functions": {h + "SkipList.RandomHeight", h + "SkipList.Insert", h + "SkipList.Iterator.Valid"},
        "HAS_METHOD": {(skiplist, h + "SkipList.RandomHeight"), (skiplist, h + "SkipList.Insert"),
                       ("cls:db/skiplist.h:SkipList.Iterator", h + "SkipList.Iterator.Valid")},
        "CALLS": {(h + "SkipList.Insert", h + "SkipList.RandomHeight")},
    })
    history = spans_of(LANGUAGES["c"], TEMPLATE_CPP["db/skiplist.h"].encode())
    assert {s.qualified_name for s in history} >= {"SkipList.Insert", "SkipList.Iterator.Valid"}


PURE_VIRTUAL = {
    "include/env.h": '''class Env {
 public:
  virtual ~Env();
  virtual int NewFile(int n) = 0;
  virtual int Put(int n) = 0;
};

class PosixEnv : public Env {
 public:
  int NewFile(int n) override { return n; }
};

class MemEnv : public Env {
 public:
  int NewFile(int n) override { return 0; }
};
''',
    "db/db.cc": '#include "include/env.h"\n\nint Open(Env* env) { return env->NewFile(1) + env->Put(2); }\n',
    "db/env.cc": '#include "include/env.h"\n\nint Env::Put(int n) { return n; }\n',  # a default body: no stub
}


def test_cpp_a_pure_virtual_method_is_a_stub_that_calls_through_the_interface_reach(tmp_path):
    out = extract(tmp_path, PURE_VIRTUAL)
    h, open_ = "fn:include/env.h:", "fn:db/db.cc:Open"
    assert confidences(out) == {(open_, h + "Env.NewFile"): 0.8, (open_, h + "PosixEnv.NewFile"): 0.5,
                                (open_, h + "MemEnv.NewFile"): 0.5, (open_, "fn:db/env.cc:Env.Put"): 0.8}
    assert ("cls:include/env.h:Env", h + "Env.NewFile") in graph(out)["HAS_METHOD"]
    stub = next(r for r in out.tables["Function"] if r["qualified_name"] == "Env.NewFile")
    assert (stub["line_start"], stub["signature"]) == (4, "virtual int NewFile(int n) = 0;")
    history = spans_of(LANGUAGES["c"], PURE_VIRTUAL["include/env.h"].encode())
    assert "Env.NewFile" in {s.qualified_name for s in history}


DELETED = {
    "db/snapshot.h": '''class Snapshot {
 public:
  explicit Snapshot(int n) : n_(n) {}
  Snapshot(const Snapshot&) = delete;
  Snapshot& operator=(const Snapshot&) = delete;
  ~Snapshot() = default;
  int n() const { return n_; }

 private:
  int n_;
};
''',
}


def test_cpp_a_deleted_function_is_no_function(tmp_path):
    out = extract(tmp_path, DELETED)
    h = "fn:db/snapshot.h:Snapshot."
    assert_graph(out, {"functions": {h + "Snapshot", h + "~Snapshot", h + "n"}})
    assert next(r for r in out.tables["Function"] if r["name"] == "Snapshot")["line_start"] == 3


CONSTRUCTED = {
    "db/db_impl.h": '''class DBImpl {
 public:
  DBImpl(int n) : n_(n) {}
  int Recover() { return n_; }

 private:
  int n_;
};
''',
    "db/db.cc": '''#include "db/db_impl.h"

int Open(int n) {
  DBImpl* impl = new DBImpl(n);
  return impl->Recover();
}
''',
}


def test_cpp_new_calls_the_class_s_constructor(tmp_path):
    out = extract(tmp_path, CONSTRUCTED)
    h = "fn:db/db_impl.h:DBImpl."
    assert confidences(out) == {("fn:db/db.cc:Open", h + "DBImpl"): 0.9, ("fn:db/db.cc:Open", h + "Recover"): 0.8}


NESTED_NAMESAKE = {
    "db/skiplist.h": '''class SkipList {
 public:
  class Iterator {
   public:
    void Next() {}
  };
};
''',
    "include/iterator.h": "class Iterator {\n public:\n  virtual void Next() = 0;\n};\n",
    "db/memtable.h": '#include "db/skiplist.h"\n',
    "db/repair.cc": '''#include "db/memtable.h"
#include "include/iterator.h"

class TableIterator : public Iterator {
 public:
  void Next() override {}
};

void Repair(Iterator* iter) { iter->Next(); }
''',
}


def test_cpp_a_bare_type_name_is_no_class_nested_in_an_included_header_s_class(tmp_path):
    out = extract(tmp_path, NESTED_NAMESAKE)
    base = "cls:include/iterator.h:Iterator"
    assert graph(out)["EXTENDS"] == {("cls:db/repair.cc:TableIterator", base)}
    repair = "fn:db/repair.cc:Repair"
    assert confidences(out) == {(repair, "fn:include/iterator.h:Iterator.Next"): 0.8,
                                (repair, "fn:db/repair.cc:TableIterator.Next"): 0.5}
