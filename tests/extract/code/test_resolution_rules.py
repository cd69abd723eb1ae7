"""Resolution rules found wrong on real repositories (#17), each on a small project written for it.

Getters defined through a helper (express's `defineGetter`), functions handed to another function
to run (`functools.partial`, `Thread(target=...)`, callbacks), calls on an attribute of self
(`self.file.write()`), base classes and constructors named through another package's import,
built-in receivers (`Object.create()`), built-in method names (`d.get(k)` on a dict), names a
package imports from its own modules (`flask.url_for`) and `super()` receivers.
"""

import json

from tests.builder import RepoBuilder
from tests.extract.graphs import confidences, extract, graph
from tests.test_cli import run

PY = {
    "pkg/__init__.py": "",
    "pkg/concurrency.py": '''def run_in_threadpool(func, *args):
    return func(*args)
''',
    "pkg/files.py": '''import functools
import threading
from pkg.concurrency import run_in_threadpool


def handle(request):
    return request


def render(item):
    return str(item)


def decorate(f):
    def wrapper(*args):
        return f(*args)
    return functools.update_wrapper(wrapper, f)


def endpoint(func):
    if func is None:
        func = functools.partial(run_in_threadpool, handle)
    return func


def render_all(items, render_one=None):
    return list(map(render, items)) + list(map(render_one, items))


def shadowed(handle):
    return run_in_threadpool(handle)


class UploadFile:
    def __init__(self, file):
        self.file = file

    def write(self, data):
        self.file.write(data)
        return run_in_threadpool(self.flush)

    def flush(self):
        self.file.flush()

    def start(self):
        worker = threading.Thread(target=self.flush)
        return worker

    def close(self):
        self.write(b"")
        return isinstance(self.file, UploadFile)
''',
}


def test_a_function_passed_as_a_value_is_called_at_lower_confidence(tmp_path):
    out = extract(tmp_path, PY)
    f, c = "fn:pkg/files.py:", "fn:pkg/concurrency.py:"
    calls = graph(out)["CALLS"]
    conf = confidences(out)
    assert conf[(f + "endpoint", c + "run_in_threadpool")] == 0.7  # functools.partial(run_in_threadpool, ...)
    assert conf[(f + "endpoint", f + "handle")] == 0.7  # ... handle)
    assert conf[(f + "render_all", f + "render")] == 0.7  # map(render, items)
    assert conf[(f + "UploadFile.start", f + "UploadFile.flush")] == 0.7  # Thread(target=self.flush)
    assert conf[(f + "UploadFile.write", f + "UploadFile.flush")] == 0.7  # run_in_threadpool(self.flush)
    assert conf[(f + "UploadFile.write", c + "run_in_threadpool")] == 0.9  # the call itself keeps its rule
    # a parameter named like a module function is that variable; update_wrapper never runs `wrapper`;
    # isinstance(x, UploadFile) constructs nothing
    assert (f + "shadowed", f + "handle") not in calls
    assert (f + "decorate", f + "decorate.wrapper") not in calls
    assert (f + "UploadFile.close", f + "UploadFile.__init__") not in calls
    assert out.resolution["refs_resolved"] == 5


def test_a_call_on_an_attribute_of_self_is_not_a_call_of_the_own_class(tmp_path):
    out = extract(tmp_path, PY)
    f = "fn:pkg/files.py:"
    calls = graph(out)["CALLS"]
    assert (f + "UploadFile.write", f + "UploadFile.write") not in calls  # self.file.write(data)
    assert (f + "UploadFile.flush", f + "UploadFile.flush") not in calls  # self.file.flush()
    assert confidences(out)[(f + "UploadFile.close", f + "UploadFile.write")] == 1.0  # self.write(b"")


BASES = {
    "app/__init__.py": "",
    "app/responses.py": '''class Response:
    def __init__(self, body):
        self.body = body


class JSONResponse(Response):
    pass
''',
    "app/testclient.py": '''import httpx
from httpx import Client

from app.responses import Response as AppResponse


class DenialResponse(httpx.Response):
    pass


class TestClient(Client):
    pass


class Echo(AppResponse):
    def reply(self):
        return httpx.Response(200)
''',
    "app/client.py": '''from httpx import Response


class Denied(Response):
    pass


def fetch():
    return Response(200)
''',
}


