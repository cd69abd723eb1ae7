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
                  (c + "scale", f"fn:{J}geo/Base.java:Base.name"), (f"fn:{J}App.java:App.main", c + "Circle"),
                  (f"fn:{J}App.java:App.main", c + "area")},
    })
    conf = confidences(out)
    assert conf[(c + "area", c + "scale")] == 1.0  # implicit this
    assert conf[(f"fn:{J}App.java:App.main", c + "area")] == 0.8  # new Circle().area(): Circle's, not Shape's
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
        "classes": {base, circle},  # `module Geo`, holding only classes, is a namespace
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


GENERIC = {
    "src/main/java/com/acme/Adapter.java": "package com.acme;\n\npublic class Adapter<T> {\n    public T read() { return null; }\n}\n",
    "src/main/java/com/acme/Reader.java": "package com.acme;\n\npublic class Reader {\n    public int read() { return 2; }\n}\n",
    "src/main/java/com/acme/Box.java": '''package com.acme;

import java.util.List;

public class Box<T> {
    private final Adapter<T> delegate;

    Box(Adapter<T> delegate) { this.delegate = delegate; }

    T field() { return delegate.read(); }

    T parameter(Adapter<String> a) { return (T) a.read(); }

    void local(List<Adapter<T>> all) {
        Adapter<T> first = all.get(0);
        first.read();
        for (Adapter<T> each : all) { each.read(); }
    }

    static Box<String> make() { return new Box<String>(new Adapter<>()); }
}
''',
}


def test_java_generic_types_type_fields_parameters_locals_and_constructions(tmp_path):
    """`Adapter<T> delegate`: the declared type is the class before `<`, as `Adapter delegate` would be;
    `new Box<String>(...)` constructs Box. `read` is a method of two classes, so no guess picks one."""
    conf = confidences(extract(tmp_path, GENERIC))
    b, adapter = "fn:src/main/java/com/acme/Box.java:Box.", "fn:src/main/java/com/acme/Adapter.java:Adapter.read"
    for fn in ("field", "parameter", "local"):
        assert conf[(b + fn, adapter)] == 0.8
        assert (b + fn, "fn:src/main/java/com/acme/Reader.java:Reader.read") not in conf
    assert conf[(b + "make", b + "Box")] == 0.9


FOREIGN = {
    "src/main/java/com/acme/Buffer.java": '''package com.acme;

public class Buffer {
    public int length() { return 0; }
    public char charAt(int i) { return 'a'; }
    public String getKey() { return "k"; }
}
''',
    "src/test/java/com/acme/Entry.java": "package com.acme;\n\nclass Entry {\n    String getKey() { return null; }\n}\n",
    "src/main/java/com/acme/Dates.java": '''package com.acme;

import java.util.Map;
import java.util.Map.Entry;

public class Dates {
    private final String pattern = "yyyy";

    int parse(String value, Entry<String, Integer> e) {
        Map.Entry<String, Integer> other = e;
        return value.length() + value.charAt(0) + pattern.length() + "abc".length()
            + (e.getKey() + other.getKey()).hashCode();
    }

    int own(Buffer b) { return b.length(); }
}
''',
}


def test_java_a_declared_platform_or_imported_type_is_never_guessed_into_the_repository(tmp_path):
    """`String value`: `value.length()` is String's, not the repository's only `length`; `Entry` imported from
    java.util is not the test's `Entry`, nor is a string literal's method ours. A type of ours still resolves."""
    out = extract(tmp_path, FOREIGN)
    conf = confidences(out)
    parse, own = "fn:src/main/java/com/acme/Dates.java:Dates.parse", "fn:src/main/java/com/acme/Dates.java:Dates.own"
    assert not [dst for src, dst in conf if src == parse], conf
    assert conf[(own, "fn:src/main/java/com/acme/Buffer.java:Buffer.length")] == 0.8


