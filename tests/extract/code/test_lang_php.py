"""PHP fixture projects: entities and edges, written from the source (composer.json's psr-4 map, namespaces,
`use`, traits, `$this->`, `parent::`, typed properties and parameters, PHP's built-in functions)."""

from ltm.extract.gitrepo import GitRepo
from ltm.extract.history.mine import mine_history
from ltm.extract.history.spans import SpanCache
from tests.builder import RepoBuilder
from tests.extract.graphs import assert_graph, confidences, extract

COMPOSER = '''{
    "name": "acme/web",
    "autoload": {"psr-4": {"Acme\\\\": "src/"}},
    "autoload-dev": {"psr-4": {"Acme\\\\Tests\\\\": "tests/"}}
}
'''

PHP = {
    "composer.json": COMPOSER,
    "src/Routing/RouteCollector.php": '''<?php

declare(strict_types=1);

namespace Acme\\Routing;

use Acme\\Interfaces\\CollectorInterface;
use Acme\\Log\\{Logger, Level as Lvl};
use Psr\\Http\\Message\\ResponseInterface;

use function trim;
use function Acme\\Util\\helper;

/**
 * Collects the routes of an app.
 */
class RouteCollector extends BaseCollector implements CollectorInterface
{
    use Counts;

    private Router $router;

    private RouterInterface $handler;

    public function __construct(private Logger $logger)
    {
        parent::__construct();
        $this->router = new Router();
    }

    /**
     * Maps a pattern to a new route.
     */
    public function map(string $pattern): Route
    {
        $this->logger->log(strlen($pattern), Lvl::INFO);
        $route = new Route($pattern);
        $route->run();
        self::normalize($pattern);
        $this->router->dispatch($route);
        $this->count();
        $this->handler->handle();
        $found = $this->lookup($pattern);
        $found->run();
        $handler = fn($x) => json_encode(helper($x));
        return $route;
    }

    public function lookup(string $pattern): Route
    {
        return static::normalize($pattern) === '' ? new Route('') : new Route($pattern);
    }

    public static function normalize(string $p): string
    {
        return trim($p);
    }

    public function respond(ResponseInterface $response): void
    {
        $response->getBody()->write('ok');
        $response->withHeader('a', 'b');
        Config::load();
    }
}
''',
    "src/Routing/Config.php": '''<?php

namespace Acme\\Routing;

class Config
{
    public static function load(): void
    {
    }
}
''',
    "src/Log/Config.php": '''<?php

namespace Acme\\Log;

class Config
{
    public static function load(): void
    {
    }
}
''',
    "src/Routing/BaseCollector.php": '''<?php

namespace Acme\\Routing;

abstract class BaseCollector
{
    public function __construct()
    {
    }

    public function count(): int
    {
        $made = static::make();
        $made->fixtureHelper();
        return 1;
    }
}
''',
    "src/Routing/Counts.php": '''<?php

namespace Acme\\Routing;

trait Counts
{
    public function count(): int
    {
        return 0;
    }
}
''',
    "src/Routing/Route.php": '''<?php

namespace Acme\\Routing;

class Route implements \\Psr\\Link\\MapperInterface
{
    public function __construct(private string $pattern)
    {
    }

    public function run(): void
    {
    }
}
''',
    "src/Routing/Router.php": '''<?php

namespace Acme\\Routing;

class Router implements RouterInterface
{
    public function dispatch(Route|null $route): void
    {
        $route->run();
    }

    public function withHeader(): void
    {
    }

    public function handle(): void
    {
    }
}
''',
    "src/Routing/RouterInterface.php": '''<?php

namespace Acme\\Routing;

use Psr\\Http\\Server\\RequestHandlerInterface;

interface RouterInterface extends RequestHandlerInterface
{
}
''',
    "src/Interfaces/CollectorInterface.php": '''<?php

namespace Acme\\Interfaces;

interface CollectorInterface extends MapperInterface, \\Countable
{
}
''',
    "src/Interfaces/MapperInterface.php": '''<?php

namespace Acme\\Interfaces;

interface MapperInterface
{
    public function map(string $pattern);
}
''',
    "src/Log/Logger.php": '''<?php

namespace Acme\\Log;

final class Logger
{
    public function log(int $n, string $level): void
    {
    }
}
''',
    "src/Log/Level.php": '''<?php

namespace Acme\\Log;

enum Level: string
{
    case INFO = 'info';
}

final class LevelHelper
{
}
''',
    "src/Util/functions.php": '''<?php

namespace Acme\\Util;

function json_encode($value): string
{
    return '';
}

function helper($value)
{
    return $value;
}
''',
    "tests/RouteCollectorTest.php": '''<?php

namespace Acme\\Tests;

use Acme\\Routing\\RouteCollector;
use Acme\\Log\\Logger;
use Acme\\Psr7\\Request;
use Acme\\Log\\LevelHelper;

require_once __DIR__ . '/bootstrap.php';

class RouteCollectorTest extends TestCase
{
    public function testMap(): void
    {
        $collector = new RouteCollector(new Logger());
        $collector->map('/');
        $this->assertSame(1, $collector->count());
        $route = $this->prophesize(Route::class);
        $route->run();
    }

    public function fixtureHelper(): void
    {
    }
}
''',
    "tests/TestCase.php": '''<?php

namespace Acme\\Tests;

use PHPUnit\\Framework\\TestCase as PHPUnitTestCase;

abstract class TestCase extends PHPUnitTestCase
{
}
''',
    "tests/bootstrap.php": "<?php\n\nfunction fixture_path(): string\n{\n    return __DIR__;\n}\n",
}