def test_base_classes_and_constructors_follow_the_file_imports(tmp_path):
    g = graph(extract(tmp_path, BASES))
    assert g["EXTENDS"] == {
        ("cls:app/responses.py:JSONResponse", "cls:app/responses.py:Response"),
        ("cls:app/testclient.py:Echo", "cls:app/responses.py:Response"),  # an alias of our own class
    }  # httpx.Response, `from httpx import Response` and httpx's Client are not ours
    assert not {(src, dst) for src, dst in g["CALLS"] if dst == "fn:app/responses.py:Response.__init__"}


HELD = {
    "app/routing.py": '''class Router:
    def mount(self, path):
        return path


class Host:
    def mount(self, path):
        return path
''',
    "app/applications.py": '''from app.routing import Router


class App:
    def __init__(self):
        self.router = Router()

    def mount(self, path):
        return self.router.mount(path)
''',
    "gin/context.go": '''package gin

type Engine struct{}

func (engine *Engine) handle(path string) string { return path }

type Tree struct{}

func (t *Tree) handle(path string) string { return path }

type Context struct {
	engine *Engine
}

func (c *Context) Next(path string) string { return c.engine.handle(path) }
''',
}


def test_a_call_on_an_attribute_goes_to_the_class_the_attribute_holds(tmp_path):
    """`self.router.mount()` after `self.router = Router()`; `c.engine.handle()` with a field `engine *Engine`:
    two classes define the method, so only the attribute's class tells which one runs."""
    out = extract(tmp_path, HELD)
    conf = confidences(out)
    assert conf[("fn:app/applications.py:App.mount", "fn:app/routing.py:Router.mount")] == 0.8
    assert conf[("fn:gin/context.go:Context.Next", "fn:gin/context.go:Engine.handle")] == 0.8
    callees = {dst for src, dst in graph(out)["CALLS"]}
    assert "fn:app/routing.py:Host.mount" not in callees and "fn:gin/context.go:Tree.handle" not in callees


JS = {
    "lib/request.js": '''var req = Object.create(null);

req.get = function header(name) {
  return this.headers[name];
};

defineGetter(req, 'protocol', function protocol() {
  var trust = this.app.get('trust proxy fn');
  return parse(this.get('X-Forwarded-Proto'), trust);
});

defineGetter(req, 'query', function () {
  return Object.create(null);
});

function parse(value, fn) {
  return fn(value);
}

function defineGetter(obj, name, getter) {
  Object.defineProperty(obj, name, { configurable: true, enumerable: true, get: getter });
}

module.exports = req;
''',
    "lib/store.js": '''exports.create = function (name) {
  return { name: name };
};

function listen(port, onListening) {
  return setTimeout(onListening, port);
}

function ready() {
  return true;
}

function start() {
  return listen(80, ready);
}

function load(path, done) {
  fs.readFile(path, 'utf8', function (err, text) { done(text); });
}

module.exports.start = start;
''',
}


def test_javascript_getters_references_and_built_in_receivers(tmp_path):
    out = extract(tmp_path, JS)
    g = graph(out)
    r, s = "fn:lib/request.js:", "fn:lib/store.js:"
    assert {r + "req.protocol", r + "req.query"} <= g["functions"]
    assert not {f for f in g["functions"] if f.endswith(".utf8")}  # readFile's callback is no getter
    assert (r + "req.protocol", r + "parse") in g["CALLS"]  # a call inside the getter is the getter's
    assert confidences(out)[(s + "start", s + "ready")] == 0.7  # listen(80, ready)
    assert (s + "listen", s + "start") not in g["CALLS"]
    assert (r + "req.query", s + "exports.create") not in g["CALLS"]  # Object.create: a built-in


