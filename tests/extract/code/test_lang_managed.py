"""Java, C# and Ruby fixture projects: entities and edges, written from the source."""

from tests.extract.graphs import assert_graph, confidences, extract

J = "src/main/java/com/acme/"
JAVA = {
    J + "geo/Shape.java": "package com.acme.geo;\n\npublic interface Shape {\n    double area();\n}\n",
    J + "geo/Base.java": '''package com.acme.geo;

public abstract class Base {
    protected String name() { return "base"; }
}
''',
    J + "geo/Circle.java": '''package com.acme.geo;

import java.util.List;
import com.acme.util.Helpers;

/** A circle. */
public class Circle extends Base implements Shape {
    public Circle() { super(); }
    public double area() { return scale(2) + Helpers.twice(1); }
    private double scale(int k) { return this.name().length() * k; }
}
''',
    J + "util/Helpers.java": '''package com.acme.util;

public final class Helpers {
    public static int twice(int x) { return x * 2; }
}
''',
    J + "App.java": '''package com.acme;

import com.acme.geo.Circle;

public class App {
    public static void main(String[] args) {
        System.out.println(new Circle().area());
    }
}
''',
}


def test_java_graph(tmp_path):
    out = extract(tmp_path, JAVA)
    shape, base, circle = (f"cls:{J}geo/{n}.java:{n}" for n in ("Shape", "Base", "Circle"))
    helpers, app = f"cls:{J}util/Helpers.java:Helpers", f"cls:{J}App.java:App"
    c = f"fn:{J}geo/Circle.java:Circle."
    assert_graph(out, {
        "classes": {shape, base, circle, helpers, app},
        "functions": {f"fn:{J}geo/Shape.java:Shape.area", f"fn:{J}geo/Base.java:Base.name", c + "Circle",
                      c + "area", c + "scale", f"fn:{J}util/Helpers.java:Helpers.twice", f"fn:{J}App.java:App.main"},
        "modules": {"mod:com.acme.geo", "mod:com.acme.util", "mod:com.acme", "ext:java.util"},
        "IMPORTS": {(f"file:{J}geo/Circle.java", "ext:java.util"), (f"file:{J}geo/Circle.java", "mod:com.acme.util"),
                    (f"file:{J}App.java", "mod:com.acme.geo")},
        "DEPENDS_ON": {("mod:com.acme.geo", "ext:java.util"), ("mod:com.acme.geo", "mod:com.acme.util"),
                       ("mod:com.acme", "mod:com.acme.geo")},
        "EXTENDS": {(circle, base)},
        "IMPLEMENTS": {(circle, shape)},
        "CALLS": {(c + "area", c + "scale"), (c + "area", f"fn:{J}util/Helpers.java:Helpers.twice"),
                  (c + "scale", f"fn:{J}geo/Base.java:Base.name"), (f"fn:{J}App.java:App.main", c + "Circle")},
    })
    conf = confidences(out)
    assert conf[(c + "area", c + "scale")] == 1.0  # implicit this
    assert out.resolution["calls_ambiguous"] >= 1  # new Circle().area(): Shape.area or Circle.area
    assert {r["name"]: r["kind"] for r in out.tables["Class"]}["Shape"] == "interface"


CS = {
    "Geo/Shapes.cs": '''using System;

namespace Geo
{
    public interface IShape { double Area(); }

    /// <summary>Base of shapes.</summary>
    public class Base
    {
        protected string Name() { return "base"; }
    }
}
''',
    "Geo/Circle.cs": '''using System.Text;
using Geo.Util;

namespace Geo
{
    public class Circle : Base, IShape
    {
        public Circle() { }
        public double Area() { return Scale(2) + Helpers.Twice(1); }
        private double Scale(int k) { return this.Name().Length * k; }
    }
}
''',
    "Geo/Util/Helpers.cs": '''namespace Geo.Util
{
    public static class Helpers
    {
        public static int Twice(int x) { return x * 2; }
        public static Circle Make() { return new Circle(); }
    }
}
''',
}


