"""Python, JavaScript, TypeScript and TSX fixture projects: entities and edges, written from the source."""

from tests.extract.graphs import assert_graph, confidences, extract, graph, short

PY = {
    "pkg/__init__.py": "",
    "pkg/base.py": '''import os


class Base:
    def greet(self):
        return self.name()

    def name(self):
        return "base"


def helper(x):
    return os.path.join(x, "y")
''',
    "pkg/shapes.py": '''from pkg.base import Base, helper
from . import base as b
import json


class Circle(Base):
    """A round shape."""

    def __init__(self):
        self.r = 1

    def area(self):
        return self.greet() + helper(1)

    def dump(self):
        return json.dumps(self.area()) + b.helper(2)


def make():
    return Circle()
''',
}


def test_python_graph(tmp_path):
    out = extract(tmp_path, PY)
    base, shapes = "fn:pkg/base.py:", "fn:pkg/shapes.py:"
    assert_graph(out, {
        "classes": {"cls:pkg/base.py:Base", "cls:pkg/shapes.py:Circle"},
        "functions": {base + "Base.greet", base + "Base.name", base + "helper", shapes + "Circle.__init__",
                      shapes + "Circle.area", shapes + "Circle.dump", shapes + "make"},
        "modules": {"mod:pkg", "mod:pkg.base", "mod:pkg.shapes", "ext:os", "ext:json"},
        "HAS_METHOD": {("cls:pkg/base.py:Base", base + "Base.greet"), ("cls:pkg/base.py:Base", base + "Base.name"),
                       *(("cls:pkg/shapes.py:Circle", shapes + f"Circle.{m}") for m in ("__init__", "area", "dump"))},
        "IMPORTS": {("file:pkg/base.py", "ext:os"), ("file:pkg/shapes.py", "mod:pkg.base"),
                    ("file:pkg/shapes.py", "ext:json")},
        "DEPENDS_ON": {("mod:pkg.base", "ext:os"), ("mod:pkg.shapes", "mod:pkg.base"), ("mod:pkg.shapes", "ext:json")},
        "EXTENDS": {("cls:pkg/shapes.py:Circle", "cls:pkg/base.py:Base")},
        "IMPLEMENTS": set(),
        "CALLS": {(base + "Base.greet", base + "Base.name"), (shapes + "Circle.area", base + "Base.greet"),
                  (shapes + "Circle.area", base + "helper"), (shapes + "Circle.dump", shapes + "Circle.area"),
                  (shapes + "Circle.dump", base + "helper"), (shapes + "make", shapes + "Circle.__init__")},
    })
    conf = confidences(out)
    assert conf[(base + "Base.greet", base + "Base.name")] == 1.0  # self, own class
    assert conf[(shapes + "Circle.area", base + "Base.greet")] == 0.9  # self, inherited
    circle = next(r for r in out.tables["Class"] if r["name"] == "Circle")
    assert circle["docstring"] == "A round shape." and circle["kind"] == "class"
    assert out.resolution["calls_external"] == 2  # os.path.join, json.dumps


JS = {
    "src/base.js": '''const path = require('path');

export class Base {
  greet() { return this.name(); }
  name() { return 'base'; }
}

export function helper(x) { return path.join(x, 'y'); }
''',
    "src/shapes.js": '''import { Base, helper as h } from './base';
import * as base from './base.js';

// A round shape.
export class Circle extends Base {
  constructor() { super(); }
  area() { return this.greet() + h(1); }
  dump() { return JSON.stringify(this.area()) + base.helper(2); }
}

export const make = () => new Circle();
''',
}


def test_javascript_graph(tmp_path):
    out = extract(tmp_path, JS)
    b, s = "fn:src/base.js:", "fn:src/shapes.js:"
    assert_graph(out, {
        "classes": {"cls:src/base.js:Base", "cls:src/shapes.js:Circle"},
        "functions": {b + "Base.greet", b + "Base.name", b + "helper", s + "Circle.constructor", s + "Circle.area",
                      s + "Circle.dump", s + "make"},
        "modules": {"mod:src/base", "mod:src/shapes", "ext:path"},
        "IMPORTS": {("file:src/base.js", "ext:path"), ("file:src/shapes.js", "mod:src/base")},
        "DEPENDS_ON": {("mod:src/base", "ext:path"), ("mod:src/shapes", "mod:src/base")},
        "EXTENDS": {("cls:src/shapes.js:Circle", "cls:src/base.js:Base")},
        "CALLS": {(b + "Base.greet", b + "Base.name"), (s + "Circle.area", b + "Base.greet"),
                  (s + "Circle.area", b + "helper"), (s + "Circle.dump", s + "Circle.area"),
                  (s + "Circle.dump", b + "helper"), (s + "make", s + "Circle.constructor")},
    })
    circle = next(r for r in out.tables["Class"] if r["name"] == "Circle")
    assert circle["docstring"] == "A round shape."