BUILTIN_NAMES = {
    "store/__init__.py": "",
    "store/cache.py": '''class Cache:
    def get(self, key):
        return key

    def evict(self, key):
        return key
''',
    "store/files.py": "def open(path):\n    return path\n",
    "store/service.py": '''from store.cache import Cache


def read(path):
    return open(path).read()


def lookup(key):
    d = {}
    return d.get(key)


def drop(cache, key):
    return cache.evict(key)


class Service:
    def __init__(self):
        self.cache = Cache()

    def find(self, key):
        return self.cache.get(key)
''',
    "web/cache.js": '''class Cache {
  get(key) { return key; }
  evict(key) { return key; }
}

function lookup(key) {
  const seen = new Map();
  return seen.get(key);
}

function drop(cache, key) {
  return cache.evict(key);
}

class Service {
  constructor() { this.cache = new Cache(); }
  find(key) { return this.cache.get(key); }
}
''',
}


def test_a_built_in_method_name_on_an_unknown_receiver_is_no_guess(tmp_path):
    """`d = {}; d.get(k)` and `new Map().get(k)` are no calls of the repository's only `get`
    (`Cache.get`), nor `open(path)` of its only function `open`; `self.cache.get(k)` after
    `self.cache = Cache()` is, and a name no built-in type has (`cache.evict`) is still guessed."""
    out = extract(tmp_path, BUILTIN_NAMES)
    conf = confidences(out)
    py, js = "fn:store/service.py:", "fn:web/cache.js:"
    assert (py + "lookup", "fn:store/cache.py:Cache.get") not in conf
    assert (js + "lookup", js + "Cache.get") not in conf
    assert conf[(py + "Service.find", "fn:store/cache.py:Cache.get")] == 0.8
    assert conf[(js + "Service.find", js + "Cache.get")] == 0.8
    assert conf[(py + "drop", "fn:store/cache.py:Cache.evict")] == 0.3
    assert conf[(js + "drop", js + "Cache.evict")] == 0.3
    assert (py + "read", "fn:store/files.py:open") not in conf  # the built-in `open`, not files.py's
    assert out.resolution["calls_builtin_name"] == 3


REEXPORTS = {
    "src/pkg/__init__.py": "from .helpers import url_for\nfrom .status import codes\n",
    "src/pkg/helpers.py": "def url_for(endpoint):\n    return endpoint\n",
    "src/pkg/status.py": "codes = {}\n",
    "src/pkg/app.py": '''class App:
    def url_for(self, endpoint):
        return endpoint
''',
    "docs/conf.py": "def url_for(name):\n    return name\n",
    "tests/test_urls.py": '''import pkg
from pkg import url_for


def test_module_attribute():
    return pkg.url_for("index")


def test_imported_name():
    return url_for("index")


def test_object_of_the_module():
    return pkg.codes.url_for("index")
''',
}


def test_a_name_a_package_imports_is_the_function_it_imports(tmp_path):
    """`pkg/__init__.py` re-exports `url_for` from `pkg.helpers`: `pkg.url_for()` and `from pkg import
    url_for` call that function (not `App.url_for`, the only method of the name, nor `docs/conf.py`'s);
    `pkg.codes.url_for()` is a call on an object the package holds, not on the package."""
    out = extract(tmp_path, REEXPORTS)
    conf = confidences(out)
    t, helper = "fn:tests/test_urls.py:", "fn:src/pkg/helpers.py:url_for"
    assert conf[(t + "test_module_attribute", helper)] == 0.9
    assert conf[(t + "test_imported_name", helper)] == 0.9
    assert (t + "test_object_of_the_module", helper) not in conf
    assert {dst for src, dst in conf if src == t + "test_module_attribute"} == {helper}


SUPER = {
    "app/wrappers.py": '''from werkzeug import Request as RequestBase


class Base:
    def load(self):
        return 1


class Child(Base):
    def load(self):
        return super().load()


class Request(RequestBase):
    def on_failure(self, e):
        return super().on_failure(e)
''',
    "web/view.js": '''class Base {
  render() { return 1; }
}

class Child extends Base {
  render() { return super.render(); }
}

class Page extends HTMLElement {
  remove() { return super.remove(); }
}
''',
}


