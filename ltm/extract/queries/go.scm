; Go. Capture names: see python.scm; @module.name is the declared package, @function.owner a
; method's receiver type.
(package_clause (package_identifier) @module.name)

; every named type, not only structs and interfaces: `type byName []*Command` and `type Mode int` have methods too
(type_spec name: (type_identifier) @class.name) @class
(struct_type (field_declaration_list (field_declaration !name type: [(type_identifier) (qualified_type)] @extends)))
; an interface embeds interfaces (`interface { io.Reader; Base }`) and requires methods: a type whose methods
; include them all implements it, without saying so (`@requires`)
(interface_type (type_elem . [(type_identifier) (qualified_type)] @extends .))
(interface_type (method_elem name: (field_identifier) @requires))
; a named field and its type: what `c.engine.handle()` calls (a slice's: what `range c.commands` yields)
(struct_type (field_declaration_list (field_declaration
  name: (field_identifier) @attr.name
  type: [(type_identifier) (qualified_type) (pointer_type [(type_identifier) (qualified_type)])
         (slice_type element: [(type_identifier) (qualified_type) (pointer_type [(type_identifier) (qualified_type)])])] @attr.type)))

; a parameter or variable and its type: `func h(c *Context)`, `var e Engine`, `e := &Engine{}`: what `c.Next()` calls
(parameter_declaration
  name: (identifier) @var.name
  type: [(type_identifier) (qualified_type) (pointer_type [(type_identifier) (qualified_type)])
         (slice_type element: [(type_identifier) (qualified_type) (pointer_type [(type_identifier) (qualified_type)])])] @var.type)
(var_spec
  name: (identifier) @var.name
  type: [(type_identifier) (qualified_type) (pointer_type [(type_identifier) (qualified_type)])
         (slice_type element: [(type_identifier) (qualified_type) (pointer_type [(type_identifier) (qualified_type)])])] @var.type)
(short_var_declaration
  left: (expression_list . (identifier) @var.name .)
  right: (expression_list . [(composite_literal type: [(type_identifier) (qualified_type)] @var.type)
                             (unary_expression operand: (composite_literal type: [(type_identifier) (qualified_type)] @var.type))] .))
(var_spec
  name: (identifier) @var.name .
  value: (expression_list . [(composite_literal type: [(type_identifier) (qualified_type)] @var.type)
                             (unary_expression operand: (composite_literal type: [(type_identifier) (qualified_type)] @var.type))] .))
; `f, err := os.Create(p)`, `flags := c.Flags()`, `var x = pkg.New()`: what the call returns (its declared result), and
; `buf := new(bytes.Buffer)`: the type `new` is given
(short_var_declaration
  left: (expression_list . (identifier) @var.name)
  right: (expression_list . (call_expression function: [(identifier) (selector_expression)] @var.type))
  (#not-eq? @var.type "new"))
(var_spec
  name: (identifier) @var.name
  value: (expression_list . (call_expression function: [(identifier) (selector_expression)] @var.type))
  (#not-eq? @var.type "new"))
; `c := in.(*Command)`: the type asserted
(short_var_declaration
  left: (expression_list . (identifier) @var.name)
  right: (expression_list . (type_assertion_expression
                               type: [(type_identifier) (qualified_type) (pointer_type [(type_identifier) (qualified_type)])] @var.type)))
(short_var_declaration
  left: (expression_list . (identifier) @var.name)
  right: (expression_list . (call_expression function: (identifier) @_new
                                             arguments: (argument_list . [(type_identifier) (qualified_type)] @var.type .)))
  (#eq? @_new "new"))

(function_declaration name: (identifier) @function.name) @function
(method_declaration
  receiver: (parameter_list (parameter_declaration
    name: (identifier)? @function.self
    type: [(type_identifier) @function.owner
           (pointer_type (type_identifier) @function.owner)
           (generic_type type: (type_identifier) @function.owner)
           (pointer_type (generic_type type: (type_identifier) @function.owner))]))
  name: (field_identifier) @function.name) @function

(import_spec name: (_)? @import.alias path: (_) @import.module) @import

(call_expression function: (identifier) @call.name)
(call_expression
  function: (selector_expression operand: (_) @call.receiver field: (field_identifier) @call.name))
; `for _, cmd := range c.commands`: an element of what is ranged over (a slice of a declared type)
(range_clause
  left: (expression_list . (_) . (identifier) @var.name .)
  right: [(identifier) (selector_expression) (call_expression)] @var.each)