TS = {
    "src/types.ts": '''export interface Shape {
  area(): number;
}

export enum Color { Red, Blue }
''',
    "src/circle.ts": '''import { Shape } from './types';
import { readFileSync } from 'fs';

/** A circle. */
export class Circle implements Shape {
  area(): number { return this.scale(2); }
  private scale(k: number): number { return k * load(); }
}

function load(): number { return readFileSync('x').length; }
''',
}


def test_typescript_graph(tmp_path):
    out = extract(tmp_path, TS)
    c = "fn:src/circle.ts:"
    assert_graph(out, {
        "classes": {"cls:src/types.ts:Shape", "cls:src/types.ts:Color", "cls:src/circle.ts:Circle"},
        "functions": {c + "Circle.area", c + "Circle.scale", c + "load"},
        "modules": {"mod:src/types", "mod:src/circle", "ext:fs"},
        "IMPORTS": {("file:src/circle.ts", "mod:src/types"), ("file:src/circle.ts", "ext:fs")},
        "DEPENDS_ON": {("mod:src/circle", "mod:src/types"), ("mod:src/circle", "ext:fs")},
        "EXTENDS": set(),
        "IMPLEMENTS": {("cls:src/circle.ts:Circle", "cls:src/types.ts:Shape")},
        "CALLS": {(c + "Circle.area", c + "Circle.scale"), (c + "Circle.scale", c + "load")},
    })
    kinds = {r["name"]: r["kind"] for r in out.tables["Class"]}
    assert kinds == {"Shape": "interface", "Color": "enum", "Circle": "class"}
    assert out.resolution["calls_external"] == 1  # readFileSync


TSX = {
    "src/App.tsx": '''import React from 'react';
import { format } from './format';

export function App() {
  return <div>{format(title())}</div>;
}

function title(): string { return 'hi'; }
''',
    "src/format.ts": "export const format = (s: string): string => s.trim();\n",
}


def test_tsx_graph(tmp_path):
    out = extract(tmp_path, TSX)
    assert {r["path"]: r["language"] for r in out.tables["File"]} == {"src/App.tsx": "tsx", "src/format.ts": "typescript"}
    assert_graph(out, {
        "functions": {"fn:src/App.tsx:App", "fn:src/App.tsx:title", "fn:src/format.ts:format"},
        "modules": {"mod:src/App", "mod:src/format", "ext:react"},
        "IMPORTS": {("file:src/App.tsx", "ext:react"), ("file:src/App.tsx", "mod:src/format")},
        "CALLS": {("fn:src/App.tsx:App", "fn:src/format.ts:format"), ("fn:src/App.tsx:App", "fn:src/App.tsx:title")},
    })
    assert out.syntax_error_files == 0


def test_javascript_methods_assigned_to_objects(tmp_path):
    out = extract(tmp_path, {
        "lib/response.js": '''var res = module.exports = {};

/** Send a body. */
res.send = function send(body) {
  return this.end(body);
};

res.end = function (chunk) { return chunk; };
''',
        "lib/app.js": '''var res = require('./response');

exports.handle = function handle(req) {
  return res.send(req.body);
};
''',
    })
    assert_graph(out, {
        "functions": {"fn:lib/response.js:res.send", "fn:lib/response.js:res.end", "fn:lib/app.js:exports.handle"},
        "modules": {"mod:lib/response", "mod:lib/app"},
        "IMPORTS": {("file:lib/app.js", "mod:lib/response")},
        # `this.end` is a sibling on the same object; `res.send()` is the method defined as `res.send`.
        "CALLS": {("fn:lib/app.js:exports.handle", "fn:lib/response.js:res.send"),
                  ("fn:lib/response.js:res.send", "fn:lib/response.js:res.end")},
    })
    assert confidences(out)[("fn:lib/app.js:exports.handle", "fn:lib/response.js:res.send")] == 0.5
    send = next(r for r in out.tables["Function"] if r["name"] == "send")
    assert send["docstring"] == "Send a body." and send["is_method"] is True


