"""Ruby fixture projects: the language's rules a sweep of sinatra found wrong, written from the source."""

from tests.extract.graphs import confidences, extract, graph


CORE_NAMES = {
    "lib/bag.rb": '''class Bag
  def key?(k)
    true
  end

  def compact
    self
  end

  def self.new(*args)
    super
  end
end
''',
    "lib/app.rb": '''require 'bag'

def lookup(env, list, klass)
  env.key?('x') && list.compact && klass.new
end

def own
  Bag.new.key?(1)
end
''',
}


def test_ruby_core_method_names_on_unknown_receivers_are_no_guess(tmp_path):
    """`env.key?(k)`, `list.compact`, `klass.new`: every Hash, Array and Class has them, so the repository's
    only `key?` (sinatra's IndifferentHash) is no guess; a receiver whose class is known still resolves."""
    conf = confidences(extract(tmp_path, CORE_NAMES))
    assert not any(src == "fn:lib/app.rb:lookup" for src, _ in conf)
    assert conf[("fn:lib/app.rb:own", "fn:lib/bag.rb:Bag.new")] == 0.9


MIXINS = {
    "lib/web/helpers.rb": '''module Web
  module Helpers
    def redirect(uri)
      status(302)
      halt 302
    end

    def status(code)
      code
    end
  end
end
''',
    "lib/web/base.rb": '''require 'web/helpers'

module Web
  class Base
    include Helpers

    def call(env)
      redirect('/')
      Rack::Utils.escape(env)
    end

    def halt(code)
      throw :halt, code
    end

    def self.register(ext)
      ext
    end
  end

  def self.new(app)
    Base.register(app)
  end
end
''',
    "lib/guard/base.rb": '''module Guard
  class Base
    def react(env)
      env
    end
  end
end
''',
    "lib/guard/token.rb": '''require 'guard/base'

module Guard
  class Token < Base
    def call(env)
      react(env)
    end
  end
end
''',
    "lib/guard/escape.rb": '''module Guard
  class Escape
    def escape(s)
      s
    end
  end
end
''',
    "lib/app.rb": '''require 'web/base'

class App < Web::Base
  def run
    Web.new(self)
  end
end
''',
}


def test_ruby_modules_are_class_like_and_mixins_are_ancestors(tmp_path):
    """A module's methods are methods; `include Helpers` makes Helpers an ancestor of Base (EXTENDS), so a
    Helpers method's bare `halt` is Base's; a class or module reopened in several files is one (`Web`), so
    `Web.new` and `Web::Base` resolve from another file, though another `Base` exists; `Base` inside `module
    Guard` is Guard's; `Rack::Utils.escape` names no class here: another package's, no guess."""
    out = extract(tmp_path, MIXINS)
    g = graph(out)
    h, b = "fn:lib/web/helpers.rb:Web.Helpers.", "fn:lib/web/base.rb:Web.Base."
    helpers, base = "cls:lib/web/helpers.rb:Web.Helpers", "cls:lib/web/base.rb:Web.Base"
    assert {(helpers, h + "redirect"), (helpers, h + "status")} <= g["HAS_METHOD"]
    assert {(base, helpers), ("cls:lib/app.rb:App", base),
            ("cls:lib/guard/token.rb:Guard.Token", "cls:lib/guard/base.rb:Guard.Base")} <= g["EXTENDS"]
    conf = confidences(out)
    assert conf[(h + "redirect", h + "status")] == 1.0
    assert conf[(h + "redirect", b + "halt")] == 0.9
    assert conf[(b + "call", h + "redirect")] == 0.9
    assert conf[("fn:lib/app.rb:App.run", "fn:lib/web/base.rb:Web.new")] == 0.9
    assert conf[("fn:lib/web/base.rb:Web.new", b + "register")] == 0.9
    assert conf[("fn:lib/guard/token.rb:Guard.Token.call", "fn:lib/guard/base.rb:Guard.Base.react")] == 0.9
    assert not any(dst.endswith(".escape") for _, dst in conf)


DELEGATE = {
    "lib/wrapper.rb": '''class Wrapper
  def render(page)
    @engine.render(page)
  end
end
''',
}


def test_a_guess_by_name_never_lands_on_the_caller_itself(tmp_path):
    """`def render(page); @engine.render(page); end` delegates to another object's `render`: the repository's
    only `render` is the caller itself, which is no callee of its own."""
    assert confidences(extract(tmp_path, DELEGATE)) == {}


