; Rust. Capture names: see python.scm; @impl/@impl.type is an impl block (its methods become
; Type.method); an @implements inside it is the trait the type implements.
[(struct_item name: (type_identifier) @class.name)
 (enum_item name: (type_identifier) @class.name)
 (union_item name: (type_identifier) @class.name)
 (trait_item name: (type_identifier) @class.name)] @class
(trait_item bounds: (trait_bounds [(type_identifier) (scoped_type_identifier) (generic_type)] @extends))

; an inline module (`mod tests { ... }`) qualifies the names in it; `use super::*` there reads the file's module
(mod_item name: (identifier) @scope.name body: (declaration_list)) @scope

(impl_item type: [(type_identifier) @impl.type (generic_type type: (type_identifier) @impl.type)]) @impl
(impl_item trait: (_) @implements)

(function_item name: (identifier) @function.name) @function
; a `macro_rules!` macro, which only `name!(...)` calls (`@call.macro`); the standard library's `println!` is built in
(macro_definition name: (identifier) @function.name) @function @function.macro
; a trait's required method (`fn area(&self) -> f64;`): a stub whose implementations calls through the trait reach
(trait_item body: (declaration_list (function_signature_item name: (identifier) @function.name) @function))

(use_declaration argument: (_) @import.module) @import
; `mod walk;` brings the file `walk.rs` (or `walk/mod.rs`) in: an import of that module
(mod_item "mod" @import.kind name: (identifier) @import.module !body) @import

(call_expression function: (identifier) @call.name)
(macro_invocation macro: (identifier) @call.name @call.macro)
; `regex::escape(s)`: @call.path says the receiver is a path, not a value (`builder.escape(s)`)
(call_expression function: (scoped_identifier path: (_) @call.receiver name: (identifier) @call.name) @call.path)
(call_expression function: (field_expression value: (_) @call.receiver field: (field_identifier) @call.name))
; a call inside a macro's arguments (`assert_eq!(search(x), y)`, `format!("{}", p.render())`, three token trees
; deep): the grammar keeps them as tokens, so a name right before a parenthesized token tree is called (not one
; after `.` or `::` that the other patterns here read, nor `x * (y)`: @call.args follows the name directly); an
; attribute's `cfg(not(unix))` and a `macro_rules!` body are no calls
(macro_invocation (token_tree _ @_prev . (identifier) @call.name . (token_tree . "(") @call.args) (#not-match? @_prev "^(\\.|::)$"))
(macro_invocation (token_tree (token_tree _ @_prev . (identifier) @call.name . (token_tree . "(") @call.args)) (#not-match? @_prev "^(\\.|::)$"))
(macro_invocation (token_tree (token_tree (token_tree _ @_prev . (identifier) @call.name . (token_tree . "(") @call.args))) (#not-match? @_prev "^(\\.|::)$"))
(macro_invocation (token_tree _ @_prev . [(identifier) (self)] @call.receiver . ["." "::"] . (identifier) @call.name . (token_tree . "(") @call.args) (#not-match? @_prev "^(\\.|::)$"))
(macro_invocation (token_tree (token_tree _ @_prev . [(identifier) (self)] @call.receiver . ["." "::"] . (identifier) @call.name . (token_tree . "(") @call.args)) (#not-match? @_prev "^(\\.|::)$"))
(macro_invocation (token_tree (token_tree (token_tree _ @_prev . [(identifier) (self)] @call.receiver . ["." "::"] . (identifier) @call.name . (token_tree . "(") @call.args))) (#not-match? @_prev "^(\\.|::)$"))
; a struct's fields, a parameter's or a local's type, generic or not (`Check<u32>`: Check's): what `self.engine.start()`
; and `e.start()` call
; (`let x = Engine::new()` takes the type whose constructor it is)
(field_declaration
  name: (field_identifier) @attr.name
  type: [(type_identifier) (scoped_type_identifier) (generic_type type: (type_identifier))] @attr.type)
(parameter
  pattern: (identifier) @var.name
  type: [(type_identifier) @var.type
         (scoped_type_identifier) @var.type
         (generic_type type: (type_identifier)) @var.type
         (reference_type type: [(type_identifier) (scoped_type_identifier) (generic_type type: (type_identifier))] @var.type)
         ; `s: &dyn Shape`, `s: impl Shape`: the trait's methods
         (reference_type type: (dynamic_type trait: (type_identifier) @var.type))
         (abstract_type trait: (type_identifier) @var.type)])
(let_declaration
  pattern: (identifier) @var.name
  type: [(type_identifier) @var.type (generic_type type: (type_identifier)) @var.type
         (reference_type type: [(type_identifier) (generic_type type: (type_identifier))] @var.type)])
(let_declaration
  pattern: (identifier) @var.name
  !type
  value: (call_expression function: (scoped_identifier path: (identifier) @var.type name: (identifier) @_ctor))
  (#match? @_ctor "^(new|default)$"))
; `let cfg = Config::from_env(...)?`, `let cfg = construct_config(...)`: what the function declares it returns
(let_declaration
  pattern: (identifier) @var.name
  !type
  value: [(call_expression function: [(identifier) (scoped_identifier path: (identifier) name: (identifier) @_fn)] @var.type)
          (try_expression (call_expression function: [(identifier) (scoped_identifier path: (identifier) name: (identifier) @_fn)] @var.type))]
  (#not-match? @_fn "^(new|default)$"))
; `let f = SizeFilter::from_string(s).unwrap()`: the value inside what the function returns
(let_declaration
  pattern: (identifier) @var.name
  !type
  value: (call_expression
    function: (field_expression
      value: (call_expression function: [(identifier) (scoped_identifier path: (identifier) name: (identifier))] @var.type)
      field: (field_identifier) @_unwrap))
  (#match? @_unwrap "^(unwrap|expect|unwrap_or_default)$"))