def test_javascript_requires_in_any_form_import_their_module(tmp_path):
    """`require` outside a `var x = require(...)` still imports: a member of it, a re-export, a
    destructuring, a call of what it returns (express's lib/application.js and index.js)."""
    out = extract(tmp_path, {
        "lib/utils.js": "exports.compileTrust = function compileTrust(v) { return v; };\n",
        "lib/view.js": "module.exports = View;\nfunction View(name) { this.name = name; }\n",
        "lib/express.js": "exports.View = require('./view');\n",
        "lib/application.js": """var compileTrust = require('./utils').compileTrust;
var { join } = require('path');
var debug = require('debug')('express:application');
var View = require('./view');

exports.set = function set(v) { return compileTrust(join(v, 'x')); };
""",
        "index.js": "module.exports = require('./lib/express');\n",
    })
    assert_graph(out, {"IMPORTS": {
        ("file:lib/application.js", "mod:lib/utils"), ("file:lib/application.js", "ext:path"),
        ("file:lib/application.js", "ext:debug"), ("file:lib/application.js", "mod:lib/view"),
        ("file:lib/express.js", "mod:lib/view"), ("file:index.js", "mod:lib/express"),
    }})
    app_imports = [r for r in out.tables["IMPORTS"] if r["src"].endswith("lib/application.js")]
    assert len(app_imports) == 4  # one row per require, not one per pattern that matches it
    assert ("fn:lib/application.js:exports.set", "fn:lib/utils.js:exports.compileTrust") in graph(out)["CALLS"]


STAR = {
    "pkg/__init__.py": "from pkg.core import *\nfrom .types import *\n",
    "pkg/core.py": "class Base:\n    pass\n\n\ndef helper():\n    return 1\n",
    "pkg/types.py": '''import typing as t
from pkg.core import *


class ParamType(t.Generic[int]):
    pass


class Choice(ParamType[int], t.Generic[int]):
    def pick(self):
        return helper()
''',
}


def test_python_star_imports_and_subscripted_bases(tmp_path):
    """`from m import *` is an import of m (its names resolve through it); `class C(Base[T])` extends Base."""
    out = extract(tmp_path, STAR)
    imports = {(r["src"].split(":", 2)[2], r["dst"].split(":", 2)[2]) for r in out.tables["IMPORTS"]}
    assert {("pkg/__init__.py", "pkg.core"), ("pkg/__init__.py", "pkg.types"), ("pkg/types.py", "pkg.core")} <= imports
    depends = {(r["src"].split(":", 2)[2], r["dst"].split(":", 2)[2]) for r in out.tables["DEPENDS_ON"]}
    assert {("pkg", "pkg.core"), ("pkg", "pkg.types"), ("pkg.types", "pkg.core")} <= depends
    extends = {(r["src"].rsplit(":", 1)[1], r["dst"].rsplit(":", 1)[1]) for r in out.tables["EXTENDS"]}
    assert extends == {("Choice", "ParamType")}
    calls = {(r["src"].rsplit(":", 1)[1], r["dst"].rsplit(":", 1)[1]) for r in out.tables["CALLS"]}
    assert ("Choice.pick", "helper") in calls  # helper is visible through the star import


def _import_names(out) -> dict[tuple[str, str], str | None]:
    return {(r["src"].split(":", 2)[-1], r["dst"].split(":")[-1]): r["names"] for r in out.tables["IMPORTS"]}


def test_imports_carry_the_names_a_file_imports_from_the_module(tmp_path):
    py = _import_names(extract(tmp_path / "py", PY))
    # `from pkg.base import Base, helper` and `from . import base as b` are one edge to pkg.base
    assert py[("pkg/shapes.py", "pkg.base")] == "Base,helper"
    assert py[("pkg/shapes.py", "json")] is None  # a whole-module import names nothing
    js = _import_names(extract(tmp_path / "js", JS))
    assert js[("src/shapes.js", "src/base")] is not None and "Base" in js[("src/shapes.js", "src/base")].split(",")


