; Java. Capture names: see python.scm; @module.name is the declared package.
(package_declaration [(scoped_identifier) (identifier)] @module.name)

[(class_declaration name: (identifier) @class.name)
 (interface_declaration name: (identifier) @class.name)
 (enum_declaration name: (identifier) @class.name)
 (record_declaration name: (identifier) @class.name)
 (annotation_type_declaration name: (identifier) @class.name)] @class
(superclass (_) @extends)
(super_interfaces (type_list (_) @implements))
(extends_interfaces (type_list (_) @extends))

[(method_declaration name: (identifier) @function.name)
 (constructor_declaration name: (identifier) @function.name)] @function

; `import static a.b.C.m;` names member m of class C (@import.kind); `import a.b.*;` every name of a.b (@import.name)
(import_declaration "static"? @import.kind [(scoped_identifier) (identifier)] @import.module (asterisk)? @import.name) @import

(method_invocation object: (_)? @call.receiver name: (identifier) @call.name)
; `this(...)` and `super(...)` in a constructor: another constructor of the class, or the base class's
(explicit_constructor_invocation constructor: [(this) (super)] @call.name)
(object_creation_expression type: [(type_identifier) @call.new (generic_type . (type_identifier) @call.new)])
; a field, a parameter or a local variable and its type: what `engine.start()`, `this.engine.start()` and
; `e.start()` call (`var x = new Engine()` takes the constructed type). A generic type is written with its
; arguments (`TypeAdapter<T> delegate`): the resolver reads the class name before `<`
(field_declaration
  type: [(type_identifier) (scoped_type_identifier) (generic_type)] @attr.type
  declarator: (variable_declarator name: (identifier) @attr.name))
(formal_parameter type: [(type_identifier) (scoped_type_identifier) (generic_type)] @var.type name: (identifier) @var.name)
(enhanced_for_statement type: [(type_identifier) (scoped_type_identifier) (generic_type)] @var.type name: (identifier) @var.name)
(local_variable_declaration
  type: [(type_identifier) (scoped_type_identifier) (generic_type)] @var.type
  declarator: (variable_declarator name: (identifier) @var.name)
  (#not-eq? @var.type "var"))
(local_variable_declaration
  type: (type_identifier) @_var
  declarator: (variable_declarator name: (identifier) @var.name
                                   value: (object_creation_expression type: [(type_identifier) (generic_type)] @var.type))
  (#eq? @_var "var"))
