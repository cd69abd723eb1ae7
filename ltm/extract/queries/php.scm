; PHP. Capture names: see python.scm; @module.name is the declared namespace. Names and receivers are read
; as the resolver writes them (`LanguageSpec.written`: `$this->a` is `this.a`, `Foo::` is `Foo`, `\A\B` is
; `A.B`); a variable is captured without its `$`. A trait a class uses is @extends: its methods are the
; class's own, found through it as through a base class.
(namespace_definition name: (namespace_name) @module.name)

[(class_declaration name: (name) @class.name)
 (interface_declaration name: (name) @class.name)
 (trait_declaration name: (name) @class.name)
 (enum_declaration name: (name) @class.name)] @class
(base_clause [(name) (qualified_name)] @extends)
(class_interface_clause [(name) (qualified_name)] @implements)
(declaration_list (use_declaration [(name) (qualified_name)] @extends))

[(method_declaration name: (name) @function.name)
 (function_definition name: (name) @function.name)] @function
; `$handler = function (...) {...}`, `$f = fn($x) => ...`: a function named as its variable
(assignment_expression
  left: (variable_name (name) @function.name)
  right: [(anonymous_function) (arrow_function)]) @function

; `use A\B\C;`, `use A\B\C as D;`, `use function A\f;` (@import.kind), and each name of `use A\{B, C as D};`
(namespace_use_declaration
  (namespace_use_clause . [(qualified_name) (name)] @import.module alias: (name)? @import.alias)) @import
(namespace_use_declaration
  (namespace_use_clause "function" @import.kind [(qualified_name) (name)] @import.module alias: (name)? @import.alias)) @import
(namespace_use_declaration
  "function"? @import.kind
  (namespace_name) @import.module
  body: (namespace_use_group (namespace_use_clause . [(name) (qualified_name)] @import.name alias: (name)? @import.alias))) @import
; `require __DIR__ . '/x.php';`, `include 'x.php';`: a literal path (@import.kind says which)
(require_expression [(string (string_content) @import.module)
  (binary_expression left: (name) @_dir right: (string (string_content) @import.module) (#eq? @_dir "__DIR__"))]) @import @import.kind
(require_once_expression [(string (string_content) @import.module)
  (binary_expression left: (name) @_dir right: (string (string_content) @import.module) (#eq? @_dir "__DIR__"))]) @import @import.kind
(include_expression [(string (string_content) @import.module)
  (binary_expression left: (name) @_dir right: (string (string_content) @import.module) (#eq? @_dir "__DIR__"))]) @import @import.kind
(include_once_expression [(string (string_content) @import.module)
  (binary_expression left: (name) @_dir right: (string (string_content) @import.module) (#eq? @_dir "__DIR__"))]) @import @import.kind

; `strlen($s)`, `\strlen($s)`, `Foo\bar()`: a function by its name
(function_call_expression function: [(name) @call.name (qualified_name (name) @call.name)])
; `$this->m()`, `$x?->m()`, `self::m()`, `parent::m()`, `Foo::m()`
(member_call_expression object: (_) @call.receiver name: (name) @call.name)
(nullsafe_member_call_expression object: (_) @call.receiver name: (name) @call.name)
(scoped_call_expression scope: (_) @call.receiver name: (name) @call.name)
(object_creation_expression [(name) (qualified_name)] @call.new)

; a property and its declared type (`private ?Router $router;`), a promoted constructor parameter (`private
; Router $router`): what `$this->router->m()` calls
(property_declaration
  type: [(named_type) @attr.type (optional_type (named_type) @attr.type)]
  (property_element name: (variable_name (name) @attr.name)))
(property_promotion_parameter
  type: [(named_type) @attr.type (optional_type (named_type) @attr.type)]
  name: (variable_name (name) @attr.name))
; `$this->router = new Router()`, `$this->router = $router` (the parameter's declared type)
(assignment_expression
  left: (member_access_expression object: (variable_name (name) @attr.object) name: (name) @attr.name)
  right: (object_creation_expression [(name) (qualified_name)] @attr.type))
(assignment_expression
  left: (member_access_expression object: (variable_name (name) @attr.object) name: (name) @attr.name)
  right: (variable_name (name) @attr.type @attr.variable))

; a parameter and its declared type, `$x = new Foo()`, `catch (FooException $e)`: what `$x->m()` calls
(simple_parameter
  type: [(named_type) @var.type (optional_type (named_type) @var.type)]
  name: (variable_name (name) @var.name))
(property_promotion_parameter
  type: [(named_type) @var.type (optional_type (named_type) @var.type)]
  name: (variable_name (name) @var.name))
(assignment_expression
  left: (variable_name (name) @var.name)
  right: (object_creation_expression [(name) (qualified_name)] @var.type))
(catch_clause type: (type_list . (named_type) @var.type .) name: (variable_name (name) @var.name))
; `$x = $this->make()`, `$x = $y->get()`, `$x = Foo::create()`: what the method declares it returns (`: Foo`)
(assignment_expression
  left: (variable_name (name) @var.name)
  right: [(member_call_expression object: (_) @var.type name: (name) @var.member)
          (nullsafe_member_call_expression object: (_) @var.type name: (name) @var.member)
          (scoped_call_expression scope: (_) @var.type name: (name) @var.member)])
; `Foo|null` (or `null|Foo`) is a Foo where it is not null, as `?Foo` is
(property_declaration
  type: [(union_type . (named_type) @attr.type . (primitive_type) @_null .)
         (union_type . (primitive_type) @_null . (named_type) @attr.type .)]
  (property_element name: (variable_name (name) @attr.name))
  (#eq? @_null "null"))
(property_promotion_parameter
  type: [(union_type . (named_type) @attr.type . (primitive_type) @_null .)
         (union_type . (primitive_type) @_null . (named_type) @attr.type .)]
  name: (variable_name (name) @attr.name)
  (#eq? @_null "null"))
([(simple_parameter
   type: [(union_type . (named_type) @var.type . (primitive_type) @_null .)
          (union_type . (primitive_type) @_null . (named_type) @var.type .)]
   name: (variable_name (name) @var.name))
  (property_promotion_parameter
   type: [(union_type . (named_type) @var.type . (primitive_type) @_null .)
          (union_type . (primitive_type) @_null . (named_type) @var.type .)]
   name: (variable_name (name) @var.name))]
  (#eq? @_null "null"))