def test_super_calls_the_base_class_method_or_nothing(tmp_path):
    """`super().load()` is the base's `load`; `super().on_failure()` in a subclass of werkzeug's Request
    is werkzeug's, never the caller's own method, the only `on_failure` of the repository (flask's
    `Request._load_form_data` called itself)."""
    conf = confidences(extract(tmp_path, SUPER))
    py, js = "fn:app/wrappers.py:", "fn:web/view.js:"
    assert conf[(py + "Child.load", py + "Base.load")] == 0.9
    assert conf[(js + "Child.render", js + "Base.render")] == 0.9
    assert (py + "Request.on_failure", py + "Request.on_failure") not in conf
    assert (js + "Page.remove", js + "Page.remove") not in conf
    assert (py + "Child.load", py + "Child.load") not in conf


def test_calls_answer_with_the_new_edges(tmp_path):
    """What a user sees: `ltm calls` lists the function that hands work over, and not the false self-call."""
    b = RepoBuilder(tmp_path / "proj")
    for path, text in PY.items():
        b.write(path, text)
    b.commit("files")
    home = tmp_path / "home"
    run("ingest", b.path, "--home", home, "--embedder", "hash")
    rows = json.loads(run("calls", "run_in_threadpool", "--json", "--home", home).output)
    assert {(r["caller"], r["confidence"]) for r in rows} == {
        ("endpoint", 0.7), ("shadowed", 0.9), ("UploadFile.write", 0.9)}
    callees = json.loads(run("calls", "UploadFile.write", "--callees", "--json", "--home", home).output)
    assert sorted(r["callee"] for r in callees) == ["UploadFile.flush", "run_in_threadpool"]


FACTORIES = {
    "sqla/__init__.py": "",
    "sqla/schema.py": '''class Column:
    def __init__(self, name):
        self.name = name
''',
    "sqla/testing/__init__.py": "",
    "sqla/testing/schema.py": '''from sqla import schema


def Column(*args):
    return schema.Column(*args)
''',
    "tests/test_tables.py": '''from sqla.testing.schema import Column


def test_factory():
    return Column("id")
''',
    "tests/test_direct.py": '''from sqla.schema import Column


def test_class():
    return Column("id")
''',
}


def test_a_capitalized_function_an_import_names_is_that_function_not_a_class_of_the_name(tmp_path):
    """sqlalchemy's tests import `Column` from `testing.schema`, a function that builds the class
    `schema.Column`: their `Column(...)` calls that function, not the class's constructor."""
    conf = confidences(extract(tmp_path, FACTORIES))
    factory, ctor = "fn:sqla/testing/schema.py:Column", "fn:sqla/schema.py:Column.__init__"
    assert conf[("fn:tests/test_tables.py:test_factory", factory)] == 0.9
    assert ("fn:tests/test_tables.py:test_factory", ctor) not in conf
    assert conf[("fn:tests/test_direct.py:test_class", ctor)] == 0.9


VARIABLES = {
    "web/__init__.py": "",
    "web/requests.py": '''class Request:
    def json(self):
        return {}

    def close(self):
        return None
''',
    "web/responses.py": '''class Response:
    def close(self):
        return None
''',
    "web/testclient.py": '''import httpx


class TestClient(httpx.Client):
    def mount(self, app):
        return app
''',
    "web/views.py": '''import httpx
from web.requests import Request
from web.responses import Response
from web.testclient import TestClient


def handle(request: Request, response: Response):
    request.close()
    return response.close()


def build():
    made = Response()
    return made.close()


def fetch(url):
    r = httpx.get(url)
    return r.json()


def test_app(app):
    client = TestClient(app)
    client.mount(app)
    res = client.get("/")
    return res.json()
''',
}


def test_a_variable_constructed_or_annotated_with_a_class_calls_that_class_s_method(tmp_path):
    """`close` is a method of two classes: a parameter annotated `Response`, or a variable assigned
    `Response()`, calls Response's. A variable holding another package's object (`httpx.get(url)`, or
    what a client inheriting httpx's `get` returns) calls none of ours, though `Request.json` is the only
    `json` here (starlette's tests: `client.get(...).json()` is httpx's)."""
    conf = confidences(extract(tmp_path, VARIABLES))
    v = "fn:web/views.py:"
    assert conf[(v + "handle", "fn:web/requests.py:Request.close")] == 0.8
    assert conf[(v + "handle", "fn:web/responses.py:Response.close")] == 0.8
    assert conf[(v + "build", "fn:web/responses.py:Response.close")] == 0.8
    assert conf[(v + "test_app", "fn:web/testclient.py:TestClient.mount")] == 0.8
    assert not {dst for src, dst in conf if src in (v + "fetch", v + "test_app") and dst.endswith(".json")}