def test_a_jsdoc_block_above_a_blank_line_is_the_definitions_doc(tmp_path):
    """express writes `/** ... */`, a blank line, then `res.jsonp = function jsonp(obj) {...}` or a
    `defineGetter(req, 'protocol', function protocol() {...})`: the block is the doc all the same. A
    licence header (`/*!`), a plain `//` comment or a block three blank lines up is not."""
    out = extract(tmp_path, {
        "lib/response.js": '''/*!
 * express
 * MIT Licensed
 */

function first(a) { return a; }

/**
 * Send JSON response with JSONP callback support.
 *
 * @param {object} obj
 * @public
 */

res.jsonp = function jsonp(obj) {
  return obj;
};

// a helper, not documented

function helper(x) { return x; }

/** Far away. */



function alone(y) { return y; }

/**
 * Return the protocol string "http" or "https".
 */

defineGetter(req, 'protocol', function protocol() {
  return 'http';
});
''',
    })
    docs = {r["name"]: r["docstring"] for r in out.tables["Function"]}
    assert docs["jsonp"] == "Send JSON response with JSONP callback support.\n@param {object} obj\n@public"
    assert docs["protocol"] == 'Return the protocol string "http" or "https".'
    assert docs["first"] is None and docs["helper"] is None and docs["alone"] is None, docs
    jsonp = next(r for r in out.tables["Function"] if r["name"] == "jsonp")
    assert "Send JSON response with JSONP callback support." in jsonp["text"]  # what gets embedded


def test_a_call_on_a_variable_named_like_an_object_reaches_that_objects_method(tmp_path):
    """express: `res.render` calls `app.render(...)` through `var app = this.req.app`, and both objects
    define `render`: the call is `app.render`'s, the one method defined on an object named `app`."""
    out = extract(tmp_path, {
        "lib/application.js": "var app = exports = module.exports = {};\n"
                              "app.render = function render(name, options, callback) { return name; };\n",
        "lib/response.js": "var res = module.exports = {};\n"
                           "res.render = function render(view, options) {\n"
                           "  var app = this.req.app;\n"
                           "  app.render(view, options);\n"
                           "};\n"
                           "res.send = function send(body) { return other.render(body); };\n",
    })
    calls = confidences(out)
    assert calls[("fn:lib/response.js:res.render", "fn:lib/application.js:app.render")] == 0.5
    # a receiver named like no object stays unresolved: `render` is defined twice
    assert not any(src == "fn:lib/response.js:res.send" for src, _ in calls)


def test_a_method_of_the_hosts_global_objects_is_never_the_repositorys_only_method_of_that_name(tmp_path):
    """hono: `caches.open(name)` in its cache middleware was guessed into the one `open` method of the repository
    (a WebSocket handler's); `console.log(x)` would be the only `log`. A name the file binds itself is its own."""
    out = extract(tmp_path, {
        "src/socket.js": "export class Socket {\n  open(url) { return url; }\n  log(line) { return line; }\n}\n",
        "src/cache.js": "export async function cached(name) {\n"
                        "  const store = await caches.open(name);\n"
                        "  console.log(store);\n"
                        "  return store;\n"
                        "}\n",
        "src/own.js": "import { Socket } from './socket.js';\n"
                      "const console = new Socket();\n"
                      "export function talk() {\n  console.log('hi');\n}\n",
    })
    calls = confidences(out)
    assert not any(src == "fn:src/cache.js:cached" for src, _ in calls)
    assert ("fn:src/own.js:talk", "fn:src/socket.js:Socket.log") in calls


TS_FIELDS = {
    "src/engine.ts": "export class Engine {\n  start(): number { return 1; }\n}\n",
    "src/pump.ts": "export class Pump {\n  start(): number { return 2; }\n}\n",
    "src/plant.ts": '''import { Engine } from "./engine";
import { Pump } from "./pump";

export class Plant {
  private engine: Engine;
  spare = new Pump();

  constructor(private readonly pump: Pump) {
    this.engine = undefined as unknown as Engine;
  }

  field(): number { return this.engine.start(); }

  initialised(): number { return this.spare.start(); }

  property(): number { return this.pump.start(); }

  parameter(e: Engine): number { return e.start(); }
}
''',
}