R = "src/Routing/"
RC = f"fn:{R}RouteCollector.php:RouteCollector."


def test_php_definitions_modules_and_docblocks(tmp_path):
    out = extract(tmp_path, PHP)
    classes = {r["qualified_name"]: r for r in out.tables["Class"]}
    assert {q: r["kind"] for q, r in classes.items()} == {
        "RouteCollector": "class", "BaseCollector": "class", "Counts": "trait", "Route": "class", "Router": "class",
        "CollectorInterface": "interface", "MapperInterface": "interface", "Logger": "class", "Level": "enum",
        "RouteCollectorTest": "class", "TestCase": "class",
        "RouterInterface": "interface", "LevelHelper": "class", "Config": "class"}
    fns = {r["id"].split(":", 3)[3]: r for r in out.tables["Function"] if r["file_path"] == R + "RouteCollector.php"}
    assert set(fns) == {"RouteCollector." + n for n in ("__construct", "map", "map.handler", "lookup", "normalize",
                                                         "respond")}
    m = fns["RouteCollector.map"]
    assert (m["line_start"], m["line_end"]) == (34, 47)
    assert m["docstring"] == "Maps a pattern to a new route."
    assert classes["RouteCollector"]["docstring"] == "Collects the routes of an app."
    modules = {r["name"]: r["path"] for r in out.tables["Module"] if not r["external"]}
    # the namespace and the file, as psr-4 names the class: `use Acme\Routing\Route;` names this file
    assert modules["Acme\\Routing\\RouteCollector"] == R + "RouteCollector.php"
    assert modules["Acme\\Util\\functions"] == "src/Util/functions.php"
    # no namespace declared: the one psr-4 gives its folder
    assert modules["Acme\\Tests\\bootstrap"] == "tests/bootstrap.php"


