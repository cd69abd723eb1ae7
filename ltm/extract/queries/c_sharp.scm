; C#. Capture names: see python.scm; @module.name is the declared namespace; @base is a base
; type that becomes EXTENDS or IMPLEMENTS by what it resolves to.
(namespace_declaration name: (_) @module.name)
(file_scoped_namespace_declaration name: (_) @module.name)

[(class_declaration name: (identifier) @class.name)
 (interface_declaration name: (identifier) @class.name)
 (struct_declaration name: (identifier) @class.name)
 (enum_declaration name: (identifier) @class.name)
 (record_declaration name: (identifier) @class.name)] @class
(base_list (_) @base)

[(method_declaration name: (identifier) @function.name)
 (constructor_declaration name: (identifier) @function.name)
 (local_function_statement name: (identifier) @function.name)] @function

(using_directive !name . [(identifier) (qualified_name)] @import.module) @import
(using_directive name: (identifier) @import.alias [(identifier) (qualified_name)] @import.module) @import

; `Parse(x)`, `reader.Read()`, and the generic `Deserialize<T>(s)`, `JsonConvert.DeserializeObject<T>(s)`
(invocation_expression function: [(identifier) @call.name (generic_name . (identifier) @call.name)])
(invocation_expression
  function: (member_access_expression expression: _ @call.receiver
                                      name: [(identifier) @call.name (generic_name . (identifier) @call.name)]))
(object_creation_expression type: (identifier) @call.new)
; a field, a property, a parameter or a local variable and its type (`Engine?` is an Engine or null): what `engine.Start()`,
; `this.engine.Start()` and `e.Start()` call (`var x = new Engine()` takes the constructed type)
(field_declaration (variable_declaration
  type: [(identifier) @attr.type (qualified_name) @attr.type
        (nullable_type type: [(identifier) (qualified_name)] @attr.type)]
  (variable_declarator name: (identifier) @attr.name)))
(property_declaration type: [(identifier) @attr.type (qualified_name) @attr.type
        (nullable_type type: [(identifier) (qualified_name)] @attr.type)] name: (identifier) @attr.name)
(parameter type: [(identifier) @var.type (qualified_name) @var.type
        (nullable_type type: [(identifier) (qualified_name)] @var.type)] name: (identifier) @var.name)
; a local of a statement, a `using (...)` or a `for (...)` (a field's declaration is in no function)
(variable_declaration
  type: [(identifier) @var.type (qualified_name) @var.type
        (nullable_type type: [(identifier) (qualified_name)] @var.type)]
  (variable_declarator name: (identifier) @var.name))
(variable_declaration
  type: (implicit_type)
  (variable_declarator name: (identifier) @var.name
                       (object_creation_expression type: [(identifier) (qualified_name)] @var.type)))
; `foreach (JToken t in ...)`, `if (o is JValue v)`, `TryGet(out JToken t)`
(foreach_statement type: [(identifier) (qualified_name)] @var.type left: (identifier) @var.name)
(declaration_pattern type: [(identifier) (qualified_name)] @var.type name: (identifier) @var.name)
(declaration_expression type: [(identifier) (qualified_name)] @var.type name: (identifier) @var.name)
