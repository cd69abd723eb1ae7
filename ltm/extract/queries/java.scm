; Java. Capture names: see python.scm; @module.name is the declared package.
(package_declaration [(scoped_identifier) (identifier)] @module.name)

[(class_declaration name: (identifier) @class.name)
 (interface_declaration name: (identifier) @class.name)
 (enum_declaration name: (identifier) @class.name)
 (record_declaration name: (identifier) @class.name)
 (annotation_type_declaration name: (identifier) @class.name)] @class
(superclass (_) @extends)
(super_interfaces (type_list (_) @implements))
(extends_interfaces (type_list (_) @extends))

[(method_declaration name: (identifier) @function.name)
 (constructor_declaration name: (identifier) @function.name)] @function

(import_declaration [(scoped_identifier) (identifier)] @import.module) @import

(method_invocation object: (_)? @call.receiver name: (identifier) @call.name)
(object_creation_expression type: (type_identifier) @call.new)