DECLARED_RETURNS = {
    "src/main/java/com/acme/LazyNumber.java": """package com.acme;

public final class LazyNumber extends Number {
    @Override
    public long longValue() { return 0L; }
}
""",
    "src/main/java/com/acme/Primitive.java": """package com.acme;

public final class Primitive {
    private Object value;

    public Number getAsNumber() { return (Number) value; }

    public LazyNumber getAsLazy() { return new LazyNumber(); }

    public long getAsLong() { return this.getAsNumber().longValue(); }

    public long getLazyLong() { return this.getAsLazy().longValue(); }
}
""",
}


def test_java_a_method_declared_to_return_a_platform_type_returns_no_object_of_ours(tmp_path):
    """`getAsNumber().longValue()` where `Number getAsNumber()`: Number's `longValue`, never a guess at the
    repository's only one (gson's `LazilyParsedNumber.longValue`); a declared type of ours still resolves."""
    conf = confidences(extract(tmp_path, DECLARED_RETURNS))
    p = "fn:src/main/java/com/acme/Primitive.java:Primitive."
    lazy = "fn:src/main/java/com/acme/LazyNumber.java:LazyNumber.longValue"
    assert (p + "getAsLong", lazy) not in conf, conf
    assert (p + "getLazyLong", lazy) in conf


CHAINS = {
    "src/main/java/com/acme/Builder.java": '''package com.acme;

public class Builder {
    public Builder lenient() { return this; }
    public Object create() { return null; }
}
''',
    "src/main/java/com/acme/Factory.java": "package com.acme;\n\npublic interface Factory {\n    Object create();\n}\n",
    "src/main/java/com/acme/Token.java": "package com.acme;\n\npublic class Token<T> {\n    public String getType() { return null; }\n}\n",
    "src/test/java/com/acme/BuilderTest.java": '''package com.acme;

import static org.truth.Truth.assertThat;

import com.google.protobuf.Struct;

public class BuilderTest {
    void made() {
        Object made = new Builder().create();
        String type = new Token<java.util.List<String>>() {}.getType();
    }

    void foreign() {
        assertThat(made()).lenient();
        Struct.newBuilder().putFields("a", "b").putFields("c", "d").putFields("e", "f").putFields("g", "h").lenient();
        Generated.newBuilder().lenient();
    }
}
''',
}


def test_java_a_receiver_built_with_new_is_that_class_and_one_another_package_returns_is_not_ours(tmp_path):
    """`new Builder().create()` is Builder's create, though `create` has two definitions; `assertThat(x).m()`
    (a static import of another package) and `Struct.newBuilder()...m()` (however long the chain) return
    another package's object, so `m` is never the repository's only `lenient`."""
    conf = confidences(extract(tmp_path, CHAINS))
    t, b = "fn:src/test/java/com/acme/BuilderTest.java:BuilderTest.", "fn:src/main/java/com/acme/Builder.java:Builder."
    assert conf[(t + "made", b + "create")] == 0.8
    assert conf[(t + "made", "fn:src/main/java/com/acme/Token.java:Token.getType")] == 0.8
    assert not [dst for src, dst in conf if src == t + "foreign" and dst != t + "made"], conf


OVERRIDES = {
    "src/main/java/com/acme/Adapter.java": '''package com.acme;

public abstract class Adapter {
    public abstract Object read();
    public final Object fromJson() { return read(); }
}
''',
    "src/main/java/com/acme/IntAdapter.java": "package com.acme;\n\nclass IntAdapter extends Adapter {\n    public Object read() { return 1; }\n}\n",
    "src/test/java/com/acme/AdapterTest.java": '''package com.acme;

public class AdapterTest {
    static class Dummy extends Adapter {
        public Object read() { return null; }
    }

    void run(Adapter a) { a.read(); }
}
''',
}


def test_java_a_library_call_of_an_abstract_method_fans_out_to_the_librarys_overrides_only(tmp_path):
    """`Adapter.fromJson` calls the abstract `read`: IntAdapter's override runs, a test's `Dummy` is no callee of
    the library; a test's own call still reaches both."""
    conf = confidences(extract(tmp_path, OVERRIDES))
    lib, test = "fn:src/main/java/com/acme/Adapter.java:Adapter.fromJson", "fn:src/test/java/com/acme/AdapterTest.java:AdapterTest."
    impl, dummy = "fn:src/main/java/com/acme/IntAdapter.java:IntAdapter.read", test + "Dummy.read"
    assert conf[(lib, impl)] == 0.5 and (lib, dummy) not in conf
    assert conf[(test + "run", impl)] == 0.5 and conf[(test + "run", dummy)] == 0.5