MONOREPO = {
    "lib/web.rb": "require 'guard/token'\n\nmodule Web\nend\n",
    "guard/lib/guard/token.rb": "module Guard\n  class Token\n  end\nend\n",
    "guard/spec/lib/guard/token_spec.rb": "require 'guard/token'\nrequire 'fake_json'\nrequire 'json'\n",
    "guard/spec/lib/guard/fake_json.rb": "module FakeJson\nend\n",
}


def test_ruby_require_reaches_a_gem_of_the_monorepo(tmp_path):
    """Each gem of a monorepo has its own `lib` on the load path: `require 'guard/token'` is
    `guard/lib/guard/token.rb`, from the main gem and from the gem's specs (whose own paths stay whole); a spec's
    own folder is on its load path too (`require 'fake_json'` beside it), never a library's (`json`)."""
    g = graph(extract(tmp_path, MONOREPO))
    spec = "file:guard/spec/lib/guard/token_spec.rb"
    assert {("file:lib/web.rb", "mod:guard/token"), (spec, "mod:guard/token"),
            (spec, "mod:guard/spec/lib/guard/fake_json"), (spec, "ext:json")} == g["IMPORTS"]
    assert "mod:guard/spec/lib/guard/token_spec" in g["modules"]


BARE_READS = {
    "lib/app.rb": '''class App
  def call(env)
    request = build(env)
    uri = uri(request)
    [settings, request, uri, env]
  end

  def route
    settings.routes
  end

  def settings
    self.class
  end

  def request
    nil
  end

  def uri(x)
    x
  end

  def build(env)
    env
  end
end
''',
}


def test_ruby_bare_name_is_a_call_of_self_unless_a_local(tmp_path):
    """`settings` and `settings.routes` read a method of self (no parentheses, no arguments); `request` where
    `request = ...` binds a local is the variable, not the method `request`; `uri(request)` has arguments, so it
    calls the method though `uri` is a local too."""
    conf = confidences(extract(tmp_path, BARE_READS))
    a = "fn:lib/app.rb:App."
    assert conf[(a + "call", a + "settings")] == 1.0 and conf[(a + "route", a + "settings")] == 1.0
    assert conf[(a + "call", a + "uri")] == 1.0 and conf[(a + "call", a + "build")] == 1.0
    assert (a + "call", a + "request") not in conf


EXCEPTIONS = {
    "lib/config.rb": '''class UnsupportedType < StandardError
  def message
    'unsupported'
  end
end
''',
    "lib/app.rb": '''def report(boom)
  boom.message
end
''',
}


def test_ruby_exception_methods_are_the_language_s(tmp_path):
    """`boom.message` on a rescued error is Exception#message, not the repository's only `message` override."""
    assert confidences(extract(tmp_path, EXCEPTIONS)) == {}


ATTRIBUTES = {
    "lib/app.rb": '''class App
  attr_accessor :env, :request
  attr_reader :cache

  def call(env)
    request.path + cache.size.to_s
  end
end
''',
}


def test_ruby_attr_reader_and_accessor_define_reader_methods(tmp_path):
    """`attr_accessor :env, :request` defines the methods `env` and `request` (named without the colon, on their
    own line), which the bare reads in the class call."""
    out = extract(tmp_path, ATTRIBUTES)
    fns = {r["qualified_name"]: (r["line_start"], r["line_end"]) for r in out.tables["Function"]}
    assert fns["App.env"] == fns["App.request"] == (2, 2) and fns["App.cache"] == (3, 3)
    conf = confidences(out)
    assert conf[("fn:lib/app.rb:App.call", "fn:lib/app.rb:App.request")] == 1.0
    assert conf[("fn:lib/app.rb:App.call", "fn:lib/app.rb:App.cache")] == 1.0


SETTERS = {
    "lib/response.rb": '''class Response
  def body=(value)
    @body = value
  end
end
''',
    "lib/helpers.rb": '''module Helpers
  def status(code)
    response.status = code
  end

  def body(value)
    response.body = value
  end
end
''',
}


def test_ruby_assignment_to_a_call_is_a_call_of_its_writer(tmp_path):
    """`response.status = code` calls `status=`, not the only `status` (the caller itself, a reader); `response.body
    = value` calls the only `body=`."""
    conf = confidences(extract(tmp_path, SETTERS))
    assert conf == {("fn:lib/helpers.rb:Helpers.body", "fn:lib/response.rb:Response.body="): 0.3}


