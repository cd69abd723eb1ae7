; Swift. Capture names: see python.scm. A class, struct, enum, actor or protocol is a @class; an `extension Foo`
; is an @impl of Foo (its methods become `Foo.bar`, so `foo.bar()` on a Foo reaches them, whichever file of the
; module extends it); what a declaration or an extension conforms to is a @base: a protocol's (an interface's)
; or the superclass's, as the resolver finds it.
(class_declaration
  declaration_kind: ["class" "struct" "enum" "actor"] name: (type_identifier) @class.name) @class
(protocol_declaration name: (type_identifier) @class.name) @class
(class_declaration declaration_kind: "extension" name: (user_type) @impl.type) @impl
; `class A: B, P`, `protocol P: Q`, `extension A: Equatable`; the generic argument of `Base<T>` is no base
(class_declaration (inheritance_specifier inherits_from: (user_type . (type_identifier) @base)))
(protocol_declaration (inheritance_specifier inherits_from: (user_type . (type_identifier) @base)))

(function_declaration name: (simple_identifier) @function.name) @function
; `init(...)`, `init?(...)`: a type's initializer, which `Foo(...)` calls
(init_declaration name: "init" @function.name) @function
(deinit_declaration "deinit" @function.name) @function
; a protocol's required method: a stub whose conforming types' methods a call through the protocol reaches
(protocol_function_declaration name: (simple_identifier) @function.name) @function

; `import Foundation`, `@testable import Alamofire`, `import struct Foo.Bar` (module Foo: `modules.swift_import`)
(import_declaration (identifier) @import.module) @import

; `perform(r)`, `Session(queue: q)` (an initializer: the resolver reads a capitalized bare call as one)
(call_expression . (simple_identifier) @call.name)
; `r.resume()`, `self.perform(r)`, `Session.make()`, `super.init()`, `r?.cancel()`
(call_expression . (navigation_expression
  target: (_) @call.receiver
  suffix: (navigation_suffix suffix: (simple_identifier) @call.name)))

; a property and its type (`let queue: DispatchQueue`, `var delegate = SessionDelegate()`, `var monitor: (any
; EventMonitor)?`, `some P`): what `self.queue.async()` and `delegate.handle()` call
(class_body (property_declaration
  name: (pattern bound_identifier: (simple_identifier) @attr.name)
  (type_annotation [(user_type . (type_identifier) @attr.type)
   (optional_type wrapped: (user_type . (type_identifier) @attr.type))
   (existential_type (user_type . (type_identifier) @attr.type))
   (opaque_type (user_type . (type_identifier) @attr.type))
   (optional_type wrapped: (tuple_type .
     (tuple_type_item element: (existential_type (user_type . (type_identifier) @attr.type))) .))])))
(class_body (property_declaration
  name: (pattern bound_identifier: (simple_identifier) @attr.name)
  !computed_value
  value: (call_expression . (simple_identifier) @attr.type)))

; a parameter and its type (`_ r: DataRequest`, `r: DataRequest?`), a local's declared type or its value
; (`let r = DataRequest(url: u)`, `let s = Session.make()`, `let s = makeSession()`: what the function returns)
(parameter name: (simple_identifier) @var.name
  [(user_type . (type_identifier) @var.type)
   (optional_type wrapped: (user_type . (type_identifier) @var.type))
   (existential_type (user_type . (type_identifier) @var.type))
   (opaque_type (user_type . (type_identifier) @var.type))
   (optional_type wrapped: (tuple_type .
     (tuple_type_item element: (existential_type (user_type . (type_identifier) @var.type))) .))])
(statements (property_declaration
  name: (pattern bound_identifier: (simple_identifier) @var.name)
  (type_annotation [(user_type . (type_identifier) @var.type)
   (optional_type wrapped: (user_type . (type_identifier) @var.type))
   (existential_type (user_type . (type_identifier) @var.type))
   (opaque_type (user_type . (type_identifier) @var.type))
   (optional_type wrapped: (tuple_type .
     (tuple_type_item element: (existential_type (user_type . (type_identifier) @var.type))) .))])))
(statements (property_declaration
  name: (pattern bound_identifier: (simple_identifier) @var.name)
  !computed_value
  value: [(call_expression . [(simple_identifier)
                                (navigation_expression target: [(simple_identifier) (self_expression)])] @var.type)
          (try_expression expr: (call_expression . [(simple_identifier)
                                (navigation_expression target: [(simple_identifier) (self_expression)])] @var.type))
          (await_expression expr: (call_expression . [(simple_identifier)
                                (navigation_expression target: [(simple_identifier) (self_expression)])] @var.type))
          (try_expression expr: (await_expression expr: (call_expression . [(simple_identifier)
                                (navigation_expression target: [(simple_identifier) (self_expression)])] @var.type)))]))

; a computed property (`var description: String { ... }`, with `get`/`set` or not) is a function of its type: the
; getter runs its calls, which no other definition holds
(property_declaration
  name: (pattern bound_identifier: (simple_identifier) @function.name)
  computed_value: (computed_property)) @function
; `subscript(key: String) -> Value { ... }`: a function `subscript` that `x[key]` runs
(subscript_declaration "subscript" @function.name) @function