CONSTRUCTORS = {
    "src/main/java/com/acme/ParseError.java": '''package com.acme;

public class ParseError extends RuntimeException {
    public ParseError(String message) { super(message); }
}
''',
    "src/main/java/com/acme/SyntaxError.java": '''package com.acme;

public class SyntaxError extends ParseError {
    public SyntaxError(int line) { this("at " + line); }
    public SyntaxError(String message) { super(message); }
}
''',
}


def test_java_this_and_super_in_a_constructor_call_the_class_or_base_constructor(tmp_path):
    """`super(message)` runs the base class's constructor and `this(...)` another of the class's own (overloads
    share the name, so the edge goes to the one a name resolves to, never back to the caller itself);
    `super` of another package's base (RuntimeException) is no edge."""
    conf = confidences(extract(tmp_path, CONSTRUCTORS))
    s, p = "fn:src/main/java/com/acme/SyntaxError.java:SyntaxError.", "fn:src/main/java/com/acme/ParseError.java:ParseError."
    assert conf[(s + "SyntaxError(String)", p + "ParseError")] == 0.9
    assert conf[(s + "SyntaxError", s + "SyntaxError(String)")] == 1.0
    assert not [dst for src, dst in conf if src == p + "ParseError"]


STATIC_IMPORTS = {
    "src/main/java/com/acme/A.java": '''package com.acme;

import static java.util.Objects.requireNonNull;
import static org.junit.Assert.*;
import java.util.*;

class A {
    void f(Object o) { requireNonNull(o); }
}
''',
    "src/main/java/com/acme/util/Checks.java": "package com.acme.util;\n\npublic class Checks {\n    public static void requireNonNull(Object o) {}\n}\n",
}


def test_java_a_static_import_depends_on_the_package_of_its_class(tmp_path):
    """`import static java.util.Objects.requireNonNull` imports a member of java.util's Objects: the package is
    java.util (not a package `java.util.Objects.requireNonNull`), and the name it binds is another package's."""
    out = extract(tmp_path, STATIC_IMPORTS)
    assert_graph(out, {
        "modules": {"mod:com.acme", "mod:com.acme.util", "ext:java.util", "ext:org.junit"},
        "IMPORTS": {("file:src/main/java/com/acme/A.java", "ext:java.util"),
                    ("file:src/main/java/com/acme/A.java", "ext:org.junit")},
        "CALLS": set(),
    })
    assert {r["names"] for r in out.tables["IMPORTS"]} == {"requireNonNull", "Assert"}


CASTS = {
    "src/main/java/com/acme/Primitive.java": "package com.acme;\n\npublic class Primitive {\n    public String getAsString() { return null; }\n}\n",
    "src/main/java/com/acme/Array.java": "package com.acme;\n\npublic class Array {\n    public String getAsString() { return null; }\n}\n",
    "src/main/java/com/acme/Reader.java": '''package com.acme;

public class Reader {
    Object pop() { return null; }

    String next() { return ((Primitive) pop()).getAsString() + ((String) pop()).trim(); }
}
''',
}


def test_java_a_cast_receiver_is_an_object_of_the_cast_type(tmp_path):
    """`((Primitive) pop()).getAsString()`: Primitive's, though `getAsString` has two definitions;
    `((String) x).trim()` is String's, never a guess."""
    conf = confidences(extract(tmp_path, CASTS))
    nxt = "fn:src/main/java/com/acme/Reader.java:Reader.next"
    assert conf[(nxt, "fn:src/main/java/com/acme/Primitive.java:Primitive.getAsString")] == 0.8
    assert {dst for src, dst in conf if src == nxt} == {"fn:src/main/java/com/acme/Primitive.java:Primitive.getAsString",
                                                        "fn:src/main/java/com/acme/Reader.java:Reader.pop"}


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