FIELDS = {
    "jobs/__init__.py": "",
    "jobs/engines.py": '''class Engine:
    def start(self):
        return 1


class Pump:
    def start(self):
        return 2
''',
    "jobs/job.py": '''from dataclasses import dataclass

from jobs.engines import Engine


@dataclass
class Job:
    engine: Engine
    name: str = "job"

    def run(self):
        return self.engine.start()
''',
}


def test_a_field_a_class_body_declares_gives_the_class_its_attribute_holds(tmp_path):
    """A dataclass's `engine: Engine`: `self.engine.start()` is Engine's, though Pump has a `start` too."""
    conf = confidences(extract(tmp_path, FIELDS))
    assert conf[("fn:jobs/job.py:Job.run", "fn:jobs/engines.py:Engine.start")] == 0.8
    assert ("fn:jobs/job.py:Job.run", "fn:jobs/engines.py:Pump.start") not in conf


def test_an_optional_annotation_gives_the_class_it_wraps(tmp_path):
    """`Optional[Response]`, `typing.Optional[Response]` and `Request | None`: the call on the parameter is
    that class's (`close` is a method of both classes, so no guess by name could pick one)."""
    files = {**VARIABLES, "web/optional.py": '''import typing
from typing import Optional

from web.requests import Request
from web.responses import Response


def close_response(response: Optional[Response] = None):
    return response.close()


def close_qualified(response: typing.Optional[Response]):
    return response.close()


def close_request(request: Request | None = None):
    return request.close()
'''}
    conf = confidences(extract(tmp_path, files))
    o, req, res = "fn:web/optional.py:", "fn:web/requests.py:Request.close", "fn:web/responses.py:Response.close"
    assert conf[(o + "close_response", res)] == 0.8 and (o + "close_response", req) not in conf
    assert conf[(o + "close_qualified", res)] == 0.8 and (o + "close_qualified", req) not in conf
    assert conf[(o + "close_request", req)] == 0.8 and (o + "close_request", res) not in conf


COROUTINES = {
    "web/__init__.py": "",
    "web/requests.py": '''class Request:
    async def json(self):
        return {}

    async def stream(self):
        yield b""


class Upload:
    def __enter__(self):
        return self

    def write(self, data):
        return data
''',
    "web/server.py": '''class Server:
    async def serve(self):
        return 1
''',
    "web/views.py": '''import asyncio

from web.requests import Upload

async def endpoint(request):
    return await request.json()


async def chunks(request):
    return [c async for c in request.stream()]


def start(server):
    return asyncio.create_task(server.serve())


def test_endpoint(client):
    response = client.get("/")
    assert response.json() == {}


def test_fixture(path):
    with open(path, "w") as fh:
        fh.write("x")


def test_upload():
    with Upload() as upload:
        upload.write(b"x")
''',
}


def test_a_guess_never_names_a_coroutine_a_call_does_not_await(tmp_path):
    """`response.json()` with its result compared, not awaited, runs no `async def json`: the repository's
    only `json` (`Request.json`) is no guess for it (starlette's tests call httpx's `json` so); awaited, or
    handed to `create_task`, it is. An async generator is called without `await`. `with open(p) as fh`
    holds a file, so `fh.write()` is not the only `write` here (`Upload.write`); `with Upload() as u` is."""
    conf = confidences(extract(tmp_path, COROUTINES))
    v, req = "fn:web/views.py:", "fn:web/requests.py:"
    assert conf[(v + "endpoint", req + "Request.json")] == 0.3
    assert conf[(v + "chunks", req + "Request.stream")] == 0.3
    assert conf[(v + "start", "fn:web/server.py:Server.serve")] == 0.3
    assert (v + "test_endpoint", req + "Request.json") not in conf
    assert (v + "test_fixture", req + "Upload.write") not in conf
    assert conf[(v + "test_upload", req + "Upload.write")] == 0.8


