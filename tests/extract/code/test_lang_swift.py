"""Swift fixture packages: entities and edges, written from the source (Package.swift's targets, types and
extensions, protocols, initializers, `self`, static calls, typed properties and parameters, Swift's built-ins)."""

from ltm.extract.gitrepo import GitRepo
from ltm.extract.history.mine import mine_history
from ltm.extract.history.spans import SpanCache
from ltm.extract.modules import swift_module, swift_targets, RepoContext
from tests.builder import RepoBuilder
from tests.extract.graphs import assert_graph, confidences, extract, graph

PACKAGE = '''// swift-tools-version:5.9
import PackageDescription

let package = Package(
    name: "Net",
    products: [.library(name: "Net", targets: ["Net"])],
    targets: [
        .target(name: "Net", path: "Source"),
        .target(name: "NetCore"),
        .testTarget(name: "NetTests", dependencies: ["Net"]),
    ]
)
'''

SWIFT = {
    "Package.swift": PACKAGE,
    "Source/Session.swift": '''import Foundation
import NetCore

/// Sends requests and keeps them alive.
open class Session: BaseSession, Requesting {
    public static let shared = Session()
    let queue: DispatchQueue
    var delegate = SessionDelegate()
    private var log: Logger?
    var monitor: (any Monitoring)?

    public init(queue: DispatchQueue = .main) {
        self.queue = queue
        super.init()
    }

    /// Makes a request for a URL.
    public func request(_ url: String) -> Request {
        let request = Request(url: url)
        request.resume()
        self.perform(request)
        validate(request)
        _ = describe()
        delegate.didCreate(request)
        log?.write(url)
        let made = Session.make()
        made.reset()
        let names = [url].map { $0.lowercased() }.filter { !$0.isEmpty }
        print(names)
        precondition(!url.isEmpty, "empty")
        return request
    }

    static func make() -> Session {
        Session(queue: .main)
    }

    func reset() {
        monitor?.request(Request(url: ""), didStart: 2)
    }

    func perform(_ request: Request) {
        request.finish()
        request.send(to: "peer")
        monitor?.request(request, didFail: 1)
        Hashing.digest(request.url)
    }
}
''',
    "Source/Session+Validation.swift": '''extension Session {
    func validate(_ request: Request) {
        request.cancel()
        request.send(2)
    }
}

extension Requesting {
    func describe() -> String { "requesting" }
}

// Swift's own Result, not Retrier's nested one
extension Result {
    init(value: Success) {
        self = .success(value)
    }
}

extension Request: CustomStringConvertible {
    public var description: String { summary() }

    func summary() -> String { url }
}
''',
    "Source/Request.swift": '''public protocol Requesting: AnyObject {
    func request(_ url: String) -> Request
}

public struct Request {
    let url: String

    init(url: String) {
        self.url = url
    }

    func resume() {}
    func finish() {}
    func cancel() {}
    func send(to target: String) {}
    func send(_ data: Int, retries: Int = 1) {}
}

enum Method: String {
    case get, post

    func lowercased() -> String { rawValue }
}

actor Counter {
    private var value = 0

    func increment() -> Int {
        value += 1
        return value
    }
}
''',
    "Source/Base.swift": '''open class BaseSession {
    public init() {}
}

final class SessionDelegate {
    func didCreate(_ request: Request) {}
}

final class Retrier {
    enum Result {
        case retry

        func delay() -> Int { 1 }
    }
}

protocol Monitoring {
    func request(_ request: Request, didCreate url: String)
    func request(_ request: Request, didFail code: Int)
    func request(_ request: Request, didStart code: Int)
}

final class LogMonitor: Monitoring {
    func request(_ request: Request, didCreate url: String) {}
    func request(_ request: Request, didFail code: Int) {}
}
''',
    "Sources/NetCore/Logger.swift": '''public final class Logger {
    public func write(_ line: String) {
        _ = Hashing.digest(line)
    }
}

public enum Hashing {
    public static func digest(_ text: String) -> String { text }
}

public func filter(_ items: [Int]) -> [Int] { items }

extension Error {
    public func asNetError(orFailWith message: String) -> Int { 0 }
    public func asNetError(or code: Int) -> Int { code }
}

public func report(_ error: any Error) -> Int {
    error.asNetError(or: 2)
}

public func print(_ text: String, level: Int) {}
''',
    "Tests/NetTests/SessionTests.swift": '''import XCTest
@testable import Net

final class SessionTests: XCTestCase {
    func testRequest() {
        let session = Session(queue: .main)
        let request = session.request("https://example.com")
        XCTAssertEqual(request.url, "https://example.com")
    }
}
''',
}

