; C++. Capture names: see python.scm. A definition named `A::f` outside its class is the method
; f of A; a class defined as `class A::B {` is A's nested class B.
[(class_specifier name: [(type_identifier) (qualified_identifier)] @class.name body: (_))
 (struct_specifier name: [(type_identifier) (qualified_identifier)] @class.name body: (_))
 (union_specifier name: (type_identifier) @class.name body: (_))
 (enum_specifier name: (type_identifier) @class.name body: (_))] @class
(base_class_clause [(type_identifier) (qualified_identifier) (template_type)] @extends)

(function_definition
  declarator: [(function_declarator declarator: (_) @function.name)
               (pointer_declarator declarator: (function_declarator declarator: (_) @function.name))
               (reference_declarator (function_declarator declarator: (_) @function.name))]) @function

(preproc_include path: (_) @import.module) @import

(call_expression function: (identifier) @call.name)
(call_expression function: (field_expression argument: (_) @call.receiver field: (field_identifier) @call.name))
(call_expression function: (qualified_identifier scope: (_) @call.receiver name: (identifier) @call.name))
