"""Kotlin fixture projects: entities and edges, written from the source (packages, imports with aliases and
wildcards, classes, interfaces, objects, companion objects, enum and data classes, extension functions,
constructors, `val x = Foo()`, `this`, `super`, the standard library's functions never guessed)."""

from ltm.extract.gitrepo import GitRepo
from ltm.extract.history.mine import mine_history
from ltm.extract.history.spans import SpanCache
from tests.builder import RepoBuilder
from tests.extract.graphs import assert_graph, confidences, extract

S = "src/main/kotlin/com/acme/"

KOTLIN = {
    S + "shop/Cart.kt": '''package com.acme.shop

import com.acme.pricing.PriceList
import com.acme.pricing.discount as cut
import com.acme.util.*
import kotlinx.coroutines.launch
import okhttp3.OkHttpClient

/**
 * A shopping cart.
 */
open class Cart(private val prices: PriceList) : Container(), Countable {
    private val items = mutableListOf<Item>()
    private val client: OkHttpClient = OkHttpClient()

    constructor() : this(PriceList())

    init {
        require(items.isEmpty())
    }

    /** Adds an item, priced. */
    fun add(item: Item) {
        items.add(item)
        val checker = Checker()
        checker.verify(item)
        this.log("add")
        prices.priceOf(item)
        cut(item)
        Cart.empty()
        Registry.register(this)
        item.label().shout()
        listOf(item).forEach { println(it) }
        client.newCall()
        launch { }
        normalize(item)
        Legacy.ping()
    }

    override fun count(): Int = items.size.also { log("count") }

    private fun log(msg: String) = println(msg)

    override fun describe(): String {
        return super.describe() + total()
    }

    companion object {
        fun empty(): Cart = Cart()
    }
}
''',
    S + "shop/Container.kt": '''package com.acme.shop

abstract class Container {
    open fun describe(): String = "container"

    abstract fun count(): Int
}

interface Countable {
    fun count(): Int
}

object Registry {
    fun register(c: Countable) {
        c.count()
    }
}
''',
    S + "shop/Item.kt": '''package com.acme.shop

data class Item(val name: String, val cents: Long) {
    fun label(): String = name
}

enum class Size { SMALL, LARGE; fun next(): Size = LARGE }

fun Cart.total(): Long = 0L

fun normalize(item: Item): Item = item
''',
    S + "pricing/PriceList.kt": '''package com.acme.pricing

import com.acme.shop.Item

class PriceList {
    fun priceOf(item: Item): Long = item.cents
    fun cheapest(): Item = Item("a", 1)
}

fun discount(item: Item): Long = 0L

fun require(x: Boolean) {}

fun println(x: Any?) {}

class Settings {
    fun reset() {}

    class Options
    private constructor(
        val names: List<String>,
    ) {
        fun first(): String = names[0]
    }

    fun last() {}
}
''',
    S + "util/Checker.kt": '''package com.acme.util

import com.acme.shop.Item

class Checker {
    fun verify(item: Item) {}
}

fun String.shout(): String = uppercase()

fun register(x: Any) {}
''',
    "src/main/java/com/acme/shop/Legacy.java": '''package com.acme.shop;

public class Legacy {
    public static void ping() {}
}
''',
    "src/test/kotlin/com/acme/shop/CartTest.kt": '''package com.acme.shop

import com.acme.pricing.PriceList
import com.acme.util.shout
import org.junit.Test

class CartTest {
    @Test
    fun `adds an item`() {
        val cart = Cart.empty()
        cart.add(Item("a", 1))
    }

    fun shouting() {
        val word: String = "a"
        word.shout()
    }

    fun counting(count: Int) {
        count.shout()
    }

    fun chained() {
        val item = PriceList().cheapest()
        item.label()
    }

    private val cheapest = PriceList().cheapest()

    fun labelled() {
        cheapest.label()
    }
}
''',
    "build.gradle.kts": '''plugins {
    kotlin("jvm") version "1.9.0"
}

fun configureIt() {
    println("x")
}
''',
}

CART = f"fn:{S}shop/Cart.kt:Cart."
TEST = "fn:src/test/kotlin/com/acme/shop/CartTest.kt:CartTest."