def test_typescript_fields_constructor_properties_and_parameters_give_the_class_a_call_reaches(tmp_path):
    """`start` is a method of two classes: a field's type, a field's initial `new`, a constructor parameter
    property (`private readonly pump: Pump`) and a parameter's type each say which."""
    conf = confidences(extract(tmp_path, TS_FIELDS))
    p, engine, pump = "fn:src/plant.ts:Plant.", "fn:src/engine.ts:Engine.start", "fn:src/pump.ts:Pump.start"
    assert conf[(p + "field", engine)] == 0.8 and (p + "field", pump) not in conf
    assert conf[(p + "initialised", pump)] == 0.8 and (p + "initialised", engine) not in conf
    assert conf[(p + "property", pump)] == 0.8 and (p + "property", engine) not in conf
    assert conf[(p + "parameter", engine)] == 0.8 and (p + "parameter", pump) not in conf


# A JS/TS workspace, as zod's: a package `import`ed by its name from another package of the repository
MONOREPO = {
    "package.json": '{"name": "acme-monorepo", "private": true, "workspaces": ["packages/*"]}',
    "packages/core/package.json": '{"name": "@acme/core", "exports": {".": {"types": "./index.d.ts", '
                                  '"source": "./src/index.ts", "import": "./index.js"}, "./util": "./src/util.ts"}}',
    "packages/core/src/index.ts": "export function parse(s: string): string {\n  return s.trim();\n}\n",
    "packages/core/src/util.ts": "export function twice(n: number): number {\n  return n * 2;\n}\n",
    "packages/core/src/job.ts": "export class Job {\n  finish(): number {\n    return 1;\n  }\n}\n",
    "packages/app/package.json": '{"name": "app", "main": "./lib/main.js"}',
    "packages/app/src/main.ts": '''import { parse } from "@acme/core";
import { twice } from "@acme/core/util";
import * as core from "@acme/core";

export function run(): number {
  return twice(parse(" 1 ").length);
}

export function go(): number {
  return core.make().finish();
}
''',
    "packages/app/package-broken/package.json": "{not json",
}


def test_a_workspace_package_imported_by_its_name_is_the_repositorys_own_module(tmp_path):
    out = extract(tmp_path, MONOREPO)
    main, core = "fn:packages/app/src/main.ts:", "fn:packages/core/src/"
    assert_graph(out, {
        "IMPORTS": {("file:packages/app/src/main.ts", "mod:packages/core/src"),
                    ("file:packages/app/src/main.ts", "mod:packages/core/src/util")},
        # `core.make()` names nothing of the package: what it returns is not known, so its `finish()` is
        # not the repository's only `finish` (Job's), as it would not be for another package's module
        "CALLS": {(main + "run", core + "index.ts:parse"), (main + "run", core + "util.ts:twice")},
    })


def test_the_packages_code_is_never_guessed_to_call_into_its_tests(tmp_path):
    """uvicorn: `self.transport.close()` in the server is asyncio's transport, not the tests'
    `MockTransport.close`, though that is the repository's only `close`; a test's mock does not
    make a package method's name ambiguous either."""
    out = extract(tmp_path, {
        "pkg/server.py": '''class Server:
    def shutdown(self):
        self.transport.close()

    def flush(self):
        self.buffer.drain()
''',
        "pkg/buffer.py": "class Buffer:\n    def drain(self):\n        return b''\n",
        "tests/test_server.py": '''class MockTransport:
    def close(self):
        self.closed = True


class MockBuffer:
    def drain(self):
        return b"x"


def test_close():
    MockTransport().close()
    t = make()
    t.close()
''',
    })
    calls = confidences(out)
    assert not any(src == "fn:pkg/server.py:Server.shutdown" for src, _ in calls), calls
    assert calls.get(("fn:pkg/server.py:Server.flush", "fn:pkg/buffer.py:Buffer.drain")) == 0.3
    # a test's own guesses still see the tests: its `t.close()` is the mock's
    assert ("fn:tests/test_server.py:test_close", "fn:tests/test_server.py:MockTransport.close") in calls


# Hono's `Context`: most of its API is class fields that hold arrow functions, and private `#` methods
TS_FIELD_METHODS = {
    "src/context.ts": '''type Respond = (s: string) => string

export class Context {
  #status = 200
  json = (o: object): string => this.#render(JSON.stringify(o))
  text: Respond = (s: string) => {
    const res = (x: string) => x
    return res(this.#render(s))
  }
  #render(s: string): string {
    return s + this.#status
  }
  get res(): string {
    return this.text('r')
  }
}

export function handle(c: Context): string {
  return c.json({}) + c.text('x')
}
''',
    "lib/app.js": '''export class App {
  #routes = []
  fetch = (req) => this.#dispatch(req)
  #dispatch(req) { return this.#routes.length }
}
''',
}


