; C. Capture names: see python.scm.
[(struct_specifier name: (type_identifier) @class.name body: (_))
 (union_specifier name: (type_identifier) @class.name body: (_))
 (enum_specifier name: (type_identifier) @class.name body: (_))] @class

; `MACRO_STATEMENT if (x) { ... }` is no function `if`: the grammar's reading of a macro it cannot expand
; (flex's `YY_RESTORE_YY_MORE_OFFSET`)
(function_definition
  declarator: [(function_declarator declarator: (identifier) @function.name)
               (pointer_declarator declarator: (function_declarator declarator: (identifier) @function.name))
               (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @function.name)))]
  (#not-match? @function.name "^(if|else|switch|case|while|do|for|return|sizeof|goto)$")) @function

; a prototype (`int twice(int x);`): a header that declares a function its includers call, wherever it is defined
(declaration
  declarator: [(function_declarator declarator: (identifier) @declares)
               (pointer_declarator declarator: (function_declarator declarator: (identifier) @declares))])

(preproc_include path: (_) @import.module) @import

(call_expression function: (identifier) @call.name)
(call_expression function: (field_expression argument: (_) @call.receiver field: (field_identifier) @call.name))