def test_kotlin_definitions_kinds_and_modules(tmp_path):
    out = extract(tmp_path, KOTLIN)
    classes = {r["qualified_name"]: r["kind"] for r in out.tables["Class"]}
    assert classes == {"Cart": "class", "Container": "class", "Countable": "interface", "Registry": "object",
                       "Item": "class", "Size": "enum", "PriceList": "class", "Checker": "class", "Legacy": "class",
                       "CartTest": "class", "Settings": "class", "Settings.Options": "class"}
    fns = {r["id"].split(":", 3)[3] for r in out.tables["Function"] if r["file_path"] == S + "shop/Cart.kt"}
    # the secondary constructor and the init block; the companion object's `empty` is the class's own
    assert fns == {"Cart.constructor", "Cart.init", "Cart.add", "Cart.count", "Cart.log",
                   "Cart.describe", "Cart.empty"}
    by_id = {r["id"].split(":", 3)[3]: r for r in out.tables["Function"]}
    add = by_id["Cart.add"]
    assert (add["line_start"], add["line_end"]) == (23, 38)
    assert add["docstring"] == "Adds an item, priced."
    # an extension function is a function of its file, named plainly (Kotlin compiles it so)
    assert "shout" in by_id and "total" in by_id and "configureIt" in by_id
    # a primary constructor on the line after the class's name (which the grammar misreads unless relaid): the
    # class keeps its methods and every line
    first = by_id["Settings.Options.first"]
    assert (first["line_start"], first["line_end"], first["file_path"]) == (23, 23, S + "pricing/PriceList.kt")
    assert "Settings.last" in by_id and "first" not in by_id and "last" not in by_id
    assert {r["qualified_name"]: r["docstring"] for r in out.tables["Class"]}["Cart"] == "A shopping cart."
    modules = {r["name"] for r in out.tables["Module"] if not r["external"]}
    # a file's module is its package, as Java's
    assert {"com.acme.shop", "com.acme.pricing", "com.acme.util"} <= modules
    files = {r["path"]: r["language"] for r in out.tables["File"]}
    assert files[S + "shop/Cart.kt"] == "kotlin" and files["build.gradle.kts"] == "kotlin"


