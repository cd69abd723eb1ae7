; Ruby. Capture names: see python.scm. A `module` is class-like (its methods are methods, it is a mixin and
; a receiver: `Sinatra.register`); `include`/`extend`/`prepend M` in a class or module body puts M among
; its ancestors, as a superclass is (EXTENDS: Ruby's `Base < Helpers` is true).
(class name: [(constant) (scope_resolution)] @class.name) @class
(module name: [(constant) (scope_resolution)] @class.name) @class
(class superclass: (superclass [(constant) (scope_resolution)] @extends))
([(class body: (body_statement
     (call method: (identifier) @_mixin arguments: (argument_list [(constant) (scope_resolution)] @extends))))
  (module body: (body_statement
     (call method: (identifier) @_mixin arguments: (argument_list [(constant) (scope_resolution)] @extends))))]
 (#match? @_mixin "^(include|extend|prepend)$"))

(method name: (_) @function.name) @function
; `define_method(name) { ... }` in a class method (or `class << self`) defines an instance method: its self is an instance
(call method: (identifier) @_define arguments: (argument_list) block: [(block) (do_block)] @instance
  (#eq? @_define "define_method"))
(singleton_method name: (_) @function.name) @function
; `attr_reader :request, :params` defines a reader method per name (`attr_accessor` a writer `request=` too)
(call
  method: (identifier) @_attr
  arguments: (argument_list (simple_symbol) @function.name @function)
  (#match? @_attr "^attr_(reader|accessor)$"))
; `alias has_key? key?`, `alias_method :call_without_check, :call`: a method of the new name that runs the old one
(alias name: (_) @function.name) @function
(alias alias: (identifier) @call.read)
(call
  method: (identifier) @_alias
  arguments: (argument_list . (simple_symbol) @function.name @function)
  (#eq? @_alias "alias_method"))

(call
  method: (identifier) @import.kind
  arguments: (argument_list . (string (string_content) @import.module))
  (#match? @import.kind "^require(_relative)?$")) @import

(call receiver: (_)? @call.receiver method: (identifier) @call.name)
; `super`, `super(a)`, `super.merge(x)`: a call of the caller's own method as an ancestor defines it
(super) @call.name
; `response.status = 404`, `self.body += x`: the call above is of the writer `status=`
[(assignment left: (call method: (identifier) @call.setter))
 (operator_assignment left: (call method: (identifier) @call.setter))]

; a bare name read as a value is a call of a method of self (`settings`, `request.path_info`, `halt`), unless a
; method or block around it binds the name as a local variable (a parameter, an assignment: @local below)
[(argument_list (identifier) @call.read)
 (call receiver: (identifier) @call.read)
 (element_reference object: (identifier) @call.read)
 (binary [left: (identifier) @call.read right: (identifier) @call.read])
 (interpolation (identifier) @call.read)
 (pair value: (identifier) @call.read)
 (assignment right: (identifier) @call.read)
 (operator_assignment right: (identifier) @call.read)
 (right_assignment_list (identifier) @call.read)
 (array (identifier) @call.read)
 (body_statement (identifier) @call.read)
 (block_body (identifier) @call.read)
 (begin_block (identifier) @call.read)
 (then (identifier) @call.read)
 (else (identifier) @call.read)
 (parenthesized_statements (identifier) @call.read)
 (splat_argument (identifier) @call.read)
 (hash_splat_argument (identifier) @call.read)
 (block_argument (identifier) @call.read)
 (unary operand: (identifier) @call.read)
 (conditional [condition: (identifier) @call.read consequence: (identifier) @call.read
               alternative: (identifier) @call.read])
 (if condition: (identifier) @call.read)
 (unless condition: (identifier) @call.read)
 (elsif condition: (identifier) @call.read)
 (if_modifier [condition: (identifier) @call.read body: (identifier) @call.read])
 (unless_modifier [condition: (identifier) @call.read body: (identifier) @call.read])
 (while_modifier condition: (identifier) @call.read)
 (until_modifier condition: (identifier) @call.read)
 (case value: (identifier) @call.read)
 (return (argument_list (identifier) @call.read))
 (range [begin: (identifier) @call.read end: (identifier) @call.read])]

; names a method or block binds itself: a bare read of one is the variable, not a method of the name
(method_parameters [(identifier) @local
                    (optional_parameter name: (identifier) @local)
                    (keyword_parameter name: (identifier) @local)
                    (splat_parameter name: (identifier) @local)
                    (hash_splat_parameter name: (identifier) @local)
                    (block_parameter name: (identifier) @local)
                    (destructured_parameter (identifier) @local)])
(block_parameters [(identifier) @local
                   (optional_parameter name: (identifier) @local)
                   (keyword_parameter name: (identifier) @local)
                   (splat_parameter name: (identifier) @local)
                   (hash_splat_parameter name: (identifier) @local)
                   (block_parameter name: (identifier) @local)
                   (destructured_parameter (identifier) @local)])
(lambda_parameters (identifier) @local)
(assignment left: (identifier) @local)
(operator_assignment left: (identifier) @local)
(left_assignment_list [(identifier) @local (rest_assignment (identifier) @local)
                       (destructured_left_assignment (identifier) @local)])
(exception_variable (identifier) @local)
(for pattern: (identifier) @local)

; `hash = Sinatra::IndifferentHash.new(...)`: the local holds an object of that class (`hash.merge` is its method)
(assignment
  left: (identifier) @var.name
  right: (call receiver: [(constant) (scope_resolution)] @var.type method: (identifier) @_new)
  (#eq? @_new "new"))