REEXPORTED_CLASSES = {
    "src/web/__init__.py": "from .app import App as App\nfrom .blueprints import *\nfrom .helpers import url\n",
    "src/web/helpers.py": "def url(name):\n    return name\n",
    "tests/test_submodule.py": "import web.app\n\n\ndef test_url():\n    return web.url('a'), web.app.App('b')\n",
    "src/web/app.py": '''class App:
    def __init__(self, name):
        self.name = name

    def run(self):
        return self.name


class Worker:
    def run(self):
        return 0
''',
    "src/web/widget.js": "class Widget { run() { return 1 } }\nclass Other { run() { return 2 } }\n"
                         "function make() { return new Widget().run() }\nmodule.exports = { make }\n",
    "src/web/blueprints.py": '''class Blueprint:
    def __init__(self, name):
        self.name = name
''',
    "src/web/sansio/blueprints.py": '''class Blueprint:
    def __init__(self, name):
        self.name = name
''',
    "tests/test_app.py": '''import web
from web import App


class App2(web.App):
    pass


def test_module():
    return web.App("a"), web.Blueprint("b")


def test_name():
    return App("a")


def test_chain():
    return web.App("(a").run()


def test_subclass():
    class App(web.App):
        pass
    return App
''',
}


def test_a_class_a_package_re_exports_is_that_class(tmp_path):
    """`import web; web.App(...)` and `from web import App` construct `web.app.App` through the package's
    `from .app import App`, and `web.Blueprint(...)` the one its `from .blueprints import *` brings,
    though another `App` (the tests') and another `Blueprint` make either name ambiguous in the repository
    (flask's `flask.Flask` and `flask.Blueprint`: 0.73 -> 0.94 of the call sites jedi resolves reached).
    `import web.app` binds `web` as well (click's tests: `import click.utils`, then `click.echo()`), and a
    method called on what a constructor call makes is that class's (requests' `Request(...).prepare()`)."""
    out = extract(tmp_path, REEXPORTED_CLASSES)
    conf = confidences(out)
    t = "fn:tests/test_app.py:"
    assert conf[(t + "test_module", "fn:src/web/app.py:App.__init__")] == 0.9
    assert conf[(t + "test_module", "fn:src/web/blueprints.py:Blueprint.__init__")] == 0.9
    assert (t + "test_module", "fn:src/web/sansio/blueprints.py:Blueprint.__init__") not in conf
    assert conf[(t + "test_name", "fn:src/web/app.py:App.__init__")] == 0.9
    assert ("cls:tests/test_app.py:App2", "cls:src/web/app.py:App") in graph(out)["EXTENDS"]
    # a method called on the object a call constructs: `web.App("(a").run()`, `new Widget().run()`
    assert conf[(t + "test_chain", "fn:src/web/app.py:App.run")] == 0.8
    assert conf[("fn:src/web/widget.js:make", "fn:src/web/widget.js:Widget.run")] == 0.8
    assert ("fn:src/web/widget.js:make", "fn:src/web/widget.js:Other.run") not in conf
    # `import web.app` binds `web` too (Python's rule): `web.url()` is the package's `url`
    assert conf[("fn:tests/test_submodule.py:test_url", "fn:src/web/helpers.py:url")] == 0.9
    assert conf[("fn:tests/test_submodule.py:test_url", "fn:src/web/app.py:App.__init__")] == 0.9


RETURNS = {
    "app/__init__.py": "",
    "app/client.py": '''import httpx


class Client:
    def get(self, url) -> httpx.Response:
        return httpx.get(url)

    def session(self) -> "Session":
        return Session()


class Session:
    def close(self):
        return 1


class Pool:
    def close(self):
        return 2

    def json(self):
        return {}
''',
    "app/factory.py": '''from typing import TYPE_CHECKING, Optional, Protocol

from app.client import Client

if TYPE_CHECKING:
    class ClientFactory(Protocol):
        def __call__(self, name: str) -> Client: ...
else:
    class ClientFactory:
        pass


def make_client() -> Optional[Client]:
    return Client()
''',
    "tests/test_client.py": '''from app.factory import ClientFactory, make_client


def test_factory(client_factory: ClientFactory):
    client = client_factory("a")
    response = client.get("/")
    session = client.session()
    return response.json(), session.close()


def test_made():
    client = make_client()
    return client.session()
''',
}