CONSTANTS = {
    "lib/web/response.rb": '''module Web
  class Response
    def finish
      self
    end
  end
end
''',
    "lib/guard/token.rb": '''module Guard
  class Token
    def call(env)
      response = Response.new(env)
      response.finish
    end

    def deny(env)
      Rack::Response.new(env).finish
    end
  end
end
''',
    "lib/web/app.rb": '''module Web
  class App
    def call(env)
      response = Response.new
      response.finish
    end

    def other
      made = Web::Response.new
      made.finish
    end
  end
end
''',
}


def test_ruby_constants_are_lexical_or_top_level(tmp_path):
    """`Response` inside `module Guard` is no class of Guard's or at the top level: Rack's, never `Web::Response`,
    which `Response` inside `module Web` and `Web::Response` anywhere are; a local assigned `X.new` holds an X."""
    conf = confidences(extract(tmp_path, CONSTANTS))
    finish = "fn:lib/web/response.rb:Web.Response.finish"
    assert conf[("fn:lib/web/app.rb:Web.App.call", finish)] == 0.8
    assert conf[("fn:lib/web/app.rb:Web.App.other", finish)] == 0.8
    assert not any(src.startswith("fn:lib/guard/") for src, _ in conf)


ALIASES = {
    "lib/hash.rb": '''class Table
  def key?(key)
    true
  end

  alias has_key? key?
  alias_method :member?, :key?

  def lookup(k)
    has_key?(k) && member?(k)
  end
end
''',
}


def test_ruby_alias_defines_a_method_that_runs_the_original(tmp_path):
    """`alias has_key? key?` and `alias_method :member?, :key?` define `has_key?` and `member?` on their line;
    calling the alias runs the original."""
    out = extract(tmp_path, ALIASES)
    fns = {r["qualified_name"]: r["line_start"] for r in out.tables["Function"]}
    assert fns["Table.has_key?"] == 6 and fns["Table.member?"] == 7
    conf, t = confidences(out), "fn:lib/hash.rb:Table."
    assert conf[(t + "lookup", t + "has_key?")] == 1.0 and conf[(t + "lookup", t + "member?")] == 1.0
    assert conf[(t + "has_key?", t + "key?")] == 1.0


NAMESPACES = {
    "lib/rack/guard/token.rb": '''module Rack
  module Guard
    class Token
      def call(env)
        env
      end
    end
  end
end
''',
    "test/handler_test.rb": '''module Rackup::Handler
  class Mock
    def run
      true
    end
  end
end
''',
}


def test_ruby_module_of_only_classes_is_a_namespace(tmp_path):
    """`module Rack` and `module Guard` hold nothing but a class: namespaces that qualify its name (no Class nodes
    of their own, whose spans every commit to the file would touch); `module Rackup::Handler` qualifies with both."""
    out = extract(tmp_path, NAMESPACES)
    assert graph(out)["classes"] == {"cls:lib/rack/guard/token.rb:Rack.Guard.Token",
                                     "cls:test/handler_test.rb:Rackup.Handler.Mock"}
    assert {r["qualified_name"] for r in out.tables["Function"]} == {"Rack.Guard.Token.call", "Rackup.Handler.Mock.run"}


SUPER = {
    "lib/stack.rb": '''class Base
  def call(env)
    env
  end

  def initialize(app)
    @app = app
  end
end

module Tracing
  def call(env)
    super
  end
end

class Token < Base
  include Tracing

  def initialize(app, options = {})
    super(app)
  end

  def call(env)
    super.merge(token: 1)
  end
end
''',
}


def test_ruby_super_calls_the_nearest_ancestor_s_method(tmp_path):
    """`super` in `Token#call` is the included `Tracing#call` (a mixin comes before the superclass), whose own
    `super` reaches no ancestor defined here; `super(app)` in `initialize` is Base's."""
    conf = confidences(extract(tmp_path, SUPER))
    s = "fn:lib/stack.rb:"
    assert conf[(s + "Token.call", s + "Tracing.call")] == 0.9
    assert conf[(s + "Token.initialize", s + "Base.initialize")] == 0.9
    assert (s + "Token.call", s + "Base.call") not in conf