def test_csharp_graph(tmp_path):
    out = extract(tmp_path, CS)
    ishape, base, circle = "cls:Geo/Shapes.cs:IShape", "cls:Geo/Shapes.cs:Base", "cls:Geo/Circle.cs:Circle"
    c, hp = "fn:Geo/Circle.cs:Circle.", "fn:Geo/Util/Helpers.cs:Helpers."
    assert_graph(out, {
        "classes": {ishape, base, circle, "cls:Geo/Util/Helpers.cs:Helpers"},
        "functions": {"fn:Geo/Shapes.cs:IShape.Area", "fn:Geo/Shapes.cs:Base.Name", c + "Circle", c + "Area",
                      c + "Scale", hp + "Twice", hp + "Make"},
        "modules": {"mod:Geo", "mod:Geo.Util", "ext:System", "ext:System.Text"},
        "IMPORTS": {("file:Geo/Shapes.cs", "ext:System"), ("file:Geo/Circle.cs", "ext:System.Text"),
                    ("file:Geo/Circle.cs", "mod:Geo.Util")},
        "DEPENDS_ON": {("mod:Geo", "ext:System"), ("mod:Geo", "ext:System.Text"), ("mod:Geo", "mod:Geo.Util")},
        "EXTENDS": {(circle, base)},
        "IMPLEMENTS": {(circle, ishape)},  # one base list: the interface is told apart by what it resolves to
        "CALLS": {(c + "Area", c + "Scale"), (c + "Area", hp + "Twice"), (c + "Scale", "fn:Geo/Shapes.cs:Base.Name"),
                  (hp + "Make", c + "Circle")},
    })
    assert {r["name"]: r["docstring"] for r in out.tables["Class"]}["Base"] == "Base of shapes."


RUBY = {
    "lib/geo/base.rb": '''module Geo
  class Base
    def greet
      label()
    end

    def label
      'base'
    end
  end
end
''',
    "lib/geo/circle.rb": '''require 'json'
require_relative 'base'

module Geo
  # A circle.
  class Circle < Base
    def initialize(r)
      @r = r
    end

    def area
      greet() + JSON.dump(scale(2))
    end

    def scale(k)
      @r * k
    end

    def self.unit
      new(1)
    end
  end
end
''',
    "lib/app.rb": '''require 'geo/circle'

def run
  Geo::Circle.unit.area
end
''',
}


def test_ruby_graph(tmp_path):
    out = extract(tmp_path, RUBY)
    b, c = "fn:lib/geo/base.rb:Geo.Base.", "fn:lib/geo/circle.rb:Geo.Circle."
    base, circle = "cls:lib/geo/base.rb:Geo.Base", "cls:lib/geo/circle.rb:Geo.Circle"
    assert_graph(out, {
        "classes": {base, circle},
        "functions": {b + "greet", b + "label", c + "initialize", c + "area", c + "scale", c + "unit", "fn:lib/app.rb:run"},
        "modules": {"mod:geo/base", "mod:geo/circle", "mod:app", "ext:json"},
        "HAS_METHOD": {(base, b + "greet"), (base, b + "label"),
                       *((circle, c + m) for m in ("initialize", "area", "scale", "unit"))},
        "IMPORTS": {("file:lib/geo/circle.rb", "ext:json"), ("file:lib/geo/circle.rb", "mod:geo/base"),
                    ("file:lib/app.rb", "mod:geo/circle")},
        "DEPENDS_ON": {("mod:geo/circle", "ext:json"), ("mod:geo/circle", "mod:geo/base"), ("mod:app", "mod:geo/circle")},
        "EXTENDS": {(circle, base)},
        "CALLS": {(b + "greet", b + "label"), (c + "area", b + "greet"), (c + "area", c + "scale"),
                  ("fn:lib/app.rb:run", c + "unit"), ("fn:lib/app.rb:run", c + "area")},
    })
    assert next(r for r in out.tables["Class"] if r["name"] == "Circle")["docstring"] == "A circle."


TYPED = {
    "src/main/java/com/acme/Engine.java": "package com.acme;\n\npublic class Engine {\n    public int start() { return 1; }\n}\n",
    "src/main/java/com/acme/Pump.java": "package com.acme;\n\npublic class Pump {\n    public int start() { return 2; }\n}\n",
    "src/main/java/com/acme/Plant.java": '''package com.acme;

public class Plant {
    private final Engine engine = new Engine();

    int field() { return engine.start() + this.engine.start(); }

    int parameter(Pump p) { return p.start(); }

    int local() {
        Pump made = new Pump();
        var inferred = new Engine();
        return made.start() + inferred.start();
    }
}
''',
}


def test_java_calls_on_typed_fields_parameters_and_locals_go_to_that_type(tmp_path):
    """`start` is a method of two classes, so no guess by name can pick one: a field's, a parameter's or a
    local's declared type (or `var`'s constructed one) does."""
    conf = confidences(extract(tmp_path, TYPED))
    p, engine, pump = "fn:src/main/java/com/acme/Plant.java:Plant.", "fn:src/main/java/com/acme/Engine.java:Engine.start", \
        "fn:src/main/java/com/acme/Pump.java:Pump.start"
    assert conf[(p + "field", engine)] == 0.8 and (p + "field", pump) not in conf
    assert conf[(p + "parameter", pump)] == 0.8 and (p + "parameter", engine) not in conf
    assert conf[(p + "local", pump)] == 0.8 and conf[(p + "local", engine)] == 0.8


