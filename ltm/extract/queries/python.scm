; Python. Capture names are the contract with ltm/extract/parse.py:
;   @class @class.name @class.doc   @function @function.name @function.doc
;   @import @import.module @import.name @import.alias
;   @call.name (or @call.new: a constructor) @call.receiver: one call site   @extends @implements
;   @ref.name @ref.receiver: a function passed as a value (resolved by resolve.py, never to a class)
;   @await.call: the name of a call whose result is awaited or handed on (an argument, returned)
;   @attr.object @attr.name @attr.type: an attribute of self and the class it holds (`self.x = Foo()`)
;   @var.name @var.type: a local variable or parameter and what it holds (`x = Foo()`, `x: Foo`, `x = c.get()`)
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

; a call whose result is awaited or handed on (an argument, `asyncio.create_task(server.serve())`, or
; returned); also a call site below. A guess that names a coroutine function needs one of these
(await (call function: [(identifier) @await.call (attribute attribute: (identifier) @await.call)]))
(argument_list (call function: [(identifier) @await.call (attribute attribute: (identifier) @await.call)]))
(return_statement (call function: [(identifier) @await.call (attribute attribute: (identifier) @await.call)]))
(call function: (identifier) @call.name)
(call function: (attribute object: (_) @call.receiver attribute: (identifier) @call.name))
; a function handed to another to run: `partial(f, x)`, `map(f, xs)`, `Thread(target=self.run)`;
; not `update_wrapper(wrapper, f)` / `wraps(f)`, which copy a function's name and never run it
(call
  function: (_) @_callee
  arguments: (argument_list [(identifier) @ref.name
                             (keyword_argument value: (identifier) @ref.name)])
  (#not-match? @_callee "(^|[.])(update_wrapper|wraps)$"))
(call
  function: (_) @_callee
  arguments: (argument_list [(attribute object: (identifier) @ref.receiver attribute: (identifier) @ref.name)
                             (keyword_argument
                               value: (attribute object: (identifier) @ref.receiver attribute: (identifier) @ref.name))])
  (#not-match? @_callee "(^|[.])(update_wrapper|wraps)$"))
; names a function binds itself (parameters, assignments, loop and `as` targets): a reference to one of
; them is a variable, not the module's function of that name
(parameters [(identifier) @local
             (default_parameter name: (identifier) @local)
             (typed_parameter . (identifier) @local)
             (typed_default_parameter name: (identifier) @local)
             (list_splat_pattern (identifier) @local)
             (dictionary_splat_pattern (identifier) @local)])
(assignment left: [(identifier) @local (pattern_list (identifier) @local) (tuple_pattern (identifier) @local)])
(augmented_assignment left: (identifier) @local)
(for_statement left: [(identifier) @local (pattern_list (identifier) @local) (tuple_pattern (identifier) @local)])
(as_pattern alias: (as_pattern_target (identifier) @local))
(named_expression name: (identifier) @local)

; `self.router = Router(...)`, `self.router: Router = ...`: what `self.router.mount()` calls
(assignment
  left: (attribute object: (identifier) @attr.object attribute: (identifier) @attr.name)
  right: (call function: [(identifier) (attribute)] @attr.type))
(assignment
  left: (attribute object: (identifier) @attr.object attribute: (identifier) @attr.name)
  type: (type [(identifier) (attribute)] @attr.type))
; `self._transport = transport`: what the method's variable (a parameter `transport: BaseTransport`) holds
(assignment
  left: (attribute object: (identifier) @attr.object attribute: (identifier) @attr.name)
  right: (identifier) @attr.type @attr.variable)
; a field a class body declares (a dataclass's, a pydantic model's): `engine: Engine`
(class_definition
  body: (block (expression_statement (assignment
    left: (identifier) @attr.name
    type: (type [(identifier) (attribute)] @attr.type)))))

; `x = Foo(...)`, `x = client.get(...)`, `x = await c.send(...)`, `x: Foo = ...`, `def f(x: Foo)`: what `x.m()` calls
(assignment
  left: (identifier) @var.name
  !type
  right: (call function: [(identifier) (attribute)] @var.type))
(assignment
  left: (identifier) @var.name
  !type
  right: (await (call function: [(identifier) (attribute)] @var.type)))
(assignment
  left: (identifier) @var.name
  type: (type [(identifier) (attribute)] @var.type))
; `with open(p) as fh`, `with Foo() as x`: what the `with` binds (`__enter__` mostly returns the object itself)
(with_item value: (as_pattern (call function: [(identifier) (attribute)] @var.type)
                              alias: (as_pattern_target (identifier) @var.name)))
(typed_parameter . (identifier) @var.name type: (type [(identifier) (attribute)] @var.type))
(typed_default_parameter name: (identifier) @var.name type: (type [(identifier) (attribute)] @var.type))
; `x: Foo | None`, `x: Optional[Foo]`, `x: t.Optional[Foo]`: Foo where it is not None
(typed_parameter . (identifier) @var.name
  type: (type (binary_operator left: [(identifier) (attribute)] @var.type right: (none))))
(typed_default_parameter name: (identifier) @var.name
  type: (type (binary_operator left: [(identifier) (attribute)] @var.type right: (none))))
(typed_parameter . (identifier) @var.name
  type: (type (generic_type (identifier) @_optional (type_parameter . (type [(identifier) (attribute)] @var.type) .)))
  (#eq? @_optional "Optional"))
(typed_default_parameter name: (identifier) @var.name
  type: (type (generic_type (identifier) @_optional (type_parameter . (type [(identifier) (attribute)] @var.type) .)))
  (#eq? @_optional "Optional"))
(typed_parameter . (identifier) @var.name
  type: (type (subscript value: (_) @_optional subscript: [(identifier) (attribute)] @var.type))
  (#match? @_optional "(^|[.])Optional$"))
(typed_default_parameter name: (identifier) @var.name
  type: (type (subscript value: (_) @_optional subscript: [(identifier) (attribute)] @var.type))
  (#match? @_optional "(^|[.])Optional$"))

(class_definition superclasses: (argument_list [(identifier) (attribute)] @extends))
(class_definition superclasses: (argument_list (subscript value: [(identifier) (attribute)] @extends)))