TEST_HOST = {
    "lib/helpers.rb": '''module Helpers
  def redirect(uri)
    halt(302)
  end
end
''',
    "test/helpers_test.rb": '''class HelpersTest
  include Helpers

  def halt(code)
    code
  end
end
''',
}


def test_ruby_a_mixin_of_the_package_never_calls_into_a_test_that_includes_it(tmp_path):
    """The test class that includes `Helpers` defines `halt`; the package's `Helpers#redirect` runs in the
    package's own classes, not in that test's."""
    assert confidences(extract(tmp_path, TEST_HOST)) == {}


SINGLETONS = {
    "lib/store.rb": '''class Store
  def self.open(path)
    new.open(path)
  end

  def open(path)
    path
  end

  def self.settings
    @settings ||= self
  end

  def settings
    self.class.settings
  end

  def self.reset!
    open('/tmp')
    settings
  end

  def reload
    open('/etc')
    settings
  end

  class << self
    def defaults
      settings
    end

    def close
      0
    end
  end

  def close
    1
  end

  def flush
    2
  end

  def self.delegate(*names)
    names.each do |n|
      define_method(n) { open(n) }
    end
  end
end
''',
    "lib/use.rb": '''require 'store'

def setup
  Store.open('/x')
  Store.new.open('/y')
  Store.close
  Store.new.close
  Store.new.flush
end
''',
}


def test_ruby_singleton_and_instance_methods_of_one_name_are_two_functions(tmp_path):
    """sinatra's Base has `def self.settings` and `def settings`: Ruby writes them `Base.settings` and
    `Base#settings`, and before both were one `Base.settings` plus an `@L<line>` copy that every call reached."""
    out = extract(tmp_path, SINGLETONS)
    fns = {r["qualified_name"]: r for r in out.tables["Function"] if r["file_path"] == "lib/store.rb"}
    assert set(fns) == {"Store.open", "Store#open", "Store.settings", "Store#settings", "Store.reset!",
                        "Store.reload", "Store.defaults", "Store.close", "Store#close", "Store.flush",
                        "Store.delegate"}
    assert fns["Store.open"]["line_start"] == 2 and fns["Store#open"]["line_start"] == 6
    assert fns["Store.close"]["line_start"] == 33 and fns["Store#close"]["line_start"] == 38  # `class << self`
    ids = {r["id"] for r in out.tables["Function"]}
    # every id is its plain one: nothing falls back to telling two of one name apart (once by a line suffix)
    assert all(r["id"].endswith(":" + r["qualified_name"]) for r in out.tables["Function"])
    assert "fn:r:lib/store.rb:Store#open" in ids and "fn:r:lib/store.rb:Store.open" in ids
    # a name used once keeps the id it always had
    assert "fn:r:lib/store.rb:Store.flush" in ids and "fn:r:lib/store.rb:Store.reload" in ids


def test_ruby_calls_reach_the_singleton_or_the_instance_method_as_ruby_would(tmp_path):
    conf = confidences(extract(tmp_path, SINGLETONS))
    calls = {(s, d) for s, d in conf}
    store = "fn:lib/store.rb:Store"
    # inside a singleton method self is the class: `open` and `settings` are the class's own
    assert (f"{store}.reset!", f"{store}.open") in calls and (f"{store}.reset!", f"{store}.settings") in calls
    assert (f"{store}.defaults", f"{store}.settings") in calls  # `class << self` too
    # inside an instance method self is the instance
    assert (f"{store}.reload", f"{store}#open") in calls and (f"{store}.reload", f"{store}#settings") in calls
    assert not any(s == f"{store}.reset!" and "#" in d for s, d in calls)
    assert not any(s == f"{store}.reload" and d in (f"{store}.open", f"{store}.settings") for s, d in calls)
    # `new.open(path)` in the class method, `Store.new.open`: an instance's
    assert (f"{store}.open", f"{store}#open") in calls
    setup = "fn:lib/use.rb:setup"
    assert (setup, f"{store}.open") in calls and (setup, f"{store}#open") in calls
    assert (setup, f"{store}.close") in calls and (setup, f"{store}#close") in calls
    assert conf[(setup, f"{store}.flush")] == 0.8  # a name used once resolves as before
    assert (f"{store}#settings", f"{store}.settings") not in calls  # `self.class.settings`: no guess either way
    # a `define_method` block in a class method is an instance method's body
    assert (f"{store}.delegate", f"{store}#open") in calls and (f"{store}.delegate", f"{store}.open") not in calls