def test_class_fields_holding_functions_and_private_methods_are_methods(tmp_path):
    """`json = () => ...` and `#render()` are methods of the class: what `c.json()` and `this.#render()`
    call; a function declared inside such a field is that method's, not another method of the class."""
    out = extract(tmp_path, TS_FIELD_METHODS)
    c, a = "fn:src/context.ts:Context.", "fn:lib/app.js:App."
    assert_graph(out, {
        "functions": {c + "json", c + "text", c + "text.res", c + "#render", c + "res",
                      "fn:src/context.ts:handle", a + "fetch", a + "#dispatch"},
        "HAS_METHOD": {*(("cls:src/context.ts:Context", c + m) for m in ("json", "text", "#render", "res")),
                       ("cls:lib/app.js:App", a + "fetch"), ("cls:lib/app.js:App", a + "#dispatch")},
        "CALLS": {(c + "json", c + "#render"), (c + "text", c + "text.res"), (c + "text", c + "#render"),
                  (c + "res", c + "text"), ("fn:src/context.ts:handle", c + "json"),
                  ("fn:src/context.ts:handle", c + "text"), (a + "fetch", a + "#dispatch")},
    })


def test_a_function_a_method_assigns_to_this_is_a_method_of_its_class(tmp_path):
    """Hono's constructor sets `this.on = (...) => ...`: `app.on()` calls `Hono.on`, not a function
    nested in the constructor; a plain constructor function's `this.x = function` stays its own."""
    out = extract(tmp_path, {
        "src/hono.ts": '''export class Hono {
  constructor() {
    this.on = (path: string) => this.add(path)
  }
  add(path: string): string {
    return path
  }
}

export function serve(app: Hono): string {
  return app.on('/')
}
''',
        "lib/legacy.js": "function Router() {\n  this.route = function (p) { return p }\n}\n",
    })
    h = "fn:src/hono.ts:Hono."
    assert_graph(out, {
        "functions": {h + "constructor", h + "on", h + "add", "fn:src/hono.ts:serve", "fn:lib/legacy.js:Router",
                      "fn:lib/legacy.js:Router.route"},
        "HAS_METHOD": {("cls:src/hono.ts:Hono", h + m) for m in ("constructor", "on", "add")},
        "CALLS": {(h + "on", h + "add"), ("fn:src/hono.ts:serve", h + "on")},
    })


def test_a_barrel_files_re_exports_are_its_imports_and_lead_to_the_definitions(tmp_path):
    """Hono's `helper/streaming/index.ts` re-exports its files: `import { streamSSE } from './helper/streaming'`
    calls `sse.ts`'s function through `export { ... } from`, `export * from` and `export { a as b } from`."""
    out = extract(tmp_path, {
        "src/helper/streaming/index.ts": "export { streamSSE } from './sse'\nexport * from './text'\n"
                                         "export { stream as streamAlias } from './stream'\n",
        "src/helper/streaming/sse.ts": "export const streamSSE = (s: string): string => s\n",
        "src/helper/streaming/text.ts": "export function streamText(s: string): string {\n  return s\n}\n",
        "src/helper/streaming/stream.ts": "export function stream(s: string): string {\n  return s\n}\n",
        "src/app.ts": '''import { streamSSE, streamText, streamAlias } from './helper/streaming'

export function serve(): string {
  return streamSSE('a') + streamText('b') + streamAlias('c')
}
''',
    })
    h = "mod:src/helper/streaming"
    assert_graph(out, {
        "IMPORTS": {("file:src/app.ts", h), *(("file:src/helper/streaming/index.ts", f"{h}/{m}")
                                              for m in ("sse", "text", "stream"))},
        "DEPENDS_ON": {("mod:src/app", h), *((h, f"{h}/{m}") for m in ("sse", "text", "stream"))},
    })
    conf = confidences(out)
    assert {dst: c for (src, dst), c in conf.items() if src == "fn:src/app.ts:serve"} == {
        "fn:src/helper/streaming/sse.ts:streamSSE": 0.9, "fn:src/helper/streaming/text.ts:streamText": 0.9,
        "fn:src/helper/streaming/stream.ts:stream": 0.9}


