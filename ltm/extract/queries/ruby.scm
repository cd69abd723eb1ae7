; Ruby. Capture names: see python.scm. A `module` is class-like (its methods are methods, it is a mixin and
; a receiver: `Sinatra.register`); `include`/`extend`/`prepend M` in a class or module body puts M among
; its ancestors, as a superclass is (EXTENDS: Ruby's `Base < Helpers` is true).
(class name: [(constant) (scope_resolution)] @class.name) @class
(module name: [(constant) (scope_resolution)] @class.name) @class
(class superclass: (superclass [(constant) (scope_resolution)] @extends))
([(class body: (body_statement (call method: (identifier) @_mixin arguments: (argument_list [(constant) (scope_resolution)] @extends))))
  (module body: (body_statement (call method: (identifier) @_mixin arguments: (argument_list [(constant) (scope_resolution)] @extends))))]
 (#match? @_mixin "^(include|extend|prepend)$"))

(method name: (_) @function.name) @function
(singleton_method name: (_) @function.name) @function

(call
  method: (identifier) @import.kind
  arguments: (argument_list . (string (string_content) @import.module))
  (#match? @import.kind "^require(_relative)?$")) @import

(call receiver: (_)? @call.receiver method: (identifier) @call.name)