S = "Source/Session.swift"
SS = f"fn:{S}:Session."
R = "fn:Source/Request.swift:Request."


def test_swift_targets_name_modules():
    targets = swift_targets(PACKAGE.encode(), "")
    # `path:` where the target gives one, else SwiftPM's Sources/<name> and Tests/<name>
    assert targets == {"Source": "Net", "Sources/NetCore": "NetCore", "Tests/NetTests": "NetTests"}
    ctx = RepoContext({}, swift_targets=targets)
    assert swift_module("Source/Session.swift", None, ctx) == "Net"
    assert swift_module("Sources/NetCore/Sub/Logger.swift", None, ctx) == "NetCore"
    # no Package.swift names it: SwiftPM's layout, else an Xcode project's top folder
    assert swift_module("Sources/Other/A.swift", None, RepoContext({})) == "Other"
    assert swift_module("Example/iOS/App.swift", None, RepoContext({})) == "Example"


def test_swift_definitions_and_docs(tmp_path):
    out = extract(tmp_path, SWIFT)
    classes = {r["qualified_name"]: r["kind"] for r in out.tables["Class"]}
    assert classes == {"Session": "class", "Requesting": "interface", "Request": "struct", "Method": "enum",
                       "Counter": "actor", "BaseSession": "class", "SessionDelegate": "class", "Logger": "class",
                       "Hashing": "enum", "SessionTests": "class", "Retrier": "class", "Retrier.Result": "enum",
                       "Monitoring": "interface", "LogMonitor": "class"}
    fns = {r["id"].split(":", 3)[3]: r for r in out.tables["Function"]}
    # an extension's methods are its type's, in the file that extends it
    assert "Session.validate" in {q for q, r in fns.items() if r["file_path"] == "Source/Session+Validation.swift"}
    assert {q for q, r in fns.items() if r["file_path"] == S} == {
        "Session.init", "Session.request", "Session.make", "Session.reset", "Session.perform"}
    req = fns["Session.request"]
    assert (req["line_start"], req["line_end"]) == (18, 32)
    assert req["docstring"] == "Makes a request for a URL."
    # one module per target, whatever its number of files
    modules = {r["name"]: r["path"] for r in out.tables["Module"] if not r["external"]}
    assert modules == {"Net": "Source", "NetCore": "Sources/NetCore/Logger.swift",
                       "NetTests": "Tests/NetTests/SessionTests.swift", "main": "Package.swift"}