def test_a_parameter_or_field_of_a_generic_type_holds_that_class(tmp_path):
    """Hono's handlers take `c: Context<E>`: `c.json()` is `Context.json`, though `HonoRequest` has a `json`."""
    out = extract(tmp_path, {
        "src/context.ts": "export class Context<E> {\n  json(): string {\n    return 'c'\n  }\n}\n",
        "src/request.ts": "export class HonoRequest<P> {\n  json(): string {\n    return 'r'\n  }\n}\n",
        "src/handler.ts": '''import { Context } from './context'
import { HonoRequest } from './request'

export function handle<E>(c: Context<E>): string {
  return c.json()
}

export class Holder {
  req: HonoRequest<string>
  read(): string {
    return this.req.json()
  }
}
''',
    })
    conf = confidences(out)
    assert {k: v for k, v in conf.items() if k[0].startswith("fn:src/handler.ts")} == {
        ("fn:src/handler.ts:handle", "fn:src/context.ts:Context.json"): 0.8,
        ("fn:src/handler.ts:Holder.read", "fn:src/request.ts:HonoRequest.json"): 0.8}


def test_a_call_of_a_parameter_or_variable_is_no_call_of_a_function_of_that_name(tmp_path):
    """Hono's tests resolve promises they make (`new Promise((resolve) => ... resolve())`): not the
    benchmarks' `resolve` function, the only one of that name; a parameter `next()` is not `next`, but a
    function's own name and a name only an arrow function beside the call binds are no variables there."""
    out = extract(tmp_path, {
        "benchmarks/resolve.ts": "export function resolve(s: string): string {\n  return s\n}\n",
        "src/compose.ts": '''export function next(): number {
  return 1
}

export function run(next: () => number): number {
  const done = () => 2
  return next() + done()
}

export function go(): number {
  return next()
}

export const walk = (n: number): number => (n > 0 ? walk(n - 1) : 0)

export function each(cb: (next: number) => number): number {
  return next() + [1].map((next) => next + 1).length + cb(1)
}
''',
        "src/compose.test.ts": '''function wait(ms: number): Promise<number> {
  return new Promise((resolve) => setTimeout(() => resolve(ms), ms))
}
''',
    })
    c = "fn:src/compose.ts:"
    assert_graph(out, {"CALLS": {(c + "run", c + "run.done"), (c + "go", c + "next"), (c + "walk", c + "walk"),
                                 (c + "each", c + "next")}})


def test_destructured_names_and_a_bare_arrow_parameter_are_variables(tmp_path):
    """Hono's Deno adapter takes `open` out of `Deno` (`const { open } = Deno`): `open(path)` is not the only
    function `open` of the repository, nor is `resolve` of `new Promise(resolve => ...)` in a .js file; a name
    destructured from `require(...)` is the module's."""
    out = extract(tmp_path, {
        "src/ws.ts": "export function open(): number {\n  return 1\n}\nexport function close(): number {\n  return 2\n}\n",
        "src/deno.ts": '''export function serve(path: string): number {
  const { open } = Deno
  const [close] = [() => 3]
  return open(path) + close()
}
''',
        "lib/wait.js": "export function resolve() {}\n\nexport function wait(ms) {\n"
                       "  return new Promise(resolve => setTimeout(() => resolve(ms), ms))\n}\n",
        "lib/lazy.js": "function load() {\n  const { close } = require('../src/ws')\n"
                       "  const open = require('../src/ws').open\n  return close() + open()\n}\n",
    })
    assert_graph(out, {"CALLS": {("fn:lib/lazy.js:load", "fn:src/ws.ts:close"), ("fn:lib/lazy.js:load", "fn:src/ws.ts:open")}})


def test_a_typescript_cast_names_the_class_of_the_receiver(tmp_path):
    """Hono's `(request as Request).arrayBuffer()` is the platform's Request, not `HonoRequest.arrayBuffer`,
    the only method of the name; `(r as Router).add()` is our `Router`'s."""
    out = extract(tmp_path, {
        "src/request.ts": "export class HonoRequest {\n  arrayBuffer(): number {\n    return 1\n  }\n}\n",
        "src/router.ts": "export class Router {\n  add(): number {\n    return 1\n  }\n}\n"
                         "export class Trie {\n  add(): number {\n    return 2\n  }\n}\n",
        "src/body.ts": '''import { Router } from './router'

export function parse(request: unknown, r: unknown): number {
  return (request as Request).arrayBuffer() + (r as Router).add()
}
''',
    })
    assert confidences(out) == {("fn:src/body.ts:parse", "fn:src/router.ts:Router.add"): 0.8}


