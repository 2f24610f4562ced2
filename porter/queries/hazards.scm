; Nodes the hazard detectors look at (porter/scan/detectors.py dispatches on the capture name).
; One pass over the tree collects them; the detectors then reason over the tree around each node.
; Identifiers are not captured here (thousands per file): SourceContext finds the few it needs by
; searching the text and looking the hits up in the tree.

; Calls and the operators of binary expressions are captured as bare nodes and checked in SourceContext._collect
; (a function and an argument_list; a binary_expression's operator with a right operand): a pattern with fields
; keeps one pending match per enclosing node while the query walks a deep left operand, which is quadratic in
; the depth of `a + b + c + ...` and of call chains.
(call_expression) @call

["%" "&" "/" ">>" "<<"] @binary_operator

(gnu_asm_expression) @asm

(preproc_include path: (_)) @include

(preproc_def name: (identifier) value: (preproc_arg)) @define

(launch_bounds) @launch_bounds

(declaration) @declaration

(for_statement) @for

(function_definition) @function

(template_type) @template_type

(qualified_identifier) @qualified

; SourceContext.all_of: node types indexed by type (one walk for all detectors)
[(assignment_expression) (parameter_declaration) (subscript_expression) (field_expression)
 (namespace_alias_definition) (using_declaration)] @indexed
