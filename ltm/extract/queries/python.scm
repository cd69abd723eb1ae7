; Python. Capture names are the contract with ltm/extract/parse.py:
;   @class @class.name @class.doc   @function @function.name @function.doc
;   @import @import.module @import.name @import.alias
;   @call.name (or @call.new: a constructor) @call.receiver: one call site   @extends @implements
(class_definition
  name: (identifier) @class.name
  body: (block . (expression_statement (string) @class.doc)?)) @class

(function_definition
  name: (identifier) @function.name
  body: (block . (expression_statement (string) @function.doc)?)) @function

(import_statement name: (dotted_name) @import.module) @import
(import_statement
  name: (aliased_import name: (dotted_name) @import.module alias: (identifier) @import.alias)) @import
(import_from_statement
  module_name: (_) @import.module
  name: (dotted_name) @import.name) @import
(import_from_statement
  module_name: (_) @import.module
  (wildcard_import) @import.name) @import
(import_from_statement
  module_name: (_) @import.module
  name: (aliased_import name: (dotted_name) @import.name alias: (identifier) @import.alias)) @import

(call function: (identifier) @call.name)
(call function: (attribute object: (_) @call.receiver attribute: (identifier) @call.name))

(class_definition superclasses: (argument_list [(identifier) (attribute)] @extends))
(class_definition superclasses: (argument_list (subscript value: [(identifier) (attribute)] @extends)))