def test_a_variable_holds_what_its_function_declares_it_returns(tmp_path):
    """`client = make_client()` with `def make_client() -> Optional[Client]`, and a parameter typed with a
    class whose `__call__` returns `Client` (starlette's `test_client_factory: TestClientFactory`, declared
    under `if TYPE_CHECKING` and again below it): `client.session()` is `Client.session`, and the `Session`
    it declares calls `Session.close` though `Pool.close` shares the name; what `Client.get` returns is
    httpx's, so `response.json()` is not the only `json` here (`Pool.json`)."""
    conf = confidences(extract(tmp_path, RETURNS))
    t, c = "fn:tests/test_client.py:", "fn:app/client.py:"
    assert conf[(t + "test_factory", c + "Client.get")] == 0.8
    assert conf[(t + "test_factory", c + "Client.session")] == 0.8
    assert conf[(t + "test_factory", c + "Session.close")] == 0.8
    assert (t + "test_factory", c + "Pool.close") not in conf
    assert (t + "test_factory", c + "Pool.json") not in conf
    assert conf[(t + "test_made", c + "Client.session")] == 0.8


REBOUND = {
    "app/__init__.py": "",
    "app/urls.py": '''class URL:
    def __init__(self, text=""):
        self.text = text

    def copy_with(self, **changes) -> "URL":
        return URL(self.text)

    def join(self, other) -> "URL":
        return self


class Path:
    def copy_with(self, **changes):
        return self


class Request:
    def read(self) -> bytes:
        return b""


class Response:
    def read(self) -> bytes:
        return b""

    async def aread(self) -> bytes:
        return b""


class Client:
    async def send(self, request: Request) -> Response:
        return Response()
''',
    "app/flows.py": '''from app.urls import URL, Client, Request


def redirect(location: str):
    url = URL(location)
    url = url.copy_with(host="h")
    url = url.copy_with(path="/")
    return url.join(url)


def auth_flow(flow, request: Request):
    request.read()
    request = next(flow)
    return request


async def fetch(client: Client, request: Request):
    response = await client.send(request)
    return await response.aread()


def switch():
    thing = URL("a")
    thing.join(thing)
    thing = Request()
    return thing.read()
''',
}


def test_a_variable_holds_what_its_bindings_before_the_call_agree_on(tmp_path):
    """A variable bound more than once is read at each call site from the bindings before it (httpx:
    0.964 -> 0.977 of the call sites jedi resolves reached). `url = url.copy_with(...)` with `copy_with`
    declared `-> URL` still holds a `URL` (though `Path.copy_with` shares the name); a parameter `request:
    Request` is a `Request` before a later `request = next(flow)`; `response = await client.send(...)`
    holds what `send` declares it returns. Bindings of two different classes before a site say nothing."""
    conf = confidences(extract(tmp_path, REBOUND))
    t, u = "fn:app/flows.py:", "fn:app/urls.py:"
    assert conf[(t + "redirect", u + "URL.copy_with")] == 0.8
    assert (t + "redirect", u + "Path.copy_with") not in conf
    assert conf[(t + "redirect", u + "URL.join")] == 0.8
    assert conf[(t + "auth_flow", u + "Request.read")] == 0.8
    assert (t + "auth_flow", u + "Response.read") not in conf
    assert conf[(t + "fetch", u + "Client.send")] == 0.8
    assert conf[(t + "fetch", u + "Response.aread")] == 0.8
    assert conf[(t + "switch", u + "URL.join")] == 0.8
    assert (t + "switch", u + "Request.read") not in conf and (t + "switch", u + "Response.read") not in conf