TYPED_CS = {
    "Acme/Engine.cs": "namespace Acme\n{\n    public class Engine\n    {\n        public int Start() { return 1; }\n    }\n}\n",
    "Acme/Pump.cs": "namespace Acme\n{\n    public class Pump\n    {\n        public int Start() { return 2; }\n    }\n}\n",
    "Acme/Plant.cs": '''namespace Acme
{
    public class Plant
    {
        private readonly Engine engine = new Engine();
        public Pump Spare { get; set; }

        int Field() { return engine.Start() + this.engine.Start(); }

        int Property() { return Spare.Start(); }

        int Parameter(Pump p) { return p.Start(); }

        int Local()
        {
            Pump made = new Pump();
            var inferred = new Engine();
            return made.Start() + inferred.Start();
        }
    }
}
''',
}


def test_csharp_calls_on_typed_fields_properties_parameters_and_locals_go_to_that_type(tmp_path):
    conf = confidences(extract(tmp_path, TYPED_CS))
    p, engine, pump = "fn:Acme/Plant.cs:Plant.", "fn:Acme/Engine.cs:Engine.Start", "fn:Acme/Pump.cs:Pump.Start"
    assert conf[(p + "Field", engine)] == 0.8 and (p + "Field", pump) not in conf
    assert conf[(p + "Property", pump)] == 0.8 and (p + "Property", engine) not in conf
    assert conf[(p + "Parameter", pump)] == 0.8 and (p + "Parameter", engine) not in conf
    assert conf[(p + "Local", pump)] == 0.8 and conf[(p + "Local", engine)] == 0.8


CONDITIONAL_CS = {
    "Acme/Reader.cs": '''namespace Acme
{
    public partial class Reader
#if HAVE_ASYNC_DISPOSABLE
        : IAsyncDisposable
#endif
    {
        public int Read(object value)
        {
            if (value is string)
            {
                return Peek();
            }
#if HAVE_DATE_TIME_OFFSET
            else if (value is DateTimeOffset)
            {
                return 2;
            }
#endif
            else
            {
                return Peek();
            }
        }

        private int Peek() { return 1; }
    }
}
''',
}


def test_csharp_conditional_directives_that_split_a_declaration_keep_its_class_and_calls(tmp_path):
    """An `#if` inside a class header or between `if` and `else` is no syntax error to the compiler: the
    class keeps its name and its methods their owner (tree-sitter alone names the class after the symbol)."""
    out = extract(tmp_path, CONDITIONAL_CS)
    r = "fn:Acme/Reader.cs:Reader."
    assert_graph(out, {
        "classes": {"cls:Acme/Reader.cs:Reader"},
        "functions": {r + "Read", r + "Peek"},
        "CALLS": {(r + "Read", r + "Peek")},
    })
    assert {(f["name"], f["line_start"], f["line_end"]) for f in out.tables["Function"]} == {
        ("Read", 8, 24), ("Peek", 26, 26)}


PARTIAL_CS = {
    "Acme/Reader.cs": '''namespace Acme
{
    public abstract partial class Reader
    {
        public bool Read() { return Peek(); }
        private bool Peek() { return true; }
    }
}
''',
    "Acme/Reader.Async.cs": '''namespace Acme
{
    public abstract partial class Reader
    {
        public bool ReadAsync() { return Read(); }
    }
}
''',
    "Acme/TextReader.cs": '''namespace Acme
{
    public class TextReader : Reader
    {
        public bool Next() { return ReadAsync() && this.Read(); }
    }
}
''',
    "Acme/Consumer.cs": '''namespace Acme
{
    public class Consumer
    {
        bool Drain(Reader reader) { return reader.ReadAsync(); }
    }
}
''',
}


