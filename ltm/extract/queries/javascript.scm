; JavaScript (also the base of typescript.scm). Capture names: see python.scm.
(class_declaration name: (identifier) @class.name) @class
(class_declaration (class_heritage [(identifier) (member_expression)] @extends))

(function_declaration name: (identifier) @function.name) @function
(generator_function_declaration name: (identifier) @function.name) @function
(method_definition name: (property_identifier) @function.name) @function
(variable_declarator
  name: (identifier) @function.name
  value: [(arrow_function) (function_expression)]) @function
; `proto.handle = function handle() {}` and `exports.f = () => {}`: a method of that object
(assignment_expression
  left: (member_expression object: (_) @function.owner property: (property_identifier) @function.name)
  right: [(arrow_function) (function_expression)]) @function

(import_statement source: (string (string_fragment) @import.module)) @import
(import_statement
  (import_clause (named_imports (import_specifier name: (_) @import.name alias: (_)? @import.alias)))
  source: (string (string_fragment) @import.module)) @import
(import_statement
  (import_clause [(identifier) @import.alias (namespace_import (identifier) @import.alias)])
  source: (string (string_fragment) @import.module)) @import
(variable_declarator
  name: (identifier) @import.alias
  value: (call_expression
    function: (identifier) @_require
    arguments: (arguments . (string (string_fragment) @import.module)))
  (#eq? @_require "require")) @import
;; `var compileTrust = require('./utils').compileTrust`: a name imported from the module
(variable_declarator
  name: (identifier) @import.alias
  value: (member_expression
    object: (call_expression
      function: (identifier) @_require
      arguments: (arguments . (string (string_fragment) @import.module)))
    property: (property_identifier) @import.name)
  (#eq? @_require "require")) @import
;; any other require: `require('./utils').compileTrust`, `module.exports = require('./lib/x')`,
;; destructuring, `require('debug')('app')` (the declarator form above adds the alias)
(call_expression
  function: (identifier) @_require
  arguments: (arguments . (string (string_fragment) @import.module))
  (#eq? @_require "require")) @import

(call_expression function: (identifier) @call.name)
(call_expression
  function: (member_expression object: (_) @call.receiver property: (property_identifier) @call.name))
(new_expression constructor: (identifier) @call.new)
