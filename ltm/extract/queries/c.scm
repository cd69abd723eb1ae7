; C. Capture names: see python.scm.
[(struct_specifier name: (type_identifier) @class.name body: (_))
 (union_specifier name: (type_identifier) @class.name body: (_))
 (enum_specifier name: (type_identifier) @class.name body: (_))] @class

(function_definition
  declarator: [(function_declarator declarator: (identifier) @function.name)
               (pointer_declarator declarator: (function_declarator declarator: (identifier) @function.name))
               (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @function.name)))]) @function

(preproc_include path: (_) @import.module) @import

(call_expression function: (identifier) @call.name)
(call_expression function: (field_expression argument: (_) @call.receiver field: (field_identifier) @call.name))
