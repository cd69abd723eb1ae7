; C++. Capture names: see python.scm. A definition named `A::f` outside its class is the method
; f of A; a class defined as `class A::B {` is A's nested class B.
[(class_specifier name: [(type_identifier) (qualified_identifier)] @class.name body: (_))
 (struct_specifier name: [(type_identifier) (qualified_identifier)] @class.name body: (_))
 (union_specifier name: (type_identifier) @class.name body: (_))
 (enum_specifier name: (type_identifier) @class.name body: (_))] @class
(base_class_clause [(type_identifier) (qualified_identifier) (template_type)] @extends)

; a function with a body, or defaulted (`~Snapshot() = default;`); a deleted one (`DBImpl(const DBImpl&) = delete;`)
; is no function
[(function_definition
  declarator: [(function_declarator declarator: (_) @function.name)
               (pointer_declarator declarator: (function_declarator declarator: (_) @function.name))
               (reference_declarator (function_declarator declarator: (_) @function.name))]
  body: (_))
 (function_definition
  declarator: [(function_declarator declarator: (_) @function.name)
               (pointer_declarator declarator: (function_declarator declarator: (_) @function.name))
               (reference_declarator (function_declarator declarator: (_) @function.name))]
  (default_method_clause))] @function

; a pure virtual method (`virtual Status NewWritableFile(...) = 0;`): a stub, which a call through the
; interface reaches, and whose overrides it may run
(field_declaration
  declarator: [(function_declarator declarator: (_) @function.name)
               (pointer_declarator declarator: (function_declarator declarator: (_) @function.name))
               (reference_declarator (function_declarator declarator: (_) @function.name))]
  default_value: (number_literal) @_pure
  (#eq? @_pure "0")) @function

(preproc_include path: (_) @import.module) @import

(call_expression function: (identifier) @call.name)
(new_expression type: [(type_identifier) @call.new
                       (qualified_identifier name: (type_identifier) @call.new)
                       (template_type name: (type_identifier) @call.new)])
(call_expression function: (field_expression argument: (_) @call.receiver field: (field_identifier) @call.name))
(call_expression function: (qualified_identifier scope: (_) @call.receiver name: (identifier) @call.name))

; a field, a parameter or a local variable and its declared type (`VersionSet* const versions_;`,
; `const Options& o`, `MemTable mt;`, `auto* v = new Version(...)`): what `versions_->LogAndApply()`,
; `o.size()` and `mt.Add()` call
(field_declaration
  type: [(type_identifier) (qualified_identifier) (template_type)] @attr.type
  declarator: [(field_identifier) @attr.name
               (pointer_declarator declarator: (field_identifier) @attr.name)
               (reference_declarator (field_identifier) @attr.name)])
(parameter_declaration
  type: [(type_identifier) (qualified_identifier) (template_type)] @var.type
  declarator: [(identifier) @var.name
               (pointer_declarator declarator: (identifier) @var.name)
               (reference_declarator (identifier) @var.name)])
(declaration
  type: [(type_identifier) (qualified_identifier) (template_type)] @var.type
  declarator: [(identifier) @var.name
               (pointer_declarator declarator: (identifier) @var.name)
               (reference_declarator (identifier) @var.name)
               (init_declarator declarator: [(identifier) @var.name
                                             (pointer_declarator declarator: (identifier) @var.name)
                                             (reference_declarator (identifier) @var.name)])])
(declaration
  type: (placeholder_type_specifier)
  declarator: (init_declarator
    declarator: [(identifier) @var.name (pointer_declarator declarator: (identifier) @var.name)]
    value: (new_expression type: [(type_identifier) (qualified_identifier) (template_type)] @var.type)))
