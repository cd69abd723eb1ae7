; Kotlin. Capture names: see python.scm; @module.name is the declared package (as Java's). A companion object
; is no class of its own: its functions are its class's (`Foo.create()` calls `Foo.create`, as a Java static
; method's call does). An extension function `fun String.shout()` is a function of its file named `shout` (the
; receiver type is a parameter, not an owner: Kotlin compiles it so); `LanguageSpec.extension_method` reads the
; type it extends from its signature, so `s.shout()` finds it.
(package_header (qualified_identifier) @module.name)

[(class_declaration name: (identifier) @class.name)
 (object_declaration name: (identifier) @class.name)] @class
; `class A : B(), I`: the supertype whose constructor is called is the base class; the others are interfaces
; (or, for an interface, the interfaces it extends: the resolver reads their kind)
(delegation_specifier (constructor_invocation (user_type) @extends))
(delegation_specifier (user_type) @base)

(function_declaration name: (identifier) @function.name) @function
; `constructor(x: Int) : this(...)`, `init { ... }`: named by their keyword (`LanguageSpec.constructors`)
(secondary_constructor "constructor" @function.name) @function
(anonymous_initializer "init" @function.name) @function

; `import a.b.C`, `import a.b.foo`, `import a.b.C as D`, `import a.b.*` (@import.name)
(import (qualified_identifier) @import.module . (identifier)? @import.alias .) @import
(import (qualified_identifier) @import.module "*" @import.name) @import

; `f(x)`, `Foo(x)` (a constructor: Kotlin has no `new`), `f<T>()`, `f { ... }`
(call_expression . (identifier) @call.name)
; `x.m()`, `x?.m()`, `this.m()`, `super.m()`, `Foo.m()` (an object's or a companion's)
(call_expression . (navigation_expression (_) @call.receiver . (identifier) @call.name .))
; `::f`, `Foo::m`: a function passed as a value
(callable_reference . (identifier) @ref.name)
(callable_reference (user_type) @ref.receiver . (identifier) @ref.name)

; a property and its declared type (a class's `val helper: Helper`, a primary constructor's `val x: Foo`), or
; the constructor it is initialized from (`val helper = Helper()`): what `helper.m()` and `this.helper.m()` call
(class_body (property_declaration
  (variable_declaration (identifier) @attr.name [(user_type) @attr.type (nullable_type (user_type) @attr.type)])))
(class_body (property_declaration
  (variable_declaration . (identifier) @attr.name .)
  (call_expression . (identifier) @attr.type)))
; `private val moshi = Moshi.Builder().build()`: what the chain's last call returns (`LanguageSpec.chained_calls`)
(class_body (property_declaration
  (variable_declaration . (identifier) @attr.name .)
  (call_expression . (navigation_expression) @attr.type)))
(class_parameter (identifier) @attr.name [(user_type) @attr.type (nullable_type (user_type) @attr.type)])

; a parameter, a local `val x: Foo`, `val x = Foo()`, `val x = y.make()`: what `x.m()` calls
(parameter (identifier) @var.name [(user_type) @var.type (nullable_type (user_type) @var.type)])
(property_declaration
  (variable_declaration (identifier) @var.name [(user_type) @var.type (nullable_type (user_type) @var.type)]))
(property_declaration
  (variable_declaration . (identifier) @var.name .)
  (call_expression . [(identifier) (navigation_expression)] @var.type))