def test_kotlin_graph(tmp_path):
    out = extract(tmp_path, KOTLIN)
    shop, pricing, util = S + "shop/", S + "pricing/", S + "util/"
    cart = f"file:{shop}Cart.kt"
    assert_graph(out, {
        "IMPORTS": {
            (cart, "mod:com.acme.pricing"),  # `import com.acme.pricing.PriceList`, `...discount as cut`
            (cart, "mod:com.acme.util"),  # `import com.acme.util.*`
            (cart, "ext:kotlinx.coroutines"),  # `import kotlinx.coroutines.launch`: the package, not the function
            (cart, "ext:okhttp3"),
            (f"file:{pricing}PriceList.kt", "mod:com.acme.shop"), (f"file:{util}Checker.kt", "mod:com.acme.shop"),
            ("file:src/test/kotlin/com/acme/shop/CartTest.kt", "ext:org.junit"),
            ("file:src/test/kotlin/com/acme/shop/CartTest.kt", "mod:com.acme.util"),
            ("file:src/test/kotlin/com/acme/shop/CartTest.kt", "mod:com.acme.pricing"),
        },
        # `Container()` is called: the base class; `Countable` is not: an interface
        "EXTENDS": {(f"cls:{shop}Cart.kt:Cart", f"cls:{shop}Container.kt:Container")},
        "IMPLEMENTS": {(f"cls:{shop}Cart.kt:Cart", f"cls:{shop}Container.kt:Countable")},
        "CALLS": {
            (CART + "add", f"fn:{util}Checker.kt:Checker.verify"),  # val checker = Checker(); checker.verify()
            (CART + "add", CART + "log"),  # this.log()
            (CART + "add", f"fn:{pricing}PriceList.kt:PriceList.priceOf"),  # a `private val` constructor parameter
            (CART + "add", f"fn:{pricing}PriceList.kt:discount"),  # `cut(item)`: imported as an alias
            (CART + "add", CART + "empty"),  # the companion object's, called on the class
            (CART + "add", f"fn:{shop}Container.kt:Registry.register"),  # an object's, not util's `register`
            (CART + "add", f"fn:{shop}Item.kt:Item.label"),
            (CART + "add", f"fn:{shop}Item.kt:normalize"),  # a top-level function of the same package
            (CART + "add", "fn:src/main/java/com/acme/shop/Legacy.java:Legacy.ping"),  # Java's, same package
            (CART + "count", CART + "log"),  # inside `also { }`
            (CART + "describe", f"fn:{shop}Container.kt:Container.describe"),  # super.describe()
            (CART + "describe", f"fn:{shop}Item.kt:total"),  # the extension `Cart.total()` with `this` implicit
            (CART + "empty", CART + "init"),  # `Cart()`: the primary constructor runs the init block
            (f"fn:{shop}Container.kt:Registry.register", f"fn:{shop}Container.kt:Countable.count"),
            (f"fn:{shop}Container.kt:Registry.register", CART + "count"),  # the interface's one implementation
            # a test named in backticks is named by what they quote; `Cart.empty()` declares it returns a Cart
            ("fn:src/test/kotlin/com/acme/shop/CartTest.kt:CartTest.adds an item", CART + "empty"),
            ("fn:src/test/kotlin/com/acme/shop/CartTest.kt:CartTest.adds an item", CART + "add"),
            # extension functions in scope, on a String (the platform's): `word.shout()`, not `count.shout()` on an
            # Int; `item.label().shout()` on what a call returns, of a type not read
            ("fn:src/test/kotlin/com/acme/shop/CartTest.kt:CartTest.shouting", f"fn:{util}Checker.kt:shout"),
            (CART + "add", f"fn:{util}Checker.kt:shout"),
            # `val item = PriceList().cheapest()`: what the chain's last call declares it returns, an Item (not the
            # PriceList its text starts with)
            (TEST + "chained", f"fn:{pricing}PriceList.kt:PriceList.cheapest"),
            (TEST + "chained", f"fn:{shop}Item.kt:Item.label"),
            (TEST + "labelled", f"fn:{shop}Item.kt:Item.label"),  # a property initialized so
        },
    })
    conf = confidences(out)
    assert conf[(CART + "add", CART + "log")] == 1.0
    assert conf[(CART + "add", f"fn:{util}Checker.kt:Checker.verify")] == 0.8
    assert conf[("fn:src/test/kotlin/com/acme/shop/CartTest.kt:CartTest.shouting", f"fn:{util}Checker.kt:shout")] == 0.9
    assert conf[(CART + "add", f"fn:{util}Checker.kt:shout")] == 0.5
    assert conf[(TEST + "labelled", f"fn:{shop}Item.kt:Item.label")] == 0.8  # its class known, not a guess
    # `require`, `println`, `listOf`, `forEach`, `launch`: the standard library's or another package's, never
    # pricing's `require` and `println`, which Cart does not import; `client.newCall()` is OkHttp's
    assert not any(dst.endswith((":require", ":println")) for _, dst in conf)


def test_kotlin_expression_bodies_and_stubs(tmp_path):
    out = extract(tmp_path, KOTLIN)
    fns = {r["id"].split(":", 3)[3]: r for r in out.tables["Function"]}
    # `fun log(msg: String) = println(msg)`: the signature ends before the expression body
    assert fns["Cart.log"]["signature"] == "private fun log(msg: String)"
    assert fns["Countable.count"]["signature"] == "fun count(): Int"


def test_kotlin_method_history(tmp_path):
    b = RepoBuilder(tmp_path / "h")
    v1 = "package a\n\nclass Box {\n    fun open(): Int {\n        return 1\n    }\n\n" \
         "    fun close(): Int = 2\n}\n"
    b.write("src/Box.kt", v1)
    b.commit("Add box")
    b.write("src/Box.kt", v1.replace("= 2", "= 3"))
    fix = b.commit("fix: close returns three")
    out = mine_history(GitRepo(b.path), "h", "HEAD", cache=SpanCache(None))
    changed = {(m["dst"], m["change_kind"]) for m in out.modifies
               if m["src"] == f"commit:h:{fix}" and m["dst_label"] != "File"}
    assert changed == {("fn:h:src/Box.kt:Box.close", "modified"), ("cls:h:src/Box.kt:Box", "modified")}
