; Ruby. Capture names: see python.scm; a Ruby `module` is a @scope (it qualifies the names in it).
(class name: [(constant) (scope_resolution)] @class.name) @class
(class superclass: (superclass [(constant) (scope_resolution)] @extends))
(module name: [(constant) (scope_resolution)] @scope.name) @scope

(method name: (_) @function.name) @function
(singleton_method name: (_) @function.name) @function

(call
  method: (identifier) @import.kind
  arguments: (argument_list . (string (string_content) @import.module))
  (#match? @import.kind "^require(_relative)?$")) @import

(call receiver: (_)? @call.receiver method: (identifier) @call.name)