def test_swift_graph(tmp_path):
    out = extract(tmp_path, SWIFT)
    session = f"cls:{S}:Session"
    test = "fn:Tests/NetTests/SessionTests.swift:SessionTests.testRequest"
    assert_graph(out, {
        "IMPORTS": {
            (f"file:{S}", "ext:Foundation"),
            (f"file:{S}", "mod:NetCore"),
            ("file:Tests/NetTests/SessionTests.swift", "ext:XCTest"),
            ("file:Tests/NetTests/SessionTests.swift", "mod:Net"),
            ("file:Package.swift", "ext:PackageDescription"),
        },
        "EXTENDS": {(session, "cls:Source/Base.swift:BaseSession")},
        # a conformance, written in the type's declaration or in an extension; Apple's protocols are not here
        "IMPLEMENTS": {(session, "cls:Source/Request.swift:Requesting"),
                       ("cls:Source/Base.swift:LogMonitor", "cls:Source/Base.swift:Monitoring")},
    })
    calls = {dst for src, dst in confidences(out) if src == SS + "request"}
    assert calls == {
        R + "init",  # Request(url:)
        R + "resume",  # let request = Request(...); request.resume()
        SS + "perform",  # self.perform(r)
        SS + "reset",  # made.reset(): `made` is what Session.make() says it returns
        # a method of Session that an extension in another file adds, called without self
        "fn:Source/Session+Validation.swift:Session.validate",
        "fn:Source/Base.swift:SessionDelegate.didCreate",  # var delegate = SessionDelegate()
        "fn:Sources/NetCore/Logger.swift:Logger.write",  # private var log: Logger?
        SS + "make",  # Session.make(): a static call
        "fn:Source/Session+Validation.swift:Requesting.describe",  # a protocol extension's method, Session's too
        # not Method.lowercased (`$0` is a String), nor NetCore's `filter` or `print(_:level:)`: Swift's own
    }
    # an extension of a type no file here declares adds no method to a type of that name nested in another
    has = {(src, dst) for src, dst in graph(out)["HAS_METHOD"]}
    assert ("cls:Source/Base.swift:Retrier.Result", "fn:Source/Session+Validation.swift:Result.init") not in has
    assert ("cls:Source/Base.swift:Retrier.Result", "fn:Source/Base.swift:Retrier.Result.delay") in has
    conf = confidences(out)
    assert conf[(SS + "request", SS + "perform")] == 1.0
    assert (SS + "init", "fn:Source/Base.swift:BaseSession.init") in conf  # super.init()
    assert conf[(SS + "perform", R + "finish")] >= 0.8  # a typed parameter
    assert (SS + "perform", "fn:Sources/NetCore/Logger.swift:Hashing.digest") in conf  # another target's, imported
    assert ("fn:Source/Session+Validation.swift:Session.validate", R + "cancel") in conf
    assert (test, SS + "init") in conf and (test, SS + "request") in conf
    assert not any(dst.endswith(("lowercased", ":filter", ":print")) for _, dst in conf)
    # two methods `send`, told apart by the labels a call writes: `send(to:)` and `send(_:retries:)`
    # `monitor: (any Monitoring)?`: the protocol's `request(_:didFail:)` and its conforming class's
    assert {dst for src, dst in conf if src == SS + "perform" and ".request" in dst} == {
        "fn:Source/Base.swift:Monitoring.request(_:didFail:)", "fn:Source/Base.swift:LogMonitor.request(_:didFail:)"}
    # `request(_:didStart:)`, which LogMonitor does not define: the protocol's only, none of LogMonitor's others
    assert {dst for src, dst in conf if src == SS + "reset" and ".request" in dst} == {
        "fn:Source/Base.swift:Monitoring.request(_:didStart:)"}
    # a computed property is a function of its type: its getter's calls are its own
    ext = "fn:Source/Session+Validation.swift:Request."
    assert conf[(ext + "description", ext + "summary")] == 1.0
    # `error` is Swift's Error, which an extension here gives two overloads of `asNetError`: a guess by the name
    # alone (0.3), one function's overloads being one name, and the labels pick `asNetError(or:)`
    log = "fn:Sources/NetCore/Logger.swift:"
    assert {(dst, c) for (src, dst), c in conf.items() if src == log + "report"} == {
        (log + "Error.asNetError(or:)", 0.3)}
    validate = "fn:Source/Session+Validation.swift:Session.validate"
    assert {dst for src, dst in conf if src == SS + "perform" and ".send" in dst} == {R + "send"}
    assert {dst for src, dst in conf if src == validate and ".send" in dst} == {R + "send(_:retries:)"}


def test_swift_method_history(tmp_path):
    b = RepoBuilder(tmp_path / "h")
    v1 = "struct Box {\n    func open() -> Int {\n        return 1\n    }\n\n    func close() -> Int {\n" \
         "        return 2\n    }\n}\n"
    b.write("Sources/Box/Box.swift", v1)
    b.commit("Add box")
    b.write("Sources/Box/Box.swift", v1.replace("return 2", "return 3"))
    fix = b.commit("fix: close returns three")
    out = mine_history(GitRepo(b.path), "h", "HEAD", cache=SpanCache(None))
    changed = {(m["dst"], m["change_kind"]) for m in out.modifies
               if m["src"] == f"commit:h:{fix}" and m["dst_label"] != "File"}
    assert changed == {("fn:h:Sources/Box/Box.swift:Box.close", "modified"),
                       ("cls:h:Sources/Box/Box.swift:Box", "modified")}


def test_swift_overloads_by_labels_closures_and_variadics(tmp_path):
    out = extract(tmp_path, {"Sources/Run/Runner.swift": '''final class Runner {
    func run(_ name: String, handler: () -> Void) {}
    func run(_ name: String, times: Int = 1) {}
    func log(_ items: Any..., separator: String = " ") {}
    func log(_ item: Int) {}

    func go() {
        run("a") { }
        log(1, 2, 3)
    }

    func again() {
        run("b")
        log(4, separator: ",")
    }

    func make(_ name: String) -> Box { Box() }
    func make(count: Int) -> Crate { Crate() }

    func use() {
        let box = self.make("x")
        box.open()
    }
}

final class Box { func open() {} }
final class Crate { func open() {} }
'''})
    conf = confidences(out)
    r = "fn:Sources/Run/Runner.swift:Runner."
    # a trailing closure takes a parameter that takes a closure; a variadic one takes the unlabelled arguments
    assert {dst for src, dst in conf if src == r + "go"} == {r + "run", r + "log"}
    # a parameter with a default may be left out
    assert {dst for src, dst in conf if src == r + "again"} == {r + "run(_:times:)", r + "log"}
    # a variable holds what the overload its call's labels name returns: `make(_:)`'s Box, not `make(count:)`'s Crate
    assert {dst for src, dst in conf if src == r + "use"} == {r + "make", "fn:Sources/Run/Runner.swift:Box.open"}