ATTRIBUTES_OF_VARIABLES = {
    "web/__init__.py": "",
    "web/models.py": '''class Headers:
    def get(self, key):
        return key


class Stream:
    def close(self):
        return 1


class Pool:
    def close(self):
        return 2


class Response:
    def __init__(self):
        self.stream = Stream()

    @property
    def headers(self) -> Headers:
        return Headers()
''',
    "web/show.py": '''from web.models import Response


def show(response: Response):
    response.stream.close()
    return response.headers.get("a")
''',
}


def test_a_method_of_what_an_attribute_of_a_variable_holds(tmp_path):
    """`response.headers.get()` with `response: Response` is `Headers.get` when `Response.headers` is a
    property declared `-> Headers` (though `get` is a dict's method too), and `response.stream.close()` the
    `close` of the `Stream` that `Response.__init__` assigns, not `Pool.close` (httpx: 0.977 -> 0.984 of the
    call sites jedi resolves reached)."""
    conf = confidences(extract(tmp_path, ATTRIBUTES_OF_VARIABLES))
    s, m = "fn:web/show.py:show", "fn:web/models.py:"
    assert conf[(s, m + "Headers.get")] == 0.8
    assert conf[(s, m + "Stream.close")] == 0.8
    assert (s, m + "Pool.close") not in conf


INJECTED = {
    "net/__init__.py": "",
    "net/transports.py": '''class BaseTransport:
    def close(self):
        return None


class Pool:
    def close(self):
        return 2
''',
    "net/client.py": '''from net.transports import BaseTransport


class Client:
    def __init__(self, transport: BaseTransport, name):
        self._transport = transport
        self._name = name

    def close(self):
        self._name.close()
        return self._transport.close()
''',
}


def test_an_attribute_of_self_holds_what_the_variable_assigned_to_it_holds(tmp_path):
    """`self._transport = transport` with a parameter `transport: BaseTransport`: `self._transport.close()`
    is `BaseTransport.close`, not `Pool.close` (httpx's clients: `self._transport.close()`, `__enter__`);
    an attribute assigned an untyped parameter (`self._name = name`) says nothing."""
    conf = confidences(extract(tmp_path, INJECTED))
    c, t = "fn:net/client.py:Client.close", "fn:net/transports.py:"
    assert conf[(c, t + "BaseTransport.close")] == 0.8
    assert (c, t + "Pool.close") not in conf
    assert conf.get((c, "fn:net/client.py:Client.close")) is None


MODULE_VARIABLES = {
    "web/__init__.py": "",
    "web/routing.py": '''class Router:
    def url_path_for(self, name):
        return "/" + name


class Mount:
    def url_path_for(self, name):
        return "/m/" + name
''',
    "tests/test_routing.py": '''from web.routing import Router

app = Router()


def test_url():
    assert app.url_path_for("home") == "/home"


def test_shadowed(app):
    return app.url_path_for("x")


def test_rebound():
    app = make()
    return app.url_path_for("y")
''',
    "web/server.js": '''class Queue {
  push(item) { return item }
}
class Stack {
  push(item) { return item }
}
const jobs = new Queue()

function enqueue(item) {
  return jobs.push(item)
}

module.exports = { enqueue, Stack }
''',
}


def test_a_call_on_a_variable_the_module_binds(tmp_path):
    """`app = Router()` at the top of a test module, then `app.url_path_for()` in a test (starlette's tests:
    27 of the call sites jedi resolves that no edge reached on six Python repositories were such calls), and
    JavaScript's `const jobs = new Queue()` above a function calling `jobs.push()`; a parameter or a local
    of the same name shadows the module's variable."""
    conf = confidences(extract(tmp_path, MODULE_VARIABLES))
    t, r = "fn:tests/test_routing.py:", "fn:web/routing.py:"
    assert conf[(t + "test_url", r + "Router.url_path_for")] == 0.8
    assert (t + "test_shadowed", r + "Router.url_path_for") not in conf
    assert (t + "test_rebound", r + "Router.url_path_for") not in conf
    assert conf[("fn:web/server.js:enqueue", "fn:web/server.js:Queue.push")] == 0.8
    assert ("fn:web/server.js:enqueue", "fn:web/server.js:Stack.push") not in conf