def test_csharp_partial_class_across_files_is_one_class(tmp_path):
    """`partial class Reader` in two files: each part keeps its node and methods, while a subclass, a
    call on a variable of the type and a call from one part into the other resolve against the whole."""
    out = extract(tmp_path, PARTIAL_CS)
    r, a = "fn:Acme/Reader.cs:Reader.", "fn:Acme/Reader.Async.cs:Reader."
    assert_graph(out, {
        "classes": {"cls:Acme/Reader.cs:Reader", "cls:Acme/Reader.Async.cs:Reader", "cls:Acme/TextReader.cs:TextReader",
                    "cls:Acme/Consumer.cs:Consumer"},
        "HAS_METHOD": {("cls:Acme/Reader.cs:Reader", r + "Read"), ("cls:Acme/Reader.cs:Reader", r + "Peek"),
                       ("cls:Acme/Reader.Async.cs:Reader", a + "ReadAsync"),
                       ("cls:Acme/TextReader.cs:TextReader", "fn:Acme/TextReader.cs:TextReader.Next"),
                       ("cls:Acme/Consumer.cs:Consumer", "fn:Acme/Consumer.cs:Consumer.Drain")},
        "EXTENDS": {("cls:Acme/TextReader.cs:TextReader", "cls:Acme/Reader.cs:Reader")},
        "CALLS": {(r + "Read", r + "Peek"), (a + "ReadAsync", r + "Read"),
                  ("fn:Acme/TextReader.cs:TextReader.Next", a + "ReadAsync"),
                  ("fn:Acme/TextReader.cs:TextReader.Next", r + "Read"),
                  ("fn:Acme/Consumer.cs:Consumer.Drain", a + "ReadAsync")},
    })


GENERIC_NULLABLE_CS = {
    "Acme/Engine.cs": TYPED_CS["Acme/Engine.cs"],
    "Acme/Pump.cs": TYPED_CS["Acme/Pump.cs"],
    "Acme/Factory.cs": '''namespace Acme
{
    public static class Factory
    {
        public static T Make<T>() where T : new() { return new T(); }
        public static int Count() { return Make<Pump>().Start(); }
    }
}
''',
    "Acme/Plant.cs": '''namespace Acme
{
    public class Plant
    {
        private Engine? engine;
        public Pump? Spare { get; set; }

        int Field() { return engine.Start() + Spare.Start(); }

        int Parameter(Pump? p) { return p.Start(); }

        int Local()
        {
            Engine? e = null;
            return e.Start();
        }

        object Generic() { return Factory.Make<Engine>(); }
    }
}
''',
}


def test_csharp_generic_method_calls_and_nullable_types_resolve(tmp_path):
    """`Factory.Make<Engine>()` and `Make<Pump>()` are calls of `Make`; `Pump? p` is a Pump (or null), so
    `p.Start()` is Pump's, as for a field, a property or a local declared with `?`."""
    conf = confidences(extract(tmp_path, GENERIC_NULLABLE_CS))
    p, f = "fn:Acme/Plant.cs:Plant.", "fn:Acme/Factory.cs:Factory."
    engine, pump = "fn:Acme/Engine.cs:Engine.Start", "fn:Acme/Pump.cs:Pump.Start"
    assert (p + "Generic", f + "Make") in conf and (f + "Count", f + "Make") in conf
    assert conf[(p + "Field", engine)] == 0.8 and conf[(p + "Field", pump)] == 0.8
    assert conf[(p + "Parameter", pump)] == 0.8 and (p + "Parameter", engine) not in conf
    assert conf[(p + "Local", engine)] == 0.8 and (p + "Local", pump) not in conf


EXTENSION_CS = {
    "Acme/Engine.cs": TYPED_CS["Acme/Engine.cs"],
    "Acme/Pump.cs": TYPED_CS["Acme/Pump.cs"],
    "Acme/Extensions.cs": '''namespace Acme
{
    public static class EngineExtensions
    {
        public static int Boost(this Engine engine) { return engine.Start() * 2; }
    }

    public static class PumpExtensions
    {
        public static int Boost(this Pump pump) { return pump.Start() * 3; }
    }
}
''',
    "Acme/Plant.cs": '''namespace Acme
{
    public class Plant
    {
        int Fast(Engine e) { return e.Boost(); }

        int Wet(Pump? p) { return p.Boost(); }
    }
}
''',
}


def test_csharp_extension_method_on_a_typed_variable_is_the_one_that_extends_its_type(tmp_path):
    """`e.Boost()` on an Engine is no method of Engine: it is the `Boost(this Engine)` extension, not Pump's."""
    conf = confidences(extract(tmp_path, EXTENSION_CS))
    p, x = "fn:Acme/Plant.cs:Plant.", "fn:Acme/Extensions.cs:"
    assert conf[(p + "Fast", x + "EngineExtensions.Boost")] == 0.8 and (p + "Fast", x + "PumpExtensions.Boost") not in conf
    assert conf[(p + "Wet", x + "PumpExtensions.Boost")] == 0.8 and (p + "Wet", x + "EngineExtensions.Boost") not in conf