def test_php_graph(tmp_path):
    out = extract(tmp_path, PHP)
    cls = {n: f"cls:{R}{n}.php:{n}" for n in ("RouteCollector", "BaseCollector", "Counts", "Route", "Router")}
    iface, mapper = ("cls:src/Interfaces/CollectorInterface.php:CollectorInterface",
                     "cls:src/Interfaces/MapperInterface.php:MapperInterface")
    test = "fn:tests/RouteCollectorTest.php:RouteCollectorTest.testMap"
    assert_graph(out, {
        "IMPORTS": {
            (f"file:{R}RouteCollector.php", "mod:Acme\\Interfaces\\CollectorInterface"),
            (f"file:{R}RouteCollector.php", "mod:Acme\\Log\\Logger"),
            (f"file:{R}RouteCollector.php", "mod:Acme\\Log\\Level"),
            (f"file:{R}RouteCollector.php", "ext:Psr\\Http\\Message"),
            (f"file:{R}RouterInterface.php", "ext:Psr\\Http\\Server"),
            ("file:tests/RouteCollectorTest.php", "mod:Acme\\Routing\\RouteCollector"),
            ("file:tests/RouteCollectorTest.php", "mod:Acme\\Log\\Logger"),
            ("file:tests/TestCase.php", "ext:PHPUnit\\Framework"),
            # under the psr-4 prefix `Acme\\`, yet no src/Psr7/Request.php: another package of the vendor's
            ("file:tests/RouteCollectorTest.php", "ext:Acme\\Psr7"),
            ("file:tests/RouteCollectorTest.php", "mod:Acme\\Log\\Level"),  # LevelHelper is in Level.php
            (f"file:{R}RouteCollector.php", "mod:Acme\\Util\\functions"),  # use function Acme\\Util\\helper
            (f"file:{R}RouteCollector.php", "ext:php"),  # `use function trim;`: PHP's own
            ("file:tests/RouteCollectorTest.php", "mod:Acme\\Tests\\bootstrap"),  # require_once __DIR__ . '/bootstrap.php'
        },
        # a trait a class uses is a base its methods come from; an interface extends interfaces
        "EXTENDS": {(cls["RouteCollector"], cls["BaseCollector"]), (cls["RouteCollector"], cls["Counts"]),
                    (iface, mapper),
                    ("cls:tests/RouteCollectorTest.php:RouteCollectorTest", "cls:tests/TestCase.php:TestCase")},
        # not Route's `\\Psr\\Link\\MapperInterface`: another package's, though this one has a MapperInterface
        "IMPLEMENTS": {(cls["RouteCollector"], iface), (cls["Router"], f"cls:{R}RouterInterface.php:RouterInterface")},
        "CALLS": {
            (RC + "__construct", f"fn:{R}BaseCollector.php:BaseCollector.__construct"),  # parent::__construct()
            (RC + "map", "fn:src/Log/Logger.php:Logger.log"),  # promoted `private Logger $logger`
            (RC + "map", f"fn:{R}Route.php:Route.__construct"),  # new Route(...)
            (RC + "map", f"fn:{R}Route.php:Route.run"),  # $route = new Route(); $route->run(); `: Route` of lookup
            (RC + "map", RC + "normalize"),  # self::normalize()
            (RC + "map", f"fn:{R}Router.php:Router.dispatch"),  # typed property `private Router $router`
            (RC + "map", f"fn:{R}Counts.php:Counts.count"),  # the trait's method, used by the class
            (RC + "map", RC + "lookup"),
            (RC + "map.handler", "fn:src/Util/functions.php:helper"),  # `use function`, in the arrow function
            # `private RouterInterface $handler`: the interface takes `handle` from PSR-15's; its one implementation
            (RC + "map", f"fn:{R}Router.php:Router.handle"),
            (RC + "lookup", RC + "normalize"),  # static::normalize()
            (RC + "lookup", f"fn:{R}Route.php:Route.__construct"),
            (f"fn:{R}Router.php:Router.dispatch", f"fn:{R}Route.php:Route.run"),  # a typed parameter
            (RC + "respond", f"fn:{R}Config.php:Config.load"),  # the file's own namespace's Config, not Log's
            (test, RC + "__construct"), (test, RC + "map"),
            (test, f"fn:{R}Counts.php:Counts.count"),
            # not BaseCollector.count's `$made->fixtureHelper()` on an object of unknown class: the package's code never calls
            # into its tests, though they hold the repository's only `fixtureHelper`
            # not `$route->run()`: `$route` is what PHPUnit's `prophesize`, inherited through the tests' own
            # TestCase, returns (another package's object), never a guess at the repository's only `run`
        },
    })
    conf = confidences(out)
    assert conf[(RC + "map", RC + "normalize")] == 1.0
    assert conf[(RC + "map", f"fn:{R}Router.php:Router.dispatch")] == 0.8
    assert conf[(RC + "map", f"fn:{R}Router.php:Router.handle")] == 0.5
    assert conf[(f"fn:{R}Router.php:Router.dispatch", f"fn:{R}Route.php:Route.run")] == 0.8  # `Route|null $route`
    # `strlen`, `json_encode`, `trim`: PHP's own, never the repository's `Acme\Util\json_encode`; `$response` is
    # PSR-7's (imported from another package), never the repository's only `withHeader`
    assert not any(dst.endswith(("json_encode", "withHeader")) for _, dst in conf)


def test_php_method_history(tmp_path):
    b = RepoBuilder(tmp_path / "h")
    v1 = "<?php\n\nnamespace A;\n\nclass Box\n{\n    public function open(): int\n    {\n        return 1;\n    }\n\n" \
         "    public function close(): int\n    {\n        return 2;\n    }\n}\n"
    b.write("src/Box.php", v1)
    b.commit("Add box")
    b.write("src/Box.php", v1.replace("return 2;", "return 3;"))
    fix = b.commit("fix: close returns three")
    out = mine_history(GitRepo(b.path), "h", "HEAD", cache=SpanCache(None))
    changed = {(m["dst"], m["change_kind"]) for m in out.modifies
               if m["src"] == f"commit:h:{fix}" and m["dst_label"] != "File"}
    assert changed == {("fn:h:src/Box.php:Box.close", "modified"), ("cls:h:src/Box.php:Box", "modified")}
