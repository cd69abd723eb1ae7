; JavaScript (also the base of typescript.scm). Capture names: see python.scm.
(class_declaration name: (identifier) @class.name) @class
(class_declaration (class_heritage [(identifier) (member_expression)] @extends))

(function_declaration name: (identifier) @function.name) @function
(generator_function_declaration name: (identifier) @function.name) @function
(method_definition name: [(property_identifier) (private_property_identifier)] @function.name) @function
; a class field that holds a function is a method: `handle = (req) => ...`, `#cache = function () {}`
(field_definition
  property: [(property_identifier) (private_property_identifier)] @function.name
  value: [(arrow_function) (function_expression)]) @function
(variable_declarator
  name: (identifier) @function.name
  value: [(arrow_function) (function_expression)]) @function
; `proto.handle = function handle() {}` and `exports.f = () => {}`: a method of that object
(assignment_expression
  left: (member_expression object: (_) @function.owner property: (property_identifier) @function.name)
  right: [(arrow_function) (function_expression)]) @function
;; an object literal's functions, `{ get(url) {}, post: function () {}, put: (x) => x }`: bound to a name
;; (`const api = {...}`, `api = {...}`, `module.exports = {...}`) they are that object's methods (`api.get`), as
;; `api.get = function` makes one; `export default {...}` (a Vue component) gives the module's own functions
(variable_declarator
  name: (identifier) @function.owner
  value: (object [(method_definition name: (property_identifier) @function.name)
                  (pair key: (property_identifier) @function.name
                        value: [(arrow_function) (function_expression)])] @function))
(assignment_expression
  left: [(identifier) (member_expression)] @function.owner
  right: (object [(method_definition name: (property_identifier) @function.name)
                  (pair key: (property_identifier) @function.name
                        value: [(arrow_function) (function_expression)])] @function))
(export_statement
  value: (object (pair key: (property_identifier) @function.name
                       value: [(arrow_function) (function_expression)]) @function))
(export_statement
  value: (object (pair value: (object (pair key: (property_identifier) @function.name
                                            value: [(arrow_function) (function_expression)]) @function))))
;; its functions, nested ones too (Vue's `methods: { load() {} }`), share `this`: `this.load()` calls the object's `load`
(export_statement value: (object) @object)
; `defineGetter(req, 'protocol', function () {})`: a function given a name on an object by a helper
; that says so (define..., ...getter, ...property, lazy...); the same owner and name as
; `req.protocol = function`. Not `fs.readFile(path, 'utf8', function () {})`: a callback.
(call_expression
  function: [(identifier) (member_expression property: (property_identifier))] @_definer
  arguments: (arguments
    . [(identifier) (member_expression)] @function.owner
    . (string (string_fragment) @function.name)
    . [(arrow_function) (function_expression)] @function .)
  (#match? @_definer "(?i)(define|getter|setter|property|lazy)[A-Za-z_$]*$"))

(import_statement source: (string (string_fragment) @import.module)) @import
(import_statement
  (import_clause (named_imports (import_specifier name: (_) @import.name alias: (_)? @import.alias)))
  source: (string (string_fragment) @import.module)) @import
(import_statement
  (import_clause [(identifier) @import.alias (namespace_import (identifier) @import.alias)])
  source: (string (string_fragment) @import.module)) @import
;; re-exports: `export * from './x'` (every name of x), `export { a as b } from './x'`, `export * as ns from`
(export_statement source: (string (string_fragment) @import.module)) @import
(export_statement
  (export_clause (export_specifier name: (_) @import.name alias: (_)? @import.alias))
  source: (string (string_fragment) @import.module)) @import
(export_statement
  (namespace_export (_) @import.alias)
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
  function: (member_expression object: (_) @call.receiver
                               property: [(property_identifier) (private_property_identifier)] @call.name))
; a function handed to another to run: `app.use(logger)`, `list.map(format)`, `emitter.on('x', this.onX)`
(call_expression arguments: (arguments (identifier) @ref.name))
(call_expression
  arguments: (arguments (member_expression object: [(identifier) (this)] @ref.receiver
                                           property: [(property_identifier) (private_property_identifier)] @ref.name)))
; names a function binds itself: a reference to one of them is a variable
(variable_declarator name: (identifier) @local)
(formal_parameters (identifier) @local)
(formal_parameters (assignment_pattern left: (identifier) @local))
(assignment_expression left: (identifier) @local)
;; `resolve => ...`, `const { open } = Deno`, `([a, b]) => ...`, `({ c = 1 }) => ...`
(arrow_function parameter: (identifier) @local)
(object_pattern [(shorthand_property_identifier_pattern) @local (pair_pattern value: (identifier) @local)
                 (object_assignment_pattern left: (shorthand_property_identifier_pattern) @local)])
(array_pattern (identifier) @local)
(new_expression constructor: (identifier) @call.new)
; `const r = new Router()`, `const app = express()`: what `r.handle()` calls (`app` is another package's)
(variable_declarator
  name: (identifier) @var.name
  value: [(new_expression constructor: [(identifier) (member_expression)] @var.type)
          (call_expression function: [(identifier) (member_expression)] @var.type)])
; `this.router = new Router()`: what `this.router.handle()` calls
(assignment_expression
  left: (member_expression object: (this) @attr.object property: (property_identifier) @attr.name)
  right: (new_expression constructor: [(identifier) (member_expression)] @attr.type))