TEST_PROJECT_CS = {
    "Src/Acme/Scheduler.cs": '''using System.Threading.Tasks;

namespace Acme
{
    public class Scheduler
    {
        void Run(Task task) { task.Wait(); }

        string Label(object o) { return o.Describe(); }
    }
}
''',
    "Src/Acme.Tests/SchedulerTests.cs": '''namespace Acme.Tests
{
    public class Task
    {
        public void Wait() { }
        public string Describe() { return "task"; }
    }
}
''',
}


def test_csharp_package_code_never_resolves_into_its_test_project(tmp_path):
    """`Src/Acme.Tests/` is a test project (.NET names them so): the package's `Task` is System's, not the
    tests' class of the name, and the tests' only `Describe` is no guess for the package's `o.Describe()`."""
    out = extract(tmp_path, TEST_PROJECT_CS)
    assert not [e for e in out.tables["CALLS"] if "Acme.Tests" in e["dst"]]


BARE_CALL_CS = {
    "Acme/Sets.cs": '''namespace Acme
{
    public static class Sets
    {
        public static int Union(int a, int b) { return a | b; }
        public static int Both(int a, int b) { return Union(a, b); }
    }
}
''',
    "Acme/Converters/UnionConverter.cs": '''namespace Acme.Converters
{
    public class UnionConverter
    {
        internal class Union
        {
            public Union() { }
        }
    }
}
''',
}


def test_csharp_a_capitalized_call_without_new_is_a_method_not_a_class(tmp_path):
    """C# constructs only with `new`: `Union(a, b)` is the caller's own method, not the nested class Union
    of another namespace that the name alone would find."""
    conf = confidences(extract(tmp_path, BARE_CALL_CS))
    assert conf[("fn:Acme/Sets.cs:Sets.Both", "fn:Acme/Sets.cs:Sets.Union")] == 1.0


ALIAS_CS = {
    "Acme/Testing/Checks.cs": '''namespace Acme.Testing
{
    public static class Checks
    {
        public static void Equal(int a, int b) { }
    }
}
''',
    "Acme/Plant.cs": '''using Check = Acme.Testing.Checks;

namespace Acme
{
    public class Plant
    {
        void Verify() { Check.Equal(1, 1); }
    }
}
''',
}


def test_csharp_using_alias_of_a_class_of_ours_is_that_class(tmp_path):
    """`using Check = Acme.Testing.Checks;` names a class of the namespace Acme.Testing, not another package."""
    out = extract(tmp_path, ALIAS_CS)
    assert_graph(out, {
        "IMPORTS": {("file:Acme/Plant.cs", "mod:Acme.Testing")},
        "CALLS": {("fn:Acme/Plant.cs:Plant.Verify", "fn:Acme/Testing/Checks.cs:Checks.Equal")},
    })


SCOPED_VARS_CS = {
    "Acme/Engine.cs": TYPED_CS["Acme/Engine.cs"],
    "Acme/Pump.cs": TYPED_CS["Acme/Pump.cs"],
    "Acme/Plant.cs": '''namespace Acme
{
    public class Plant
    {
        int Each(object[] xs) { int n = 0; foreach (Pump p in xs) { n += p.Start(); } return n; }

        int Pattern(object o) { return o is Engine e ? e.Start() : 0; }

        int Using() { using (var made = new Pump()) { return made.Start(); } }

        int Out() { return TryMake(out Engine e) ? e.Start() : 0; }

        bool TryMake(out Engine e) { e = null; return false; }
    }
}
''',
}


def test_csharp_foreach_pattern_using_and_out_variables_have_their_types(tmp_path):
    """`foreach (Pump p ...)`, `o is Engine e`, `using (var made = new Pump())` and `out Engine e` type their
    variables as a declaration does, so `Start` (a method of two classes) is the right one's."""
    conf = confidences(extract(tmp_path, SCOPED_VARS_CS))
    p, engine, pump = "fn:Acme/Plant.cs:Plant.", "fn:Acme/Engine.cs:Engine.Start", "fn:Acme/Pump.cs:Pump.Start"
    assert conf[(p + "Each", pump)] == 0.8 and (p + "Each", engine) not in conf
    assert conf[(p + "Pattern", engine)] == 0.8 and (p + "Pattern", pump) not in conf
    assert conf[(p + "Using", pump)] == 0.8 and (p + "Using", engine) not in conf
    assert conf[(p + "Out", engine)] == 0.8 and (p + "Out", pump) not in conf
