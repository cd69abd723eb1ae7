; Python: definitions that become entities. Capture names are the contract with code_entities.py:
;   @class / @class.name / @class.doc, @function / @function.name / @function.doc
(class_definition
  name: (identifier) @class.name
  body: (block . (expression_statement (string) @class.doc)?)) @class

(function_definition
  name: (identifier) @function.name
  body: (block . (expression_statement (string) @function.doc)?)) @function