def test_a_python_name_bound_inside_an_if_block_is_a_variable_of_the_whole_function(tmp_path):
    """`resolve = items.pop` inside an `if` binds `resolve` for all of `f` (Python's `block` is a statement's body,
    not a function): `resolve()` after the `if` calls the variable, not the module's function `resolve`."""
    out = extract(tmp_path, {"pkg/a.py": "def resolve():\n    return 1\n\n\ndef f(items):\n    if items:\n"
                                         "        resolve = items.pop\n    return resolve()\n"})
    assert confidences(out) == {}


OBJECT_METHODS = {
    "src/api.js": '''const api = {
  /** Fetch a page. */
  get(url) { return url; },
  post: function (url, body) { return body; },
  put: (url) => url,
  limit: 3,
};

function fetchAll(urls) {
  return urls.map((u) => api.get(u)).concat(api.post(urls[0], 1), api.put(urls[1]));
}

module.exports = {
  helper() { return fetchAll([]); },
  other: function () { return 1; },
};
''',
    "src/client.ts": '''export const client = {
  get(url: string): string { return url; },
  del: (url: string): string => url,
} as const;
''',
    "src/use.ts": '''import { client } from "./client";

export function remove(u: string) {
  return client.del(u) + client.get(u);
}
''',
    "src/widget.js": '''export default {
  name: 'widget',
  data() { return {}; },
  mounted: function () { return this.load(); },
  methods: {
    load() { return this.bump(); },
    bump: function () { return 1; },
  },
};
''',
    "test/mock.js": '''const client = {
  get(url) { return 'mock'; },
};
''',
}


def test_object_literal_methods_are_functions_named_by_their_object(tmp_path):
    """`const api = { get(url) {}, post: function () {}, put: (x) => x }` (hono's `websocket = { open(ws) {} }`,
    express's examples' `var User = { index: function (req, res) {} }`): before, `get() {}` was a function named
    only `get` and the other two no function at all."""
    out = extract(tmp_path, OBJECT_METHODS)
    fns = {short(r["id"]): r for r in out.tables["Function"]}
    assert {"fn:src/api.js:api.get", "fn:src/api.js:api.post", "fn:src/api.js:api.put",
            "fn:src/api.js:module.exports.helper", "fn:src/api.js:module.exports.other",
            "fn:src/client.ts:client.get", "fn:src/client.ts:client.del",
            "fn:src/widget.js:data", "fn:src/widget.js:mounted", "fn:src/widget.js:load",
            "fn:src/widget.js:bump"} <= set(fns)
    assert "fn:src/api.js:get" not in fns and "fn:src/api.js:limit" not in fns
    assert fns["fn:src/api.js:api.get"]["docstring"] == "Fetch a page." and fns["fn:src/api.js:api.get"]["is_method"]
    assert fns["fn:src/api.js:api.put"]["line_start"] == 5


def test_a_call_on_an_object_reaches_its_literal_methods(tmp_path):
    calls = confidences(extract(tmp_path, OBJECT_METHODS))
    fetch_all = "fn:src/api.js:fetchAll"
    assert {(fetch_all, f"fn:src/api.js:api.{m}") for m in ("get", "post", "put")} <= set(calls)
    assert calls[("fn:src/api.js:module.exports.helper", fetch_all)] == 1.0
    # `client` is imported: its module's object, not the test's mock of the same name
    assert ("fn:src/use.ts:remove", "fn:src/client.ts:client.get") in calls
    assert ("fn:src/use.ts:remove", "fn:src/client.ts:client.del") in calls
    assert not any(dst == "fn:test/mock.js:client.get" for _, dst in calls)
    # a Vue component's `this` is the default export's object: its functions, `methods: {...}` too
    assert calls[("fn:src/widget.js:mounted", "fn:src/widget.js:load")] == 1.0
    assert calls[("fn:src/widget.js:load", "fn:src/widget.js:bump")] == 1.0
